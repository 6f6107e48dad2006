package main

import "context"

// runTest is raymond test [PATH...].
func runTest(ctx context.Context, env *cmdEnv, args []string) error {
	return &exitError{code: exitFailed, msg: "test: not implemented yet"}
}
