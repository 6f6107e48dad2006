package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"raymond/claude"
	"raymond/daemon"
	"raymond/notify"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/registry"
	"raymond/script"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
	"raymond/workspace"
)

// openProject finds the project (--project DIR, else from the current folder)
// and reads its config. create makes the state folder when it is missing;
// without it a missing folder is simply a project with no runs.
func openProject(flag string, create bool) (*project.Project, error) {
	dir := flag
	if dir == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("find project folder: %w", err)
		}
		if dir, err = project.Find(cwd); err != nil {
			return nil, err
		}
	}
	p, err := project.Open(dir)
	var ce *project.ConfigError
	switch {
	case errors.Is(err, project.ErrNotFolder):
		return nil, &usageError{
			msg:  fmt.Sprintf("--project %s: not a folder", flag),
			hint: "Give the folder that holds (or will hold) .raymond/.",
		}
	case errors.As(err, &ce):
		return nil, &usageError{
			msg:  ce.Error(),
			hint: "Fix or remove the config file (docs/configuration.md lists its keys).",
		}
	case err != nil:
		return nil, err
	}
	if create {
		if err := p.Init(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// driving is what run, resume and recover share to drive runs.
type driving struct {
	env     *cmdEnv
	project *project.Project
	flags   *runFlags
	// replies is the absolute path of --replies, "" without it. Each run
	// gets its own runner read from it (prepare), with queues of its own.
	replies string
	log     *slog.Logger
	// notifier sends the runs' notifications ([[notify]]); nil for none.
	// Its warnings go to warnOut, the progress writer of the moment.
	notifier *notify.Notifier
	warnOut  *switchWriter
	// traces exports the runs' traces; nil when off. close stops it.
	traces *traces
	// only, set by raymond rewind --only, stops the run from starting
	// anything after the step rewound to.
	only *onlyStep
}

// newDriving prepares to drive runs of p with the flags given. A replies
// file is read once here, so that a broken one is refused before anything.
func newDriving(ctx context.Context, env *cmdEnv, p *project.Project, f *runFlags) (*driving, error) {
	d := &driving{env: env, project: p, flags: f, log: f.logger(env.stderr)}
	if f.replies != "" {
		if _, err := scripted.Load(f.replies); err != nil {
			return nil, &usageError{
				msg:  fmt.Sprintf("--replies: %v", err),
				hint: "Give a replies file for the scripted runner.",
			}
		}
		abs, err := filepath.Abs(f.replies)
		if err != nil {
			return nil, err
		}
		d.replies = abs
	}
	d.warnOut = &switchWriter{w: env.stderr}
	n, err := startNotifier(p, env.stderr, func(msg string) { fmt.Fprintf(d.warnOut, "raymond: %s\n", msg) }, d.log, env.getenv)
	if err != nil {
		return nil, err
	}
	d.notifier = n
	d.traces = startTraces(ctx, env, p, d.log, env.stderr, true)
	return d, nil
}

// close sends the notifications still queued, for a bounded time, and
// exports what is left of the runs' traces.
func (d *driving) close() {
	if d == nil {
		return
	}
	if d.notifier != nil {
		d.warnOut.set(d.env.stderr)
		closeNotifier(d.notifier)
	}
	d.traces.stop()
}

// runners returns the runners of a run answered from the replies file
// path: a scripted runner of its own, read afresh (so that no other run
// takes its replies), and the scripts it scripts.
func runners(path, scope string) (step.Runner, step.Runner, error) {
	r, err := scripted.Load(path)
	if err != nil {
		return nil, nil, err
	}
	r.InWorkflow(scope)
	return r, r.Scripts(&script.Runner{}), nil
}

// driver returns a Driver whose progress lines start with prefix. It runs
// steps with claude; prepare gives a run answered from replies its own.
func (d *driving) driver(quiesce <-chan struct{}, prefix string) *orchestrator.Driver {
	return &orchestrator.Driver{
		Store:    d.project.Store,
		Runner:   claude.Runner{},
		DebugDir: project.DebugDir(d.project.Dir),
		Progress: d.env.stderr,
		Quiet:    d.project.Quiet(d.flags.settings()),
		Color:    colorOK(d.env.stderr, d.env.getenv),
		Prefix:   prefix,
		Quiesce:  quiesce,
		Log:      d.log,
		Scripts:  &script.Runner{},
		Fetcher:  fetcher(d.project),
		Sinks:    d.traces.sinks(),
		// Runs in the worktree mode do their git work through it.
		Workspaces: workspace.Worktrees{},
	}
}

// fetcher downloads the workflows of pinned URLs into the project's
// registry. RAYMOND_TEST_REGISTRY_STALL (a duration) shortens the stall
// limit for the end-to-end tests, which cannot wait a minute; it is not
// meant for users.
func fetcher(p *project.Project) *registry.Registry {
	r := registry.New(project.RegistryDir(p.Dir), nil)
	if d, err := time.ParseDuration(os.Getenv("RAYMOND_TEST_REGISTRY_STALL")); err == nil && d > 0 {
		r.Stall = d
	}
	return r
}

// prepare returns the update Drive applies to run id once it holds it:
// with override, the flags given replace the stored options (raymond
// resume); then drv gets the runners of the run: scripted ones read from
// --replies, else from the replies file the run is stored with, else
// claude; then the options are checked, since a run made by an older
// raymond may hold values claude refuses, which would fail every step;
// then, when claude runs the steps and the person did not choose it, the
// first line says which program that is and who chose it.
func (d *driving) prepare(drv *orchestrator.Driver, id string, override bool, progress io.Writer, prefix string) func(*state.Run) error {
	return func(r *state.Run) error {
		if override {
			project.Override(r, d.flags.settings())
			for _, agent := range d.flags.newSession {
				if err := project.NewSession(r, agent); err != nil {
					return &usageError{msg: "--new-session: " + err.Error(),
						hint: fmt.Sprintf("'raymond status %s' lists its agents.", id)}
				}
			}
		}
		path := d.replies
		if path == "" {
			path = r.Options.Replies
		}
		switch {
		case path != "":
			runner, scripts, err := runners(path, r.ScopeDir)
			if err != nil {
				hint := "Give a replies file for the scripted runner."
				if d.replies == "" {
					hint = fmt.Sprintf("The run is stored with that file: put it back, or give another: raymond resume %s --replies FILE.", id)
				}
				return &usageError{msg: fmt.Sprintf("--replies: %v", err), hint: hint}
			}
			drv.Runner, drv.Scripts = runner, scripts
			r.Options.Scripted, r.Options.Replies = true, path
		case r.Options.Scripted:
			return &usageError{
				msg: fmt.Sprintf("run %s was driven with scripted replies (--replies); without them claude would answer the rest of it, "+
					"and be paid for it, although no model ran its first steps", id),
				hint: fmt.Sprintf("Give the replies again: raymond resume %s --replies FILE. To run a workflow with claude, start a new run.", id),
			}
		}
		// The ask mode is set after prepare, before any event.
		prompted := func() bool { return drv.OnAsk == orchestrator.AskPrompt }
		if s := notifySink(d.notifier, r, servingPage(d.project), prompted); s != nil {
			drv.Sinks = append(drv.Sinks, s)
		}
		realClaude := path == ""
		var oe *project.OptionError
		if err := project.CheckOptions(r.Options); errors.As(err, &oe) {
			return &usageError{
				msg:  fmt.Sprintf("run %s is stored with %v", id, err),
				hint: fmt.Sprintf("Give another value to use from now on: raymond resume %s %s %s", id, oe.Flag, flagValue(oe.Flag)),
			}
		}
		if realClaude && r.Options.ClaudeFrom != "" {
			fmt.Fprintf(progress, "%sraymond: claude is %s, as set by %s (--claude chooses another)\n",
				prefix, describeProgram(r.Options.ClaudePath), r.Options.ClaudeFrom)
		}
		return nil
	}
}

// flagValue names the value a flag of raymond resume takes, for a hint.
func flagValue(flag string) string {
	switch flag {
	case "--permission-mode":
		return "MODE"
	case "--claude":
		return "PATH"
	case "--timeout":
		return "DUR"
	case "--max-parallel":
		return "N"
	}
	return strings.ToUpper(strings.TrimPrefix(flag, "--"))
}

// describeProgram names the program path runs: the path itself, and for a
// bare name the file PATH gives for it.
func describeProgram(path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	if found, err := exec.LookPath(path); err == nil {
		return fmt.Sprintf("%s (%s)", path, found)
	}
	return path
}

// driveAndReport drives run id alone, reports how it ended and returns the
// error that carries the exit status. override applies the flags given to
// the stored options (resume).
func (d *driving) driveAndReport(ctx context.Context, id string, override bool) error {
	ctx, quiesce, stop := interrupts(ctx, d.env.stderr)
	defer stop()
	if d.only != nil {
		quiesce = d.only.quiesce(quiesce)
	}
	drv := d.driver(quiesce, "")
	if d.only != nil {
		drv.Sinks = append(drv.Sinks, d.only)
	}
	progress := &gate{w: d.env.stderr}
	drv.Progress = progress
	d.warnOut.set(progress)
	defer d.warnOut.set(d.env.stderr)
	prepare := d.prepare(drv, id, override, progress, "")
	var asker *prompter
	r, err := drv.Drive(ctx, id, func(r *state.Run) error {
		if err := prepare(r); err != nil {
			return err
		}
		if override && d.flags.changed("input") {
			if err := recordInput(r, d.flags.askID, d.flags.input); err != nil {
				return err
			}
		}
		drv.OnAsk = askMode(r.Options.OnAsk, true, d.env.stdin, d.env.stderr)
		if drv.OnAsk == orchestrator.AskPrompt {
			asker = newPrompter(d.env.stdin, progress, quiesce)
			drv.Asker = asker
		}
		return nil
	})
	if asker != nil {
		asker.Close()
	}
	if err != nil {
		err = driveFailed(id, r, servedError(d.project.Dir, err))
		d.summarize(id, r, err)
		return err
	}
	code := report(d.env.stdout, d.env.stderr, r, d.project.Dir, d.flags.json)
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// summarize prints, with --json, the summary of run id when it was not
// driven to an end (err carries the exit status): r as Drive left it, else
// as it is stored. A script then reads exit_code from stdout as it would
// after any run. Nothing is printed for a usage error or a run that cannot
// be read.
func (d *driving) summarize(id string, r *state.Run, err error) {
	var xe *exitError
	if !d.flags.json || !errors.As(err, &xe) {
		return
	}
	if r == nil {
		var rerr error
		if r, rerr = d.project.Store.Read(id); rerr != nil {
			return
		}
	}
	s := project.NewSummary(r, d.project.Dir)
	s.ExitCode = xe.code
	if data, err := json.Marshal(s); err == nil {
		fmt.Fprintf(d.env.stdout, "%s\n", data)
	}
}

// driveFailed turns the error of driving run id, which left the run r (nil
// when it was not driven), into the error that carries the exit status. The
// message names the run: recover drives several at once.
func driveFailed(id string, r *state.Run, err error) error {
	if errors.Is(err, orchestrator.ErrClaudeUnusable) && r != nil {
		// The run is paused, not lost: say how to go on once fixed.
		// resume reads RAYMOND_CLAUDE no more, and recover has no
		// --claude: only resume's flag changes the executable.
		next := "raymond resume " + id
		if errors.Is(err, claude.ErrNotFound) {
			next += " --claude PATH"
		}
		return &exitError{code: exitNoClaude, msg: fmt.Sprintf("run %s: %v\nThe run is paused; once that is fixed: %s", id, err, next)}
	}
	return driveError(err)
}

// servedError turns the refusal to drive a run that the project's daemon
// drives into one that says so: the daemon goes on by itself, and its page or
// API pauses and resumes the run. Other errors are returned as they are.
func servedError(dir string, err error) error {
	le, info, ok := servedBy(dir, err)
	if !ok {
		return err
	}
	return &exitError{code: exitNotDriven, msg: fmt.Sprintf(
		"run %s is driven by raymond serve (process %d) and goes on by itself; pause or resume it from its page (%s) or its API (POST /api/v1/runs/%s/pause or /resume)",
		le.ID, info.PID, info.URL, le.ID)}
}

// servedBy reports whether err refuses a run because the project's daemon
// drives it, with the refusal and the daemon.
func servedBy(dir string, err error) (*state.LockedError, daemon.Info, bool) {
	var le *state.LockedError
	if !errors.As(err, &le) {
		return nil, daemon.Info{}, false
	}
	info, ok := daemon.Running(filepath.Join(dir, ".raymond"))
	return le, info, ok && info.PID == le.PID
}

// driveError maps an error of Driver.Drive to the exit status it means.
func driveError(err error) error {
	var we *orchestrator.WorkflowError
	if errors.As(err, &we) {
		return &usageError{msg: we.Error(), hint: "Check the workflow folder: raymond needs its first state to load."}
	}
	var le *state.LockedError
	if errors.As(err, &le) {
		return &exitError{code: exitNotDriven, msg: le.Error()}
	}
	return err // an unusable claude without a run, a store error: exit 1
}

// checkResumable refuses to drive run id when that cannot work: it does not
// exist, it has completed, or it reached its budget and the budget it would
// now run with is still reached.
func checkResumable(store *state.Store, id string, f *runFlags) error {
	if err := state.ValidID(id); err != nil {
		return &usageError{msg: err.Error(), hint: "Run 'raymond list --all' to see the runs."}
	}
	r, err := store.Read(id)
	if err != nil {
		return notFound(store, id, err)
	}
	if ws := r.Workspace; ws.Closed() {
		return &exitError{code: exitNotDriven, msg: orchestrator.DraftClosedError(id, ws).Error()}
	}
	switch r.Status {
	case state.StatusCompleted:
		return &exitError{code: exitNotDriven, msg: fmt.Sprintf("run %s already completed; 'raymond status %s' shows its result", id, id)}
	case state.StatusBudgetExceeded:
		budget := r.BudgetUSD
		if f != nil && f.changed("budget") {
			budget = f.budget
		}
		if budget > 0 && budget <= r.TotalCostUSD {
			return &usageError{
				msg: fmt.Sprintf("run %s has cost $%.4f, its budget is $%.4f: pass --budget above $%.4f to resume it",
					id, r.TotalCostUSD, budget, r.TotalCostUSD),
				hint: fmt.Sprintf("'raymond status %s' shows what it spent.", id),
			}
		}
	}
	return nil
}

// colorWanted reports whether the environment lets a terminal have colour:
// NO_COLOR is unset and TERM is not dumb.
func colorWanted(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// colorOK reports whether progress may use colour: w is a terminal,
// NO_COLOR is unset and TERM is not dumb.
func colorOK(w io.Writer, getenv func(string) string) bool {
	if !colorWanted(getenv) {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
