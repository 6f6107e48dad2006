package main

import "context"

// runTranscript is raymond transcript RUN_ID | DIR.
func runTranscript(ctx context.Context, env *cmdEnv, args []string) error {
	return &exitError{code: exitFailed, msg: "transcript: not implemented yet"}
}
