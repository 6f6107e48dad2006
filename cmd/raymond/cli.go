package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"raymond/internal/spelling"
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
		{name: "rewind", synopsis: "go back to just before a step of a run and go on from there in a new run", run: runRewind},
		{name: "answer", synopsis: "answer a question an agent asks, for the next resume", run: runAnswer},
		{name: "recover", synopsis: "find interrupted runs and resume them", run: runRecover},
		{name: "list", synopsis: "list the runs of this project, newest first", run: runList},
		{name: "status", synopsis: "show one run in detail", run: runStatus},
		{name: "publish", synopsis: "merge a worktree run's draft into its branch", run: runPublish},
		{name: "discard", synopsis: "drop a worktree run's draft: its worktrees and branches", run: runDiscard},
		{name: "rm", synopsis: "remove runs with their transcripts and task folders", run: runRm},
		{name: "serve", synopsis: "run the daemon: the HTTP API and web page over this project's runs", run: runServe},
		{name: "transcript", synopsis: "analyse what a run did: path, time, cost, steps", run: runTranscript},
		{name: "lint", synopsis: "check workflows for mistakes without running them", run: runLint},
		{name: "diagram", synopsis: "draw a workflow's states and transitions (Mermaid or HTML)", run: runDiagram},
		{name: "test", synopsis: "run workflow tests (*.test.yaml) without a model", run: runTest},
		{name: "init", synopsis: "start a project: .raymond/, a commented config and a first workflow", run: runInit},
		{name: "completion", synopsis: "print a bash, zsh or fish completion script", run: runCompletion},
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
	case "-h", "--help":
		printUsage(stdout)
		return exitOK
	case "help":
		if len(args) == 1 {
			printUsage(stdout)
			return exitOK
		}
		if len(args) > 2 {
			return exitCode(stderr, &usageError{msg: "help takes one command", hint: "Run 'raymond help COMMAND', e.g. raymond help run."})
		}
		// raymond help CMD is raymond CMD --help.
		if c, ok := findCommand(args[1]); ok {
			return exitCode(stderr, c.run(ctx, env, []string{"--help"}))
		}
		return exitCode(stderr, unknownCommand(args[1], false))
	case "-v", "--version":
		name = "version"
	}
	if c, ok := findCommand(name); ok {
		return exitCode(stderr, c.run(ctx, env, args[1:]))
	}
	if isPath(name) {
		// raymond WORKFLOW is short for raymond run WORKFLOW.
		return exitCode(stderr, runRun(ctx, env, args))
	}
	return exitCode(stderr, unknownCommand(name, true))
}

// findCommand returns the command called name.
func findCommand(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// unknownCommand is the usage error for a command raymond does not have,
// suggesting the one meant when the name looks like a typo of it; orPath
// says name could have been a workflow to run (raymond WORKFLOW).
func unknownCommand(name string, orPath bool) error {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	msg := fmt.Sprintf("unknown command %q", name)
	if s := spelling.Suggest(name, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else if orPath && !strings.HasPrefix(name, "-") {
		msg += " (and no file or folder of that name to run)"
	}
	return &usageError{msg: msg, hint: "Run 'raymond --help' for the list of commands."}
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
	b.WriteString("raymond orchestrates Claude Code agents through workflows of markdown prompts.\n\n")
	b.WriteString("Usage:\n  raymond COMMAND [flags] [arguments]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-12s %s\n", c.name, c.synopsis)
	}
	b.WriteString("\nA RUN_ID may be a prefix that only one run's id starts with, or last for the\nnewest run.\n")
	b.WriteString("\nRun 'raymond help COMMAND' (or 'raymond COMMAND --help') for a command's flags and\n" +
		"examples, 'raymond --version' (-v) for the version.\n")
	b.WriteString("\nExit status of run, resume and recover: 0 completed, 1 failed, 2 bad usage,\n" +
		"3 paused (signal, usage limit), 4 waiting for answers (stdout: the asks),\n" +
		"5 budget reached, 6 nothing driven (driven elsewhere, or already completed),\n" +
		"7 claude cannot run (the run is paused).\n")
	io.WriteString(w, b.String())
}
