// Package daemon is what `raymond serve` runs: it drives the runs of one
// project for as long as it lives, in the project's own .raymond/ store, so
// the command line sees them as any run. It resumes what was interrupted
// when it starts, puts every step of every run through one Gate (a cap on
// concurrent steps, one usage-limit hold, a daily spend cap), keeps the
// asks of its runs open for answers from the API, numbers each run's events
// for clients that follow them, and keeps an index of every run of the
// project that follows the state folder.
//
// It knows nothing of HTTP: package server puts it on the network.
package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"raymond/lint"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/state"
	"raymond/step"
	"raymond/workflow"
	"raymond/workspace"
)

// Config is what a daemon is made with.
type Config struct {
	// Project is the project it serves; its .raymond/ folder must exist.
	Project *project.Project
	// Runner runs the steps of prompt states (claude.Runner); Scripts
	// those of script states. Script steps do not pass the Gate: they cost
	// nothing and do not use the account.
	Runner, Scripts step.Runner
	// Fetcher downloads workflows given by pinned URL; nil refuses them.
	Fetcher workflow.Fetcher
	// Workspaces does the git work of runs in the worktree mode (the
	// config's or the manifest's workspace); nil refuses such runs.
	Workspaces orchestrator.Workspaces
	// MaxSteps caps the steps running at once across all runs (default 8).
	MaxSteps int
	// DailyCapUSD stops new steps for the rest of the day once the day's
	// spend reaches it; 0 for none.
	DailyCapUSD float64
	// SkipPermissions lets the daemon's runs pass
	// --dangerously-skip-permissions when they ask for it; without it a
	// run that asks for it (a run the command line made) runs without.
	SkipPermissions bool
	// Clock is the time source of waits; nil is the real clock.
	Clock orchestrator.Clock
	// Log receives the daemon's logs; nil discards them.
	Log *slog.Logger
	// Heartbeat is the drivers' Heartbeat (0: a minute).
	Heartbeat time.Duration
	// Replies is the absolute path of raymond serve --replies, "" for none:
	// every run the daemon drives is answered from it, each from a runner
	// of its own that Scripted makes. A run stored with a replies file is
	// answered from that one when Replies is "".
	Replies string
	// Scripted makes the runners of a run answered from a replies file;
	// nil drives no run from one.
	Scripted Runners
	// FindClaude, when set, resolves the claude executable a new run would
	// use (claude.Find): Launch refuses a run it finds no executable for
	// (ErrUnavailable) before the run exists. nil when no step needs claude
	// (scripted replies).
	FindClaude func(path string) (string, error)
	// ClaudeEnv is RAYMOND_CLAUDE as the daemon was started with (an
	// absolute path), "" when unset: the claude executable of the runs it
	// creates, unless the project's config names one, as for raymond run.
	ClaudeEnv string
	// Sinks, when set, gives more sinks to each run the daemon drives,
	// after its event stream (the run's notifications, the traces'
	// telemetry.Tracer).
	Sinks func(r *state.Run) []orchestrator.Sink
}

// DefaultMaxSteps is the daemon-wide cap on concurrent steps by default.
const DefaultMaxSteps = 8

// Daemon drives the runs of one project.
type Daemon struct {
	cfg   Config
	p     *project.Project
	store *state.Store
	dir   string // the project's .raymond folder
	log   *slog.Logger
	clock orchestrator.Clock
	lock  *os.File
	gate  *Gate
	index *index
	note  *notifier // the gate changed
	// pausing are the runs whose pause was accepted (PausingFile).
	pausing *pausing
	// health is whether the daemon can write its state.
	health health

	ctx    context.Context // drives run in it; canceling kills their steps
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu       sync.Mutex
	closing  bool
	runs     map[string]*driven
	launched int
}

// driven is a run the daemon drives now.
type driven struct {
	id      string
	quiesce chan struct{}
	once    sync.Once
	stream  *stream
	asker   *asker
	done    chan struct{}
	// kill cancels the drive's context: its steps are killed (Cancel).
	kill context.CancelFunc
	// cancelled says Cancel was asked for; the daemon's mu guards it.
	cancelled bool
}

