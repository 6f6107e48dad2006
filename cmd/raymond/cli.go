package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"raymond/project"
)

// Exit codes, as cli.md defines them (project.ExitOK and the others say
// what each means).
const (
	exitOK        = project.ExitOK
	exitFailed    = project.ExitFailed
	exitUsage     = project.ExitUsage
	exitPaused    = project.ExitPaused
	exitAsking    = project.ExitAsking
	exitBudget    = project.ExitBudget
	exitNotDriven = project.ExitNotDriven
	exitNoClaude  = project.ExitNoClaude
)

// command is one subcommand. run receives the arguments after the command name.
type command struct {
	name     string
	synopsis string
	run      func(ctx context.Context, env *cmdEnv, args []string) error
}

// cmdEnv is what a command may touch: its streams and the environment.
// Commands never use os.Stdout or os.Getenv directly.
type cmdEnv struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// usageError is bad usage: exit 2, with a hint saying what to do.
type usageError struct {
	msg  string
	hint string
}

func (e *usageError) Error() string { return e.msg }

// exitError ends a command with a given exit status. Its message, when not
// empty, is printed as one "raymond: ..." line; an empty one means the
// command has already said what happened.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func commands() []command {
	return []command{
		{name: "run", synopsis: "start a run of a workflow and drive it to its end", run: runRun},
		{name: "start", synopsis: "create a run without driving it and print its id", run: runStart},
		{name: "resume", synopsis: "drive an existing run on from where it stopped", run: runResume},
		{name: "answer", synopsis: "answer a question an agent asks, for the next resume", run: runAnswer},
		{name: "recover", synopsis: "find interrupted runs and resume them", run: runRecover},
		{name: "list", synopsis: "list the runs of this project, newest first", run: runList},
		{name: "status", synopsis: "show one run in detail", run: runStatus},
		{name: "transcript", synopsis: "analyse what a run did: path, time, cost, steps", run: runTranscript},
		{name: "lint", synopsis: "check workflows for mistakes without running them", run: runLint},
		{name: "test", synopsis: "run workflow tests (*.test.yaml) without a model", run: runTest},
		{name: "version", synopsis: "print raymond's version, commit and Go version", run: runVersion},
	}
}

// Main runs raymond with the given arguments and returns the process exit status.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	env := &cmdEnv{stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv}
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
	if isPath(name) {
		// raymond WORKFLOW is short for raymond run WORKFLOW.
		return exitCode(stderr, runRun(ctx, env, args))
	}
	fmt.Fprintf(stderr, "raymond: unknown command %q\n", name)
	fmt.Fprintln(stderr, "Run 'raymond --help' for the list of commands.")
	return exitUsage
}

func exitCode(stderr io.Writer, err error) int {
	if err == nil {
		return exitOK
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.msg != "" {
			fmt.Fprintf(stderr, "raymond: %s\n", xe.msg)
		}
		return xe.code
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

// isPath reports whether arg names an existing file or folder.
func isPath(arg string) bool {
	if arg == "" || strings.HasPrefix(arg, "-") {
		return false
	}
	_, err := os.Stat(arg)
	return err == nil
}

func printUsage(w io.Writer) {
	var b strings.Builder
	b.WriteString("raymond orchestrates Claude Code agents through workflows of markdown workflow.\n\n")
	b.WriteString("Usage:\n  raymond COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.synopsis)
	}
	b.WriteString("\nRun 'raymond COMMAND --help' for a command's flags and examples.\n")
	b.WriteString("\nExit status of run, resume and recover: 0 completed, 1 failed, 2 bad usage,\n" +
		"3 paused (signal, usage limit), 4 waiting for answers (stdout: the asks),\n" +
		"5 budget reached, 6 nothing driven (driven elsewhere, or already completed),\n" +
		"7 claude cannot run (the run is paused).\n")
	io.WriteString(w, b.String())
}
