package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Exit codes, as cli.md defines them.
const (
	exitOK     = 0
	exitFailed = 1
	exitUsage  = 2
)

// command is one subcommand. run receives the arguments after the command name.
type command struct {
	name     string
	synopsis string
	run      func(ctx context.Context, env *cmdEnv, args []string) error
}

// cmdEnv is what a command may touch: its streams. Commands never use os.Stdout directly.
type cmdEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

// usageError is bad usage: exit 2, with a hint saying what to do.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }

func commands() []command {
	return []command{
		{name: "version", synopsis: "print raymond's version, commit and Go version", run: runVersion},
	}
}

// Main runs raymond with the given arguments and returns the process exit status.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &cmdEnv{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		printUsage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "--help", "help":
		printUsage(stdout)
		return exitOK
	case "--version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return exitCode(stderr, c.run(ctx, env, args[1:]))
		}
	}
	fmt.Fprintf(stderr, "raymond: unknown command %q\n", name)
	fmt.Fprintln(stderr, "Run 'raymond --help' for the list of commands.")
	return exitUsage
}

func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "raymond: %s\n", ue.msg)
		if ue.hint != "" {
			fmt.Fprintln(stderr, ue.hint)
		}
		return exitUsage
	}
	fmt.Fprintf(stderr, "raymond: %v\n", err)
	return exitFailed
}

func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("raymond orchestrates Claude Code agents through workflows of markdown prompts.\n\n")
	b.WriteString("Usage:\n  raymond COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.synopsis)
	}
	b.WriteString("\nRun 'raymond COMMAND --help' for a command's flags and examples.\n")
	io.WriteString(w, b.String())
}
