package orchestrator

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"raymond/machine"
	"raymond/state"
	"raymond/step"
	"raymond/workflow"
)

// Defaults of the options cli.md gives defaults for; they live with the
// options in package state.
const (
	DefaultMaxParallel    = state.DefaultMaxParallel
	DefaultTimeout        = state.DefaultTimeout
	DefaultStepTimeout    = state.DefaultStepTimeout
	DefaultPermissionMode = state.DefaultPermissionMode
)

// NewRun is what raymond run and raymond start know about a run to create.
type NewRun struct {
	// Workflow is the folder or state file the run starts from.
	Workflow string
	// ID is the run id; "" generates one.
	ID string
	// Options are the run's options; zero fields take the defaults above.
	Options state.Options
	// BudgetUSD is the run's budget; 0 means unlimited.
	BudgetUSD float64
	// Cwd is the folder the agents work in (a fork's cd= is relative to
	// it); "" means the current folder of the process. Workflow tests that
	// run in parallel set it, as the current folder is process-wide.
	Cwd string
	// TaskFolderPattern is the absolute pattern of the run's task folders
	// (protocol §16); "" gives none.
	TaskFolderPattern string
	// ContinueSession is the user's Claude Code session main's first
	// markdown step branches from (--continue-session); "" for none.
	ContinueSession string
	// BudgetGiven says BudgetUSD was given for this run (--budget): the
	// workflow's own default_budget (protocol §17) does not replace it, as
	// it replaces one from the config.
	BudgetGiven bool
	// MaxTurnsGiven says Options.MaxTurns was given for this run
	// (--max-turns): the workflow's own max_turns does not replace it, as
	// it replaces one from the config.
	MaxTurnsGiven bool
	// OnAsk is the mode the run will be driven with (after auto is
	// decided): reject refuses a workflow that can ask (protocol §15.3).
	OnAsk string
	// Fetcher downloads workflows given by pinned URL; nil refuses them.
	Fetcher workflow.Fetcher
	// Workspace is where the agents work, from the config or the command
	// line: "shared", "worktree", or "" for the manifest's, else shared.
	// WorkspaceGiven says the command line gave it: the manifest's
	// workspace does not replace it. Merge and MergeGiven are the same
	// for the merge rule ("auto", "none").
	Workspace      string
	WorkspaceGiven bool
	Merge          string
	MergeGiven     bool
	// FromDirty carries the checkout's uncommitted changes into the
	// draft instead of refusing them (--workspace-from-dirty).
	FromDirty bool
	// Workspaces makes the draft of a run in the worktree mode.
	Workspaces Workspaces
}

// WorkflowError reports a workflow that cannot be started: no such folder or
// file, no entry state, a first state that does not load; or, for a run
// driven again, a workflow that can no longer be opened (moved, or a zip
// whose pin no longer matches). The command line maps it to exit status 2. Loaded says the workflow and its first state
// were found, and it is the state's file that is wrong.
type WorkflowError struct {
	Err    error
	Loaded bool
	// Manifest says the workflow's manifest refused the start: its
	// input.mode, its backend, or --on-ask reject on a workflow that asks.
	Manifest bool
}

func (e *WorkflowError) Error() string { return e.Err.Error() }
func (e *WorkflowError) Unwrap() error { return e.Err }

// Create checks the workflow of n and writes its run, status created, with
// main ready at the entry state. It does not drive the run.
func Create(store *state.Store, n NewRun) (*state.Run, error) {
	scopes := workflow.NewScopes(n.Fetcher)
	defer scopes.Close()
	scope, entry, err := scopes.Start(n.Workflow)
	if err != nil {
		return nil, &WorkflowError{Err: err}
	}
	if _, err := scope.Load(entry); err != nil {
		return nil, &WorkflowError{Err: err, Loaded: true}
	}
	budget, err := checkManifest(scope, &n)
	if err != nil {
		return nil, &WorkflowError{Err: err, Manifest: true}
	}
	id := n.ID
	if id == "" {
		id = state.NewID()
	} else if err := state.ValidID(id); err != nil {
		return nil, err
	}
	opts := withDefaults(n.Options)
	// Agents work where raymond was started, as claude itself would; the
	// project folder only says where .raymond/ is.
	cwd, err := filepath.Abs(n.Cwd)
	if n.Cwd == "" {
		cwd, err = os.Getwd()
	}
	if err != nil {
		return nil, fmt.Errorf("create run: %w", err)
	}
	main := state.Agent{
		ID:           MainAgent,
		CurrentState: entry,
		Cwd:          cwd,
		Stack:        []state.Frame{},
		Status:       state.AgentReady,
		Pending: &state.Step{
			Ref:   state.Ref{State: entry},
			Mode:  state.SessionNew,
			Input: opts.Input,
			Cwd:   cwd,
			Entry: true,
		},
	}
	if n.TaskFolderPattern != "" {
		main.TaskFolder = machine.TaskFolder(n.TaskFolderPattern, id, MainAgent)
	}
	if n.ContinueSession != "" {
		main.Pending.Mode, main.Pending.ResumeSession = state.SessionBranch, n.ContinueSession
	}
	if _, err := os.Stat(store.Path(id)); err == nil {
		return nil, fmt.Errorf("run %s: %w", id, fs.ErrExist) // before a draft is made for it
	}
	ws, err := makeDraft(n, scope.Manifest(), id, opts.ProjectDir, &main)
	if err != nil {
		return nil, err
	}
	r := &state.Run{
		WorkflowID:        id,
		ScopeDir:          scope.Dir(),
		EntryState:        entry,
		Status:            state.StatusCreated,
		Options:           opts,
		Agents:            []state.Agent{main},
		BudgetUSD:         budget,
		ScopeURL:          scope.URL(),
		TaskFolderPattern: n.TaskFolderPattern,
		ContinueSession:   n.ContinueSession,
		Workspace:         ws,
	}
	if err := store.Create(r); err != nil {
		return nil, err
	}
	return r, nil
}

