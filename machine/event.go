package machine

import (
	"time"

	"raymond/parsing"
	"raymond/state"
	"raymond/step"
)

// Event is something that happened to the run, for [Machine.Apply].
type Event interface{ event() }

// Begin starts driving the run: steps that were in flight when the last
// driver stopped become ready again, failed agents with a step left are
// retried, and the run is running.
type Begin struct {
	Now time.Time
	// PID is the process that drives the run from now on.
	PID int
	// OnAsk is who answers asks in this drive (protocol §15.3): AskPause
	// (also for ""), AskPrompt or AskReject. Auto is decided by the
	// caller, which knows whether a person sits at a terminal.
	OnAsk string
}

// The modes of [Begin.OnAsk].
const (
	AskPause  = "pause"
	AskPrompt = "prompt"
	AskReject = "reject"
)

// Tick asks what happens now: it is sent after every batch of events, and
// when a [Wake] time comes. The machine starts what may start (as
// [Prepare] effects), shows waits, and settles the run when nothing is
// left to do.
type Tick struct {
	Now time.Time
}

// Prepared answers the [Prepare] effects of one [Tick] together: for each
// agent, its pending step's state was loaded (or could not be) and its
// prompt rendered. Answering them together lets the machine save once for
// all the steps that start.
type Prepared struct {
	Now   time.Time
	Steps []PreparedStep
}

// PreparedStep is one answer of [Prepared].
type PreparedStep struct {
	Agent string
	// Err is why the state could not be loaded; the agent fails with it.
	Err error
	// SessionID is a fresh session id, used when the step starts a new
	// session or branches one.
	SessionID string
	// Model and Effort are the state's own (frontmatter, else its
	// workflow's manifest); empty for none.
	Model, Effort string
	// Fallbacks are the models after Model in the state's list, in order.
	Fallbacks []string
	// MCPConfig is the file of the state's MCP servers, checked, and
	// MCPServers their names; empty for none.
	MCPConfig  string
	MCPServers []string
	// StepTimeout is the state's own step_timeout; nil for none.
	StepTimeout *time.Duration
	// Timeout is the state's own idle timeout; nil for none.
	Timeout *time.Duration
	// AllowedTools, DisallowedTools and PermissionMode are the state's
	// own tool limits; none for none.
	AllowedTools, DisallowedTools []string
	PermissionMode                string
	// MaxTurns, LoopWarn and LoopStop are the state's own limits (its
	// frontmatter); nil for the run's.
	MaxTurns, LoopWarn, LoopStop *int
	// NoCycleCheck says the state opted out of the cycle check.
	NoCycleCheck bool
	// Script says the state is a script: it has no prompt, model or
	// session of its own.
	Script bool
	// MaxVisits is the state's max_visits, 0 for none; OnMaxVisits its
	// on_max_visits as a tag (goto, reset or result), nil for none.
	MaxVisits   int
	OnMaxVisits *parsing.Tag
	// Warnings are the state's warnings (unknown frontmatter keys…); each
	// is published once per run.
	Warnings []string
	// Prompt is the state's prompt after templates (with [Vars]); a
	// reminder step sends its reminder instead.
	Prompt string
	// OnConflict is the state's on_conflict (frontmatter, else the
	// manifest's), resolved to a file name: where the agent goes instead
	// when merges into its workspace conflicted; "" for none.
	OnConflict string
}

// StepEnded reports a step's end: how its runner says it ended and, for a
// step that succeeded, what its final answer decided.
type StepEnded struct {
	Agent string
	Seq   int
	Name  string
	Now   time.Time
	// Result is how the step ended.
	Result step.Result
	// Transition is the answer's transition, when DecideErr is nil.
	Transition parsing.Transition
	// DecideErr is why the answer was refused (no tag, a tag the policy
	// does not allow, a missing target, a bad cd).
	DecideErr error
	// Restricted says the state has allowed_transitions, so a refused
	// answer gets Reminder back in the same session; Accepted lists what
	// the state accepts, for the failure message.
	Restricted bool
	Reminder   string
	Accepted   []string
	// Cwds are the resolved working directories of the tag ([0]) and of
	// each fork ([1:]); "" keeps the agent's.
	Cwds []string
	// Script says the step ran a script state: it cost nothing, and it
	// leaves the agent's session as it was (protocol §11.4).
	Script bool
	// Fatal says DecideErr fails the agent at once, without a reminder: a
	// cross-workflow target that names something that cannot be used
	// (protocol §14.3).
	Fatal bool
	// Checkpoint is the commit the step's changes became in its agent's
	// worktree; nil when it changed nothing or the run has no worktrees.
	Checkpoint *state.Checkpoint
}

// Answered gives the answer a person gave to a pending ask. An answer to
// an ask that is no longer pending, or past its deadline, is refused with
// a warning.
type Answered struct {
	Now    time.Time
	AskID  string
	Answer string
}

// NoAnswers says nobody is left to answer asks in this drive (the
// terminal's input ended): once nothing else can progress, the run is
// saved as asking, as in pause mode.
type NoAnswers struct{}

// Salvaged reports how a step ended that was in flight when the last
// driver died: its output showed its end, which was never applied. The
// machine books what it cost, so the run's cost and budget count it; the
// step itself runs again (steps are at least once).
type Salvaged struct {
	Agent  string
	Now    time.Time
	Result step.Result
}

// Launched says the process of an agent's step (its Seq-th) has started:
// what identifies it is saved with the step, so that the driver after one
// that died finds it and adopts it (see step.Adopter) rather than pay for
// the step again.
type Launched struct {
	Agent   string
	Seq     int
	Process state.Process
}

// Adopted says a step that was in flight when the last driver stopped is
// adopted, not run again: its process still runs (Running), or it ended
// and its output holds its end. It comes after [Begin]. The agent stays
// running and a [Follow] effect asks for the step to be followed; its end
// comes back as a [StepEnded], applied as for a step this driver started.
type Adopted struct {
	Agent   string
	Now     time.Time
	Running bool
}

// Quiesce asks the run to stop at its next step boundary: no new step
// starts, the steps in flight end and are applied, then the run pauses.
type Quiesce struct{}

// Cancel says the steps in flight are being killed; the run pauses as
// soon as they have ended.
type Cancel struct{}

// SaveFailed says the last [Save] could not be written. The run stops; the
// steps held until that save (Held) do not start.
type SaveFailed struct {
	Err  error
	Held []string
}

func (Begin) event()      {}
func (Tick) event()       {}
func (Prepared) event()   {}
func (StepEnded) event()  {}
func (Salvaged) event()   {}
func (Launched) event()   {}
func (Adopted) event()    {}
func (Quiesce) event()    {}
func (Cancel) event()     {}
func (SaveFailed) event() {}
func (Answered) event()   {}
func (NoAnswers) event()  {}
