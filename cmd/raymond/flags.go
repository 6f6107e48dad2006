package main

import (
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"raymond/orchestrator"
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
	timeout         string
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

	// timeoutDur is timeout parsed by check.
	timeoutDur time.Duration
}

// newRunFlags defines the flags of kind on fs.
func newRunFlags(fs *pflag.FlagSet, kind flagKind) *runFlags {
	f := &runFlags{fs: fs}
	if kind == kindRecover {
		fs.BoolVar(&f.quiet, "quiet", false, "progress shows only transitions, waits and errors")
		fs.StringVar(&f.replies, "replies", "", "answer steps from the replies `FILE` instead of claude")
		fs.StringVar(&f.project, "project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
		fs.StringVar(&f.logLevel, "log-level", "", "developer logs on stderr at `LEVEL`: debug, info, warn or error (default: off)")
		return f
	}
	if kind != kindResume {
		fs.StringVar(&f.input, "input", "", "`TEXT` of {{input}} in the first state")
		fs.StringVar(&f.id, "id", "", "the run `ID` (letters, digits, - and _; must be new; default: generated)")
	}
	fs.StringVar(&f.model, "model", "", "default `MODEL` of states without a model (default: Claude Code's)")
	fs.StringVar(&f.effort, "effort", "", "default `EFFORT` of states without an effort")
	fs.Float64Var(&f.budget, "budget", 0, "stop starting paid steps once the run has cost `USD` (default: unlimited)")
	fs.IntVar(&f.maxParallel, "max-parallel", orchestrator.DefaultMaxParallel, "run at most `N` steps at the same time")
	fs.StringVar(&f.timeout, "timeout", orchestrator.DefaultTimeout.String(),
		"kill a step that prints nothing for `DUR` (90s, 10m; a bare number is seconds; 0 = never)")
	fs.BoolVar(&f.noWait, "no-wait", false, "on a usage limit, pause and exit instead of sleeping until the reset")
	fs.StringVar(&f.permissionMode, "permission-mode", orchestrator.DefaultPermissionMode, "permission `MODE` passed to claude")
	fs.BoolVar(&f.skipPermissions, "dangerously-skip-permissions", false, "pass --dangerously-skip-permissions to claude instead of a permission mode")
	fs.StringVar(&f.claude, "claude", "", "the claude executable `PATH` (also RAYMOND_CLAUDE; default: claude on PATH)")
	fs.BoolVar(&f.debug, "debug", true, "write the transcript folder .raymond/debug/ID (the default)")
	fs.BoolVar(&f.noDebug, "no-debug", false, "do not write the transcript folder")
	if kind != kindStart {
		fs.BoolVar(&f.quiet, "quiet", false, "progress shows only transitions, waits and errors")
		fs.BoolVar(&f.json, "json", false, "print one JSON summary object on stdout instead of the bare result")
		fs.StringVar(&f.replies, "replies", "", "answer steps from the replies `FILE` instead of claude (not stored: give it again on resume)")
	}
	fs.StringVar(&f.project, "project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	fs.StringVar(&f.logLevel, "log-level", "", "developer logs on stderr at `LEVEL`: debug, info, warn or error (default: off)")
	return f
}

// changed reports whether flag name was given on the command line.
func (f *runFlags) changed(name string) bool {
	return f.fs.Changed(name)
}

// check validates the values given on the command line.
func (f *runFlags) check(h help) error {
	if f.changed("budget") {
		if err := checkBudget(f.budget); err != nil {
			return h.usageError("--budget: %v", err)
		}
	}
	if f.changed("max-parallel") && f.maxParallel < 1 {
		return h.usageError("--max-parallel must be at least 1, not %d", f.maxParallel)
	}
	if f.fs.Lookup("timeout") != nil {
		d, err := parseTimeout(f.timeout)
		if err != nil {
			return h.usageError("--timeout: %v", err)
		}
		f.timeoutDur = d
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

// newOptions merges the flags given, RAYMOND_CLAUDE, the config file and the
// defaults, in that order of precedence, into the options and budget of a new
// run.
func (f *runFlags) newOptions(cfg *config, getenv func(string) string, project string) (state.Options, float64) {
	o := state.Options{
		Model:           pick(f.changed("model"), f.model, cfg.model, ""),
		Effort:          pick(f.changed("effort"), f.effort, cfg.effort, ""),
		MaxParallel:     pick(f.changed("max-parallel"), f.maxParallel, cfg.maxParallel, orchestrator.DefaultMaxParallel),
		Timeout:         state.Duration(pick(f.changed("timeout"), f.timeoutDur, cfg.timeout, orchestrator.DefaultTimeout)),
		NoWait:          pick(f.changed("no-wait"), f.noWait, cfg.noWait, false),
		PermissionMode:  pick(f.changed("permission-mode"), f.permissionMode, cfg.permissionMode, orchestrator.DefaultPermissionMode),
		SkipPermissions: pick(f.changed("dangerously-skip-permissions"), f.skipPermissions, cfg.skipPermissions, false),
		Debug:           f.debugOn(cfg),
		ProjectDir:      project,
	}
	if f.changed("input") {
		o.Input = &f.input
	}
	claude := cfg.claude
	if v := getenv("RAYMOND_CLAUDE"); v != "" {
		claude = &v
	}
	o.ClaudePath = pick(f.changed("claude"), f.claude, claude, "")
	if o.SkipPermissions && !f.changed("permission-mode") {
		o.PermissionMode = ""
	}
	budget := pick(f.changed("budget"), f.budget, cfg.budget, 0)
	return o, budget
}

// override applies the flags given on the command line, and only those, to a
// stored run (raymond resume).
func (f *runFlags) override(r *state.Run) {
	o := &r.Options
	set := func(name string, apply func()) {
		if f.changed(name) {
			apply()
		}
	}
	set("model", func() { o.Model = f.model })
	set("effort", func() { o.Effort = f.effort })
	set("max-parallel", func() { o.MaxParallel = f.maxParallel })
	set("timeout", func() { o.Timeout = state.Duration(f.timeoutDur) })
	set("no-wait", func() { o.NoWait = f.noWait })
	set("permission-mode", func() { o.PermissionMode, o.SkipPermissions = f.permissionMode, false })
	set("dangerously-skip-permissions", func() {
		o.SkipPermissions = f.skipPermissions
		if f.skipPermissions {
			o.PermissionMode = ""
		} else if o.PermissionMode == "" {
			o.PermissionMode = orchestrator.DefaultPermissionMode
		}
	})
	set("claude", func() { o.ClaudePath = f.claude })
	set("debug", func() { o.Debug = f.debug })
	set("no-debug", func() { o.Debug = !f.noDebug })
	set("budget", func() { r.BudgetUSD = f.budget })
}

// debugOn says whether the transcript is written: --no-debug or --debug,
// else the config's debug, else on.
func (f *runFlags) debugOn(cfg *config) bool {
	switch {
	case f.changed("no-debug"):
		return !f.noDebug
	case f.changed("debug"):
		return f.debug
	case cfg.debug != nil:
		return *cfg.debug
	}
	return true
}

// quietOn says whether progress is quiet: --quiet, else the config's quiet.
func (f *runFlags) quietOn(cfg *config) bool {
	return pick(f.changed("quiet"), f.quiet, cfg.quiet, false)
}

// pick returns the flag's value when it was given, else the config's when it
// has one, else the default.
func pick[T any](given bool, flag T, cfg *T, def T) T {
	switch {
	case given:
		return flag
	case cfg != nil:
		return *cfg
	}
	return def
}

// parseTimeout reads a step timeout: a Go duration (90s, 10m) or a bare
// number of seconds; 0 means never; negative is an error.
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs > float64(1<<63-1)/float64(time.Second) {
			return 0, fmt.Errorf("%q seconds is too long", s)
		}
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%q is neither a duration such as 90s or 10m nor a number of seconds", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("%q is negative; use 0 for no timeout", s)
	}
	return d, nil
}

// checkBudget accepts a positive budget in USD.
func checkBudget(usd float64) error {
	if !(usd > 0) || usd > 1e9 {
		return fmt.Errorf("the budget must be a positive amount of USD, not %v", usd)
	}
	return nil
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
