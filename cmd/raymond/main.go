package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(mainExit())
}

// mainExit is main without os.Exit, so testscript can register it as a
// command. Signals are handled by the commands that drive runs (signals.go):
// the first one lets steps in flight finish, the second kills them.
func mainExit() int {
	return Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