func (r *driven) pause() { r.once.Do(func() { close(r.quiesce) }) }

// Errors a caller tells apart (the API maps them to statuses).
var (
	// ErrNotFound is a run or an ask that does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict is a request the run's state does not allow now.
	ErrConflict = errors.New("conflict")
	// ErrInvalid is a request that makes no sense (a malformed event id).
	ErrInvalid = errors.New("invalid")
	// ErrClosing is a request that would start driving a run while the
	// daemon stops.
	ErrClosing = errors.New("the daemon is stopping")
	// ErrUnavailable is a run that cannot be driven by this daemon at all,
	// such as one for which no claude executable is found.
	ErrUnavailable = errors.New("unavailable")
)

// Error is an error a caller can show as is, with its kind for errors.Is.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string        { return e.Msg }
func (e *Error) Is(target error) bool { return target == e.Kind }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Open takes the project's daemon lock and reads its runs, and holds the
// gate until the usage limit a run waits for resets. Nothing is driven until
// Recover or Launch.
func Open(cfg Config) (*Daemon, error) {
	if cfg.Project == nil || cfg.Runner == nil {
		return nil, errors.New("daemon: a project and a runner are required")
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	if cfg.Clock == nil {
		cfg.Clock = orchestrator.RealClock{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dir := filepath.Join(cfg.Project.Dir, ".raymond")
	lock, err := lockServe(dir)
	if err != nil {
		return nil, err
	}
	d := &Daemon{cfg: cfg, p: cfg.Project, store: cfg.Project.Store, dir: dir, log: cfg.Log,
		clock: cfg.Clock, lock: lock, runs: make(map[string]*driven), note: newNotifier()}
	d.gate = NewGate(cfg.MaxSteps, cfg.DailyCapUSD, filepath.Join(dir, SpendFile), cfg.Clock, d.note.Notify)
	d.gate.writeFailed = d.health.failed
	d.pausing = loadPausing(filepath.Join(dir, PausingFile))
	d.index = newIndex(d.store, d.log)
	if err := d.index.load(); err != nil {
		d.log.Warn("some runs cannot be read", "err", err)
	}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	d.holdForWaits()
	return d, nil
}

// holdForWaits holds the gate until the latest usage-limit reset a run of
// the project waits for. A limit outlives the daemon and belongs to the
// account, not to a run: the daemon holds every run until it resets, even
// when it resumes nothing (--no-recover) or the run waits in another process.
func (d *Daemon) holdForWaits() {
	now := d.clock.Now()
	for _, l := range d.Runs() {
		// A waiting run parked by a stop reads paused, and keeps its wait.
		if l.Status != state.StatusWaiting && l.Status != state.StatusPaused {
			continue
		}
		r, err := d.store.Read(l.RunID)
		if err != nil {
			continue
		}
		if r.Wait != nil && r.Wait.Until.After(now) {
			d.gate.holdUntil(r.Wait.Model, r.Wait.Until)
		}
		for _, h := range r.Holds {
			if h.Until.After(now) {
				d.gate.holdUntil(h.Model, h.Until)
			}
		}
	}
}

// Watch follows the state folder until ctx ends, so the index sees every
// change, the command line's too.
func (d *Daemon) Watch(ctx context.Context) error { return d.index.watch(ctx) }

// WriteInfo writes serve.json, which tells the command line where the
// daemon listens.
func (d *Daemon) WriteInfo(info Info) error {
	data, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(d.dir, InfoFile), append(data, '\n'))
}

// Project returns the project the daemon serves.
func (d *Daemon) Project() *project.Project { return d.p }

// Gate returns the daemon's step gate.
func (d *Daemon) Gate() *Gate { return d.gate }

// Changed returns a channel closed at the next change of the runs or the
// gate.
func (d *Daemon) Changed() (runs, gate <-chan struct{}) {
	return d.index.note.Changed(), d.note.Changed()
}

// Since returns the runs changed and removed after seq (see Rows).
func (d *Daemon) Since(seq uint64) (changed, removed []string, next uint64, full bool) {
	return d.index.since(seq)
}

// Run returns the listing row of run id, as the index last read it.
func (d *Daemon) Run(id string) (project.Listing, bool) {
	r, ok := d.index.get(id)
	return r.Listing, ok
}

// Runs returns every run's listing row, newest first.
func (d *Daemon) Runs() []project.Listing {
	rows := d.index.list()
	out := make([]project.Listing, len(rows))
	for i, r := range rows {
		out[i] = r.Listing
	}
	return out
}

// PendingAsk is a pending ask with the run it belongs to.
type PendingAsk struct {
	RunID string `json:"run_id"`
	project.PendingAsk
}

// Asks returns every pending ask of every run, oldest first.
func (d *Daemon) Asks() []PendingAsk {
	var out []PendingAsk
	for _, r := range d.index.list() {
		for _, k := range r.Asks {
			out = append(out, PendingAsk{RunID: r.Listing.RunID, PendingAsk: k})
		}
	}
	slices.SortStableFunc(out, func(a, b PendingAsk) int {
		if a.AskedAt != b.AskedAt {
			if a.AskedAt < b.AskedAt {
				return -1
			}
			return 1
		}
		return 0
	})
	return out
}

// Detail reads run id in full, as raymond status --json shows it.
func (d *Daemon) Detail(id string) (project.Detail, error) {
	if state.ValidID(id) != nil {
		return project.Detail{}, errorf(ErrNotFound, "%q is not a run id", id)
	}
	r, err := d.store.Read(id)
	if errors.Is(err, state.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
		return project.Detail{}, errorf(ErrNotFound, "no run %s in this project: GET /api/v1/runs lists them", id)
	}
	if err != nil {
		return project.Detail{}, err
	}
	row, err := project.Describe(d.store, r)
	if err != nil {
		return project.Detail{}, err
	}
	return project.NewDetail(r, row), nil
}

// Launch is what starting a run takes.
type Launch struct {
	// Workflow is the workflow's path (folder, YAML file or zip).
	Workflow string
	// Input is {{input}}; nil when none is given.
	Input *string
	// Budget in USD; nil for the workflow's or the config's.
	Budget *float64
	// Model overrides the config's model; "" keeps it.
	Model string
}

// LintError is a workflow that has lint errors: it is not started.
type LintError struct {
	Findings []lint.Finding
}

func (e *LintError) Error() string {
	if len(e.Findings) == 1 {
		f := e.Findings[0]
		return fmt.Sprintf("the workflow has an error: %s:%d: %s", f.File, f.Line, f.Message)
	}
	return fmt.Sprintf("the workflow has %d errors; raymond lint shows them", len(e.Findings))
}

// Launch lints the workflow, creates a run of it and starts driving it.
func (d *Daemon) Launch(l Launch) (*state.Run, error) {
	if d.isClosing() {
		return nil, &Error{Kind: ErrClosing, Msg: "the daemon is stopping: start the run after it restarts"}
	}
	if l.Model != "" {
		if _, err := project.SplitModels(l.Model); err != nil { // a list a,b falls back
			return nil, &project.OptionError{Flag: "model", Value: l.Model, Err: err}
		}
	}
	if l.Budget != nil {
		if err := project.CheckBudget(*l.Budget); err != nil {
			return nil, &project.OptionError{Flag: "budget", Value: fmt.Sprint(*l.Budget), Err: err}
		}
	}
	scopes := workflow.NewScopes(d.cfg.Fetcher)
	rep, err := lint.Check(scopes, l.Workflow)
	scopes.Close()
	if err == nil && rep.HasErrors() {
		return nil, &LintError{Findings: rep.Only(lint.Error)}
	}
	given := project.Given{Input: l.Input, ClaudeEnv: d.cfg.ClaudeEnv}
	given.Budget = l.Budget
	if l.Model != "" {
		given.Model = &l.Model
	}
	opts, budget := d.p.NewOptions(given)
	opts.SkipPermissions = opts.SkipPermissions && d.cfg.SkipPermissions
	if !opts.SkipPermissions && opts.PermissionMode == "" {
		opts.PermissionMode = orchestrator.DefaultPermissionMode
	}
	opts.Debug = true // the API serves the transcript and its report
	if d.cfg.FindClaude != nil {
		if _, err := d.cfg.FindClaude(opts.ClaudePath); err != nil {
			return nil, errorf(ErrUnavailable, "%v; no run was created: install claude where the daemon finds it, or name it in .raymond/config.toml (claude = PATH), and restart the daemon", err)
		}
	}
	cwd, env := d.fromManifest(l.Workflow)
	opts.Env = env
	mode, merge := d.p.Workspace(project.Settings{})
	r, err := orchestrator.Create(d.store, orchestrator.NewRun{
		Workflow: l.Workflow, Options: opts, BudgetUSD: budget, BudgetGiven: l.Budget != nil,
		Cwd: cwd, TaskFolderPattern: d.p.TaskPattern(),
		OnAsk: orchestrator.AskPrompt, Fetcher: d.cfg.Fetcher,
		Workspace: mode, Merge: merge, Workspaces: d.cfg.Workspaces,
	})
	if _, ok := errors.AsType[*workspace.UsageError](err); ok {
		// No git, no repository, uncommitted changes: the checkout's to fix.
		return nil, &Error{Kind: ErrConflict, Msg: err.Error() + "; no run was created"}
	}
	if err != nil {
		return nil, err
	}
	d.index.put(r)
	d.index.note.Notify()
	if err := d.drive(r.WorkflowID, nil); err != nil {
		return r, err
	}
	return r, nil
}

// fromManifest reads what a workflow's manifest says of the runs a daemon
// starts: where their agents work (working_directory, relative to the
// project folder; else the project folder) and the variables their steps
// get (environment).
func (d *Daemon) fromManifest(path string) (dir string, env map[string]string) {
	dir = d.p.Dir
	scopes := workflow.NewScopes(nil)
	defer scopes.Close()
	scope, _, err := scopes.Start(path)
	if err != nil {
		return dir, nil
	}
	m := scope.Manifest()
	if m == nil {
		return dir, nil
	}
	if wd := m.WorkingDirectory; wd != "" {
		if filepath.IsAbs(wd) {
			dir = wd
		} else {
			dir = filepath.Join(d.p.Dir, wd)
		}
	}
	return dir, m.Environment
}

// Stopping says whether Shutdown has begun: the daemon parks its runs and
// starts no new one.
func (d *Daemon) Stopping() bool { return d.isClosing() }

func (d *Daemon) isClosing() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.closing
}

// drive starts driving run id in its own goroutine; update is applied to
// the run first, as raymond resume's flags are.
func (d *Daemon) drive(id string, update func(*state.Run) error) error {
	d.mu.Lock()
	if d.closing {
		d.mu.Unlock()
		return &Error{Kind: ErrClosing, Msg: "the daemon is stopping"}
	}
	if _, ok := d.runs[id]; ok {
		d.mu.Unlock()
		return errorf(ErrConflict, "run %s is already being driven", id)
	}
	rd := &driven{id: id, quiesce: make(chan struct{}), asker: newAsker(), done: make(chan struct{}),
		stream: newStream(id, filepath.Join(project.DebugDir(d.p.Dir), id))}
	d.runs[id] = rd
	d.launched++
	d.wg.Add(1)
	d.mu.Unlock()
	// Driven again: a pause recorded for an earlier drive is over.
	if err := d.pausing.remove(id); err != nil {
		d.log.Warn("cannot forget an earlier pause of the run", "run", id, "err", err)
	}

	drv := &orchestrator.Driver{
		Store:     d.store,
		Runner:    d.gate.Runner(d.cfg.Runner),
		Scripts:   d.cfg.Scripts,
		DebugDir:  project.DebugDir(d.p.Dir),
		Clock:     d.clock,
		Quiesce:   rd.quiesce,
		Log:       d.log,
		Sinks:     []orchestrator.Sink{rd.stream},
		OnAsk:     orchestrator.AskPrompt,
		Asker:     rd.asker,
		Fetcher:   d.cfg.Fetcher,
		Heartbeat: d.cfg.Heartbeat,
		// Runs in the worktree mode do their git work through it.
		Workspaces: d.cfg.Workspaces,
	}
	started := make(chan error, 1)
	unstop := d.gate.stopOn(id, rd.quiesce)
	ctx, kill := context.WithCancel(d.ctx)
	rd.kill = kill
	go func() {
		defer d.wg.Done()
		defer close(rd.done)
		defer unstop()
		defer kill()
		first := true
		r, err := drv.Drive(ctx, id, func(r *state.Run) error {
			if r.Options.OnAsk == orchestrator.AskReject {
				drv.OnAsk = orchestrator.AskReject
			}
			if r.Options.SkipPermissions && !d.cfg.SkipPermissions {
				d.log.Warn("run asked for --dangerously-skip-permissions; the daemon's config does not allow it, so its steps run without",
					"run", id)
				r.Options.SkipPermissions = false
				if r.Options.PermissionMode == "" {
					r.Options.PermissionMode = orchestrator.DefaultPermissionMode
				}
			}
			if update != nil {
				if err := update(r); err != nil {
					return err
				}
			}
			if err := d.runners(drv, r); err != nil {
				return err
			}
			if d.cfg.Sinks != nil {
				drv.Sinks = append(drv.Sinks, d.cfg.Sinks(r)...)
			}
			// A state file edited by hand, or written by another raymond,
			// may hold an option claude refuses; raymond resume checks
			// the same before any step.
			var oe *project.OptionError
			if err := project.CheckOptions(r.Options); errors.As(err, &oe) {
				return errorf(ErrConflict, "run %s is stored with %v; the daemon does not drive it so: resume it once from the command line with another value (raymond resume %s %s VALUE)",
					id, err, id, oe.Flag)
			}
			first = false
			started <- nil
			return nil
		})
		rd.stream.close()
		// Answers given while the drive ended are not lost: they go
		// into the state file, as raymond answer puts them, for the next
		// drive, and their givers hear whether that worked.
		for _, a := range rd.asker.close() {
			err := d.record(id, a.AskID, a.Text, d.clock.Now())
			if err != nil {
				d.log.Error("an answer given as the run stopped is lost", "run", id, "ask", a.AskID, "err", err)
			}
			if a.Saved != nil {
				a.Saved <- err
			}
		}
		d.health.drive(id, err)
		// The pause was for this drive, which has ended; a daemon that
		// stops keeps it, for its next start not to resume the run.
		if err == nil && !d.isClosing() {
			if err := d.pausing.remove(id); err != nil {
				d.log.Warn("cannot forget the run's pause", "run", id, "err", err)
			}
		}
		d.mu.Lock()
		cancelled := rd.cancelled
		d.mu.Unlock()
		if cancelled {
			if err := d.markCancelled(id); err != nil {
				d.log.Error("cannot save the run cancelled", "run", id, "err", err)
			}
		}
		d.mu.Lock()
		delete(d.runs, id)
		d.mu.Unlock()
		d.index.touch(id)
		if first {
			// Refused before anything ran: said once the run is no
			// longer listed as driven, so that the caller's next request
			// (a resume) does not find it "already running".
			started <- err
		}
		switch {
		case err != nil:
			d.log.Error("run stopped", "run", id, "err", err)
		case r != nil:
			d.log.Info("run ended a drive", "run", id, "status", r.Status, "cost_usd", r.TotalCostUSD)
		}
	}()
	return <-started
}

// Pause stops run id at its next step boundary: steps in flight finish,
// no new one starts, and the run is saved paused.
func (d *Daemon) Pause(id string) error {
	d.mu.Lock()
	rd, ok := d.runs[id]
	d.mu.Unlock()
	if ok {
		// Durable before it is acknowledged: a stop or a crash before the
		// steps in flight end must not undo it.
		if err := d.pausing.add(id); err != nil {
			d.health.failed("record a pause", err)
			return fmt.Errorf("run %s was not paused: the pause cannot be recorded: %w", id, err)
		}
		rd.pause()
		return nil
	}
	return d.notDriven(id, "pause")
}

// notDriven explains why run id, which the daemon does not drive, cannot
// be paused (or answered) here.
func (d *Daemon) notDriven(id, what string) error {
	r, err := d.Detail(id)
	if err != nil {
		return err
	}
	if r.DrivenBy != nil {
		return errorf(ErrConflict, "run %s is driven by another process (pid %d), not by this daemon: %s it there", id, *r.DrivenBy, what)
	}
	return errorf(ErrConflict, "run %s is not running (status %s): there is nothing to %s", id, r.Status, what)
}

// Resume drives run id again (a paused, interrupted, asking, failed or
// budget-exceeded run), with a new budget in USD when budget is not nil.
func (d *Daemon) Resume(id string, budget *float64) error {
	r, err := d.Detail(id)
	if err != nil {
		return err
	}
	d.mu.Lock()
	_, driving := d.runs[id]
	d.mu.Unlock()
	switch {
	case driving:
		return errorf(ErrConflict, "run %s is already running in this daemon", id)
	case r.DrivenBy != nil:
		return errorf(ErrConflict, "run %s is driven by another process (pid %d)", id, *r.DrivenBy)
	case r.Status == state.StatusCompleted:
		return errorf(ErrConflict, "run %s already completed: there is nothing to resume", id)
	case r.Workspace.Closed():
		return errorf(ErrConflict, "%s", orchestrator.DraftClosedError(id, r.Workspace).Error())
	}
	if budget != nil {
		if err := project.CheckBudget(*budget); err != nil {
			return &project.OptionError{Flag: "budget", Value: fmt.Sprint(*budget), Err: err}
		}
	}
	limit := r.BudgetUSD
	if budget != nil {
		limit = *budget
	}
	if r.Status == state.StatusBudgetExceeded && limit > 0 && limit <= r.TotalCostUSD {
		return errorf(ErrConflict, "run %s has cost $%.4f and its budget is $%.4f: give a budget above $%.4f to resume it",
			id, r.TotalCostUSD, limit, r.TotalCostUSD)
	}
	return d.drive(id, func(r *state.Run) error {
		if budget != nil {
			r.BudgetUSD = *budget
		}
		return nil
	})
}

// Delete removes a run that has ended (completed, failed, budget exceeded),
// with its transcript and task folders.
func (d *Daemon) Delete(id string) error {
	r, err := d.Detail(id)
	if err != nil {
		return err
	}
	d.mu.Lock()
	_, driving := d.runs[id]
	d.mu.Unlock()
	if driving || !project.Ended(r.Status) {
		// A paused run cannot end by being paused again: say how such a
		// run goes away (the CLI's rm takes runs nobody drives).
		var next string
		switch {
		case driving:
			next = fmt.Sprintf("let it finish, or pause it (POST /api/v1/runs/%s/pause) and remove it with 'raymond rm %s'", id, id)
		case r.DrivenBy != nil:
			next = fmt.Sprintf("process %d drives it: let it finish, or stop it there and remove it with 'raymond rm %s'", *r.DrivenBy, id)
		default:
			next = fmt.Sprintf("resume it (POST /api/v1/runs/%s/resume) until it ends, or remove it with 'raymond rm %s'", id, id)
		}
		return errorf(ErrConflict, "run %s has not ended (status %s): only completed, failed or budget_exceeded runs are deleted here; %s", id, r.Status, next)
	}
	if r.DrivenBy != nil {
		return errorf(ErrConflict, "run %s is driven by another process (pid %d): stop it there first", id, *r.DrivenBy)
	}
	if err := project.RemoveDraft(d.ctx, d.p, r.Run); err != nil {
		return draftError(err)
	}
	if err := project.RemoveRun(d.p, r.Run); err != nil {
		var le *state.LockedError
		if errors.As(err, &le) {
			return errorf(ErrConflict, "%s", le.Error())
		}
		return err
	}
	d.index.touch(id)
	return nil
}

// Answer answers ask askID of run id. An ask past its deadline, answered
// already, or no longer pending is ErrConflict; an unknown one ErrNotFound.
// A run nobody drives gets the answer recorded and is driven again (by the
// next start, when the daemon is stopping).
func (d *Daemon) Answer(id, askID, text string) error {
	r, err := d.Detail(id)
	if err != nil {
		return err
	}
	var k *state.Ask
	for _, a := range r.Agents {
		if a.Ask != nil && a.Ask.ID == askID {
			k = a.Ask
		}
	}
	if k == nil {
		return errorf(ErrNotFound, "run %s has no ask %s: GET /api/v1/asks lists the pending ones", id, askID)
	}
	now := d.clock.Now()
	switch {
	case k.Answer != nil:
		return errorf(ErrConflict, "ask %s of run %s was answered already", askID, id)
	case k.Expired || k.Deadline != nil && !now.Before(*k.Deadline):
		return errorf(ErrConflict, "ask %s of run %s expired at %s; it is no longer waiting for an answer", askID, id, k.Deadline.Format(time.RFC3339))
	}
	d.mu.Lock()
	rd, driving := d.runs[id]
	d.mu.Unlock()
	if driving {
		saved := make(chan error, 1)
		switch err := rd.asker.answer(askID, text, saved); {
		case err == nil:
			// Acknowledged once it is on disk, not when the run takes it.
			if err := d.waitSaved(rd, saved); err != nil {
				return fmt.Errorf("the answer to ask %s of run %s cannot be saved: %w", askID, id, err)
			}
			return nil
		case errors.Is(err, errAnswered):
			return errorf(ErrConflict, "ask %s of run %s was answered already", askID, id)
		case errors.Is(err, errBusy):
			return errorf(ErrConflict, "run %s has not yet taken the answers given before: try again in a moment", id)
		}
		// The drive has just ended: record the answer as for a run
		// nobody drives.
		<-rd.done
		if r, err = d.Detail(id); err != nil {
			return err
		}
	}
	if r.DrivenBy != nil {
		return errorf(ErrConflict, "run %s is driven by another process (pid %d): answer it there", id, *r.DrivenBy)
	}
	if err := d.record(id, askID, text, now); err != nil {
		return err
	}
	if err := d.drive(id, nil); err != nil && !errors.Is(err, ErrClosing) {
		return err
	}
	// A stopping daemon drives nothing new, but the answer is in the run's
	// state: the next start drives the run on with it. Saying "stopping"
	// here would have the person answer again, and be refused.
	return nil
}

// record writes an answer into a run nobody drives, holding its lock.
func (d *Daemon) record(id, askID, text string, now time.Time) error {
	lock, err := d.store.Lock(id)
	var le *state.LockedError
	if errors.As(err, &le) {
		return errorf(ErrConflict, "%s", le.Error())
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	r, err := d.store.Read(id)
	if err != nil {
		return err
	}
	if _, err := project.RecordAnswer(r, askID, text, now); err != nil {
		return errorf(ErrConflict, "%s", err.Error())
	}
	return d.store.Write(r)
}

// Subscribe follows the events of run id after lastID (a Last-Event-ID, ""
// for all). For a run the daemon does not drive the subscription holds only
// the replay, and its C is nil.
func (d *Daemon) Subscribe(id, lastID string) (*Subscription, error) {
	d.mu.Lock()
	rd, driving := d.runs[id]
	d.mu.Unlock()
	if driving {
		return rd.stream.subscribe(lastID)
	}
	if _, err := d.Detail(id); err != nil {
		return nil, err
	}
	after, err := parseLastID(lastID)
	if err != nil {
		return nil, err
	}
	events, err := ReadEvents(filepath.Join(project.DebugDir(d.p.Dir), id), after, 0)
	if err != nil {
		return nil, err
	}
	return &Subscription{Replay: events}, nil
}

// Driving says whether the daemon drives run id now.
func (d *Daemon) Driving(id string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.runs[id]
	return ok
}

// Recovered says what Recover did.
type Recovered struct {
	// Resumed are the runs driven again: interrupted, asking, or parked by
	// the daemon's own last stop.
	Resumed []string
	// Paused are the runs left paused on purpose (a signal, a budget): they
	// wait for a resume.
	Paused []string
	// Failed are the runs that could not be driven again, with why.
	Failed map[string]string
}

// Recover drives again every run left interrupted (whoever drove it),
// every asking run nobody drives (its asks open again with their deadlines)
// and every run the daemon's own last stop parked; runs paused on purpose
// are only listed, and so are the runs whose pause the last daemon accepted
// but did not see through (it stopped or died first): those that still read
// running are written paused.
func (d *Daemon) Recover() Recovered {
	parked := d.readParked()
	paused, err := d.pausing.take()
	if err != nil {
		d.log.Warn("cannot clear the pauses recorded", "err", err)
	}
	var out Recovered
	for _, l := range d.Runs() {
		if l.DrivenBy != nil || l.Draft != "" && l.Draft != state.DraftOpen {
			continue // driven elsewhere, or published or discarded
		}
		if paused[l.RunID] && !project.Ended(l.Status) {
			if err := d.settlePaused(l.RunID); err != nil {
				d.log.Warn("cannot write a paused run paused", "run", l.RunID, "err", err)
			}
			d.index.touch(l.RunID)
			out.Paused = append(out.Paused, l.RunID)
			continue
		}
		resume := l.Interrupted || l.Status == state.StatusAsking || l.Status == state.StatusCreated ||
			l.Status == state.StatusPaused && parked[l.RunID]
		if !resume {
			if l.Status == state.StatusPaused || l.Status == state.StatusBudgetExceeded {
				out.Paused = append(out.Paused, l.RunID)
			}
			continue
		}
		if err := d.drive(l.RunID, nil); err != nil {
			if out.Failed == nil {
				out.Failed = make(map[string]string)
			}
			out.Failed[l.RunID] = err.Error()
			continue
		}
		out.Resumed = append(out.Resumed, l.RunID)
	}
	_ = os.Remove(filepath.Join(d.dir, ParkedFile))
	return out
}

// readParked reads the runs the daemon's last stop paused.
func (d *Daemon) readParked() map[string]bool {
	var ids []string
	data, err := os.ReadFile(filepath.Join(d.dir, ParkedFile))
	if err == nil {
		_ = json.Unmarshal(data, &ids)
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out
}

// Shutdown stops the daemon's runs: each pauses at its next step boundary
// (the steps in flight finish), and the runs it paused are written down so
// the next start resumes them. When ctx ends first, the steps still in
// flight are killed (they stay pending and run again on resume). It returns
// once every drive has ended.
func (d *Daemon) Shutdown(ctx context.Context) {
	d.mu.Lock()
	d.closing = true
	ids := make([]string, 0, len(d.runs))
	for id, rd := range d.runs {
		if !d.pausing.has(id) { // paused at request: it waits for a resume
			ids = append(ids, id)
		}
		rd.pause()
	}
	d.mu.Unlock()
	slices.Sort(ids)
	if len(ids) > 0 {
		data, _ := json.Marshal(ids)
		if err := writeFileAtomic(filepath.Join(d.dir, ParkedFile), data); err != nil {
			d.health.failed("write the runs to resume at the next start", err)
			d.log.Error("cannot write the runs to resume at the next start", "err", err)
		}
	}
	done := make(chan struct{})
	go func() {
		d.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		d.cancel()
		<-done
	}
}

// Kill kills the steps in flight of every run at once (a second signal).
func (d *Daemon) Kill() { d.cancel() }

// Close releases the daemon's lock and removes serve.json. Call it after
// Shutdown.
func (d *Daemon) Close() error {
	d.cancel()
	d.wg.Wait()
	_ = os.Remove(filepath.Join(d.dir, InfoFile))
	return d.lock.Close()
}

// Active returns how many runs the daemon drives now.
func (d *Daemon) Active() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.runs)
}