// MainAgent is the id of a run's first agent.
const MainAgent = machine.MainAgent

// withDefaults fills the zero options that have defaults.
func withDefaults(o state.Options) state.Options {
	if o.MaxParallel <= 0 {
		o.MaxParallel = DefaultMaxParallel
	}
	if o.PermissionMode == "" && !o.SkipPermissions {
		o.PermissionMode = DefaultPermissionMode
	}
	return o
}

// Driver drives runs: it takes a run's lock, runs its steps until every agent
// has ended or the run pauses, and persists every transition.
type Driver struct {
	// Store holds the runs.
	Store *state.Store
	// Runner runs the steps (claude.Runner for real steps); required.
	Runner step.Runner
	// DebugDir is the folder of transcripts (.raymond/debug); each run
	// writes into DebugDir/<id> when its Options.Debug is set.
	DebugDir string
	// Progress receives the live progress lines (stderr); nil discards them.
	Progress io.Writer
	// Quiet limits progress to transitions, waits and errors.
	Quiet bool
	// Color allows colour and Unicode in progress lines.
	Color bool
	// Prefix is written before every progress line (raymond recover sets
	// it to the run id when it drives several runs at once).
	Prefix string
	// Clock is the time source for waits and back-off; nil is the real clock.
	Clock Clock
	// Quiesce, once closed, stops new steps from starting: steps in flight
	// finish, the run is persisted and Drive returns with status paused.
	// Canceling Drive's context instead kills the steps in flight.
	Quiesce <-chan struct{}
	// Log receives developer logs; nil discards them.
	Log *slog.Logger
	// Sinks also receive every event of the runs this driver drives, after
	// the transcript and the progress printer (see Sink).
	Sinks []Sink
	// OnAsk is who answers the asks of the runs this driver drives
	// (protocol §15.3): AskPause ("" too), AskPrompt or AskReject; the
	// caller decides what auto means. In prompt mode Asker puts the
	// questions.
	OnAsk string
	// Asker puts questions to a person in prompt mode; nil makes prompt
	// mode behave as pause mode.
	Asker Asker
	// Scripts runs the steps of script states (protocol §11); nil refuses
	// them: the agent that reaches one fails.
	Scripts step.Runner
	// Fetcher downloads the workflows of pinned URLs a run enters; nil
	// refuses them.
	Fetcher workflow.Fetcher
	// Workspaces does the git work of runs in the worktree mode; nil
	// fails their agents.
	Workspaces Workspaces
	// Heartbeat is how soon a step that runs long is said to be still
	// running, and the pace after: at 1, 2, 3, 4 and 5 times Heartbeat,
	// then every 5 times. 0 means a minute; negative, never.
	Heartbeat time.Duration
}

// The modes of Driver.OnAsk.
const (
	AskPause  = machine.AskPause
	AskPrompt = machine.AskPrompt
	AskReject = machine.AskReject
)

// Asker puts the asks of a run to a person (--on-ask prompt) and hands the
// answers back.
type Asker interface {
	// Open puts an ask to the person: it is called on the driver's loop
	// and must not block. Asks come oldest first; an ask opened again
	// (a new drive) has the same id.
	Open(agent string, k state.Ask)
	// Answers delivers the person's answers. It is closed when nobody is
	// left to answer (the terminal's input ended): the run then waits for
	// answers as in pause mode.
	Answers() <-chan Answer
}

// Answer is a person's answer to an ask.
type Answer struct {
	AskID string
	Text  string
	// Saved, when not nil, receives one value once the driver has applied
	// the answer: nil when it is on disk, else why it could not be saved.
	// It must have room for that value: the driver does not wait.
	Saved chan<- error
}

// ErrClaudeUnusable wraps the errors that stop a run because no step can run
// at all: claude is not installed, or it refuses the permission flags. The run
// is left paused and can be resumed once the cause is fixed.
var ErrClaudeUnusable = machine.ErrUnusable

// Drive drives run id until it completes, fails, exceeds its budget or
// pauses, and returns the run as it was last persisted. update, when not nil,
// is applied to the run after it is locked and read and before anything runs
// (raymond resume's flags). A run driven by another process is refused with a
// *state.LockedError. The returned error is about raymond itself (the store,
// the lock, ErrClaudeUnusable); a failed agent is not an error, it is a run
// with status failed.
func (d *Driver) Drive(ctx context.Context, id string, update func(*state.Run) error) (*state.Run, error) {
	return d.drive(ctx, id, update)
}

// debugDir returns the transcript folder of run id.
func (d *Driver) debugDir(id string) string {
	return filepath.Join(d.DebugDir, id)
}
