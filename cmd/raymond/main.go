package main

import (
	"context"
	"os"
	"runtime/debug"
)

// gcPercent is raymond's garbage-collector target (GOGC) unless the
// environment sets one. raymond spends a run waiting for claude, so CPU is
// cheap and memory is not: with the default of 100 a 10,000-agent fan-out
// peaked at 48–51 MB, with 40 at 37–40 MB, its time unchanged within the
// noise (see docs/performance.md).
const gcPercent = 40

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(mainExit())
}

// mainExit is main without os.Exit, so testscript can register it as a
// command. Signals are handled by the commands that drive runs (signals.go):
// the first one lets steps in flight finish, the second kills them.
func mainExit() int {
	return Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
