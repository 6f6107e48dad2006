// Command raymond orchestrates Claude Code agents through workflows written as
// folders of markdown prompts. See README.md and docs/ for how to use it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(mainExit())
}

// mainExit is main without os.Exit, so testscript can register it as a command.
func mainExit() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
}
