package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"raymond/orchestrator"
	"raymond/project"
	"raymond/state"
)

// flagKind says which command a set of run flags serves: each takes the flags
// that make sense for it.
type flagKind int

const (
	kindRun     flagKind = iota // run: everything
	kindStart                   // start: no output or driving flags
	kindResume                  // resume: no --input, no --id
	kindRecover                 // recover: only how to show progress, --replies and --project
)

// runFlags are the flags of run, start and resume (cli.md), and what the
// command line gave for them.
type runFlags struct {
	fs *pflag.FlagSet

	input           string
	id              string
	model           string
	effort          string
	budget          float64
	maxParallel     int
	maxAgents       int
	maxDepth        int
	maxForks        int
	maxTurns        int
	timeout         string
	stepTimeout     string
	noWait          bool
	permissionMode  string
	skipPermissions bool
	claude          string
	debug           bool
	noDebug         bool
	quiet           bool
	json            bool
	project         string
	replies         string
	logLevel        string
	confine         bool
	continueSess    bool
	onAsk           string
	askID           string
	noLint          bool
	workspace       string
	fromDirty       bool

	newSession []string

	// timeoutDur and stepTimeoutDur are timeout and stepTimeout parsed by check.
	timeoutDur, stepTimeoutDur time.Duration
}

// newRunFlags defines the flags of kind on fs.
func newRunFlags(fs *pflag.FlagSet, kind flagKind) *runFlags {
	f := &runFlags{fs: fs}
	if kind == kindRecover {
		fs.BoolVarP(&f.quiet, "quiet", "q", false, "progress shows only transitions, waits and errors")
		fs.StringVar(&f.replies, "replies", "", "answer steps from the replies `FILE` instead of claude (default: the one each run is stored with)")
		fs.StringVar(&f.project, "project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
		fs.StringVar(&f.logLevel, "log-level", "", "developer logs on stderr at `LEVEL`: debug, info, warn or error (default: off)")
		return f
	}
	if kind == kindRun || kind == kindStart {
		fs.BoolVar(&f.noLint, "no-lint", false, "start without linting the workflow first (see 'raymond lint')")
		fs.StringVar(&f.workspace, "workspace", "",
			"where agents work: `MODE` shared (the folder itself) or worktree (a git worktree per agent on a draft branch raymond/ID, a commit per step) (default: the workflow's, else shared)")
		fs.BoolVar(&f.fromDirty, "workspace-from-dirty", false,
			"with --workspace worktree, carry the checkout's uncommitted changes into the draft as its first commit instead of refusing them")
	}
	if kind != kindResume {
		fs.StringVar(&f.input, "input", "", "`TEXT` of {{input}} in the first state; - reads it from stdin, @FILE from FILE (@@ for a text that starts with @)")
		fs.StringVar(&f.id, "id", "", "the run `ID` (letters, digits, - and _; must be new; default: generated)")
		fs.BoolVar(&f.continueSess, "continue-session", false,
			"main's first prompt branches from your newest Claude Code conversation in this folder, which stays as it was")
	} else {
		fs.StringVar(&f.input, "input", "", "answer the oldest pending ask (or the one --ask names) with `TEXT`, then drive the run; - reads it from stdin, @FILE from FILE (@@ for a text that starts with @)")
		fs.StringVar(&f.askID, "ask", "", "the `ASK_ID` that --input answers (default: the oldest pending ask)")
		fs.StringArrayVar(&f.newSession, "new-session", nil,
			"start `AGENT` again at its state in a new session, e.g. when claude lost its session (repeatable)")
	}
	fs.StringVar(&f.model, "model", "", "default `MODEL` of states without a model (default: Claude Code's); a list a,b goes on with b when a is overloaded or out of limits")
	fs.StringVar(&f.effort, "effort", "", "default `EFFORT` of states without an effort")
	fs.Float64Var(&f.budget, "budget", 0, "stop starting paid steps once the run has cost `USD` (default: unlimited)")
	fs.IntVar(&f.maxParallel, "max-parallel", orchestrator.DefaultMaxParallel, "run at most `N` steps at the same time")
	fs.IntVar(&f.maxAgents, "max-agents", state.DefaultMaxAgents, "fail a fork that would make more than `N` agents alive at once")
	fs.IntVar(&f.maxDepth, "max-depth", state.DefaultMaxDepth, "fail a call or function that would stack more than `N` frames")
	fs.IntVar(&f.maxForks, "max-forks", state.DefaultMaxForks, "fail a fork that would make more than `N` agents forked over the run's life")
	fs.IntVar(&f.maxTurns, "max-turns", 0, "stop a claude step after `N` turns and fail its agent, unless its state sets max_turns (default: none; 0 = none)")
	fs.StringVar(&f.timeout, "timeout", orchestrator.DefaultTimeout.String(),
		"kill a step that prints nothing for `DUR`, unless a tool it called is running (90s, 10m; a bare number is seconds; 0 = never)")
	fs.StringVar(&f.stepTimeout, "step-timeout", orchestrator.DefaultStepTimeout.String(),
		"stop a step that has run for `DUR`, and fail its agent (2h, 30m; a bare number is seconds; 0 = never)")
	fs.BoolVar(&f.noWait, "no-wait", false, "on a usage limit, pause and exit instead of sleeping until the reset")
	fs.StringVar(&f.permissionMode, "permission-mode", orchestrator.DefaultPermissionMode, "permission `MODE` passed to claude")
	fs.BoolVar(&f.skipPermissions, "dangerously-skip-permissions", false, "pass --dangerously-skip-permissions to claude instead of a permission mode")
	fs.StringVar(&f.claude, "claude", "", "the claude executable `PATH` (also RAYMOND_CLAUDE; default: claude on PATH)")
	fs.StringVar(&f.onAsk, "on-ask", "auto",
		"who answers <ask>: `MODE` pause (exit 4 with the questions), prompt (the terminal), reject (the agent fails), or auto: prompt when stdin and stderr are terminals, else pause")
	fs.BoolVar(&f.confine, "confine", false, "refuse a cd= outside the project folder (default: allowed, with a warning)")
	fs.BoolVar(&f.debug, "debug", true, "write the transcript folder .raymond/debug/ID")
	fs.BoolVar(&f.noDebug, "no-debug", false, "do not write the transcript folder")
	if kind != kindStart {
		fs.BoolVarP(&f.quiet, "quiet", "q", false, "progress shows only transitions, waits and errors")
		fs.BoolVar(&f.json, "json", false, "print one JSON summary object on stdout instead of the bare result")
		fs.StringVar(&f.replies, "replies", "", "answer steps from the replies `FILE` instead of claude (stored with the run: resume uses it again)")
	}
	fs.StringVar(&f.project, "project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	fs.StringVar(&f.logLevel, "log-level", "", "developer logs on stderr at `LEVEL`: debug, info, warn or error (default: off)")
	if kind == kindResume {
		storedDefaults(fs)
	}
	return f
}

// storedDefaults rewords the help of resume's option flags: a flag not given
// keeps what the run was started (or last resumed) with, not run's default,
// and RAYMOND_CLAUDE does not apply again.
func storedDefaults(fs *pflag.FlagSet) {
	for _, name := range []string{"model", "effort", "budget", "max-parallel", "max-agents", "max-depth", "max-forks", "max-turns", "timeout",
		"step-timeout", "no-wait", "permission-mode", "dangerously-skip-permissions", "claude", "on-ask", "confine", "debug"} {
		fl := fs.Lookup(name)
		if fl == nil {
			continue
		}
		for _, cut := range []string{" (default:", " (also RAYMOND_CLAUDE"} {
			if i := strings.Index(fl.Usage, cut); i >= 0 {
				fl.Usage = fl.Usage[:i]
			}
		}
		fl.Usage += " (default: the run's own)"
		switch fl.Value.Type() {
		case "int", "float64":
			fl.DefValue = "0"
		case "bool":
			fl.DefValue = "false"
		default:
			fl.DefValue = ""
		}
	}
}

// changed reports whether flag name was given on the command line.
func (f *runFlags) changed(name string) bool {
	return f.fs.Changed(name)
}

// check validates the values given on the command line.
func (f *runFlags) check(h help) error {
	if f.changed("budget") {
		if err := project.CheckBudget(f.budget); err != nil {
			return h.usageError("--budget: %v", err)
		}
	}
	if f.changed("model") {
		if _, err := project.SplitModels(f.model); err != nil {
			return h.usageError("--model: %v", err)
		}
	}
	if f.changed("effort") {
		if err := project.CheckEffort(f.effort); err != nil {
			return h.usageError("--effort: %v", err)
		}
	}
	if f.changed("permission-mode") {
		if err := project.CheckPermissionMode(f.permissionMode); err != nil {
			return h.usageError("--permission-mode: %v", err)
		}
	}
	if f.changed("on-ask") {
		if err := project.CheckOnAsk(f.onAsk); err != nil {
			return h.usageError("--on-ask: %v", err)
		}
	}
	if f.changed("workspace") {
		if err := project.CheckWorkspace(f.workspace); err != nil {
			return h.usageError("--workspace: %v", err)
		}
	}
	if f.changed("ask") && !f.changed("input") {
		return h.usageError("--ask names the ask that --input answers; give --input TEXT too")
	}
	if f.changed("claude") {
		// Stored absolute: a resume from another folder runs the same
		// program.
		f.claude = project.AbsPath(f.claude, cwd())
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"max-parallel", f.maxParallel}, {"max-agents", f.maxAgents}, {"max-depth", f.maxDepth}, {"max-forks", f.maxForks}} {
		if f.changed(c.name) && c.n < 1 {
			return h.usageError("--%s must be at least 1, not %d", c.name, c.n)
		}
	}
	if f.changed("max-turns") && f.maxTurns < 0 {
		return h.usageError("--max-turns must be a whole number of turns of at least 1, or 0 for none, not %d", f.maxTurns)
	}
	if f.fs.Lookup("timeout") != nil {
		d, err := project.ParseTimeout(f.timeout)
		if err != nil {
			return h.usageError("--timeout: %v", err)
		}
		f.timeoutDur = d
	}
	if f.fs.Lookup("step-timeout") != nil {
		d, err := project.ParseTimeout(f.stepTimeout)
		if err != nil {
			return h.usageError("--step-timeout: %v", err)
		}
		f.stepTimeoutDur = d
	}
	if f.changed("debug") && f.changed("no-debug") {
		return h.usageError("--debug and --no-debug contradict each other; give one")
	}
	if f.changed("dangerously-skip-permissions") && f.skipPermissions && f.changed("permission-mode") {
		return h.usageError("--permission-mode and --dangerously-skip-permissions contradict each other; give one")
	}
	if f.changed("id") {
		if err := state.ValidID(f.id); err != nil {
			return h.usageError("--id: %v", err)
		}
	}
	if _, _, err := parseLogLevel(f.logLevel); err != nil {
		return h.usageError("--log-level: %v", err)
	}
	return nil
}

// settings returns the settings given on the command line, and only those.
func (f *runFlags) settings() project.Settings {
	s := project.Settings{
		Model:           given(f, "model", f.model),
		Effort:          given(f, "effort", f.effort),
		Budget:          given(f, "budget", f.budget),
		MaxParallel:     given(f, "max-parallel", f.maxParallel),
		MaxAgents:       given(f, "max-agents", f.maxAgents),
		MaxDepth:        given(f, "max-depth", f.maxDepth),
		MaxForks:        given(f, "max-forks", f.maxForks),
		MaxTurns:        given(f, "max-turns", f.maxTurns),
		Timeout:         given(f, "timeout", f.timeoutDur),
		StepTimeout:     given(f, "step-timeout", f.stepTimeoutDur),
		NoWait:          given(f, "no-wait", f.noWait),
		PermissionMode:  given(f, "permission-mode", f.permissionMode),
		SkipPermissions: given(f, "dangerously-skip-permissions", f.skipPermissions),
		Claude:          given(f, "claude", f.claude),
		Quiet:           given(f, "quiet", f.quiet),
		Confine:         given(f, "confine", f.confine),
		OnAsk:           given(f, "on-ask", f.onAsk),
		Workspace:       given(f, "workspace", f.workspace),
	}
	switch {
	case f.changed("no-debug"):
		s.Debug = ptrTo(!f.noDebug)
	case f.changed("debug"):
		s.Debug = ptrTo(f.debug)
	}
	return s
}

// given returns what the command line gave for a new run: its settings,
// --input, and RAYMOND_CLAUDE from getenv.
func (f *runFlags) given(getenv func(string) string) project.Given {
	g := project.Given{Settings: f.settings(), ClaudeEnv: project.AbsPath(getenv("RAYMOND_CLAUDE"), cwd())}
	if f.changed("input") {
		g.Input = ptrTo(f.input)
	}
	return g
}

// given returns v when flag name was given on the command line, else nil.
func given[T any](f *runFlags, name string, v T) *T {
	if !f.changed(name) {
		return nil
	}
	return &v
}

func ptrTo[T any](v T) *T { return &v }

// cwd returns the current folder, which relative paths given on the
// command line are taken from; "" when it cannot be known, which leaves
// them as they are (project.AbsPath).
func cwd() string {
	dir, _ := os.Getwd()
	return dir
}

// logger returns the developer logger --log-level asks for, writing to w;
// nil when logs are off. check has validated the level.
func (f *runFlags) logger(w io.Writer) *slog.Logger {
	level, on, _ := parseLogLevel(f.logLevel)
	if !on {
		return nil
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}

// parseLogLevel reads --log-level; "" and "off" mean no logs (on is false).
func parseLogLevel(s string) (level slog.Level, on bool, err error) {
	switch strings.ToLower(s) {
	case "", "off":
		return 0, false, nil
	case "debug":
		return slog.LevelDebug, true, nil
	case "info":
		return slog.LevelInfo, true, nil
	case "warn", "warning":
		return slog.LevelWarn, true, nil
	case "error":
		return slog.LevelError, true, nil
	}
	return 0, false, fmt.Errorf("unknown level %q; use debug, info, warn or error", s)
}

// readInput reads --input where it names its text rather than giving it:
// "-" is stdin, "@FILE" the content of FILE, and "@@TEXT" the literal
// "@TEXT". The text is used as read, its last newline included. An empty
// stdin or file is refused: it is far more often a failed command or a
// truncated file than a wish, and an empty --input TEXT says that one
// plainly.
func (f *runFlags) readInput(stdin io.Reader, h help) error {
	if !f.changed("input") {
		return nil
	}
	switch {
	case f.input == "-":
		data, err := io.ReadAll(stdin)
		if err != nil {
			return fmt.Errorf("--input: read stdin: %w", err)
		}
		if isTerminal(stdin) {
			data = []byte(trimLineEnd(string(data)))
		}
		if len(data) == 0 {
			return &usageError{msg: "--input: stdin is empty",
				hint: "Pipe the input in, or give --input '' if an empty input is what you mean."}
		}
		f.input = string(data)
	case strings.HasPrefix(f.input, "@@"):
		f.input = f.input[1:]
	case f.input == "@":
		return &usageError{msg: "--input: @ names no file",
			hint: fmt.Sprintf("Give --input @FILE to read the input from FILE, or --input @@ for the text @. Run 'raymond %s --help' for usage.", h.name)}
	case strings.HasPrefix(f.input, "@"):
		data, err := os.ReadFile(f.input[1:])
		if err != nil {
			return &usageError{msg: fmt.Sprintf("--input: cannot read %s: %v", f.input[1:], unwrapPath(err)),
				hint: fmt.Sprintf("--input @FILE reads the input from FILE; write @@ for a text that starts with @. Run 'raymond %s --help' for usage.", h.name)}
		}
		if len(data) == 0 {
			return &usageError{msg: fmt.Sprintf("--input: %s is empty", f.input[1:]),
				hint: "Write the input into the file, or give --input '' if an empty input is what you mean."}
		}
		f.input = string(data)
	}
	return nil
}
