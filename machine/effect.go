package machine

import (
	"time"

	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// Effect is something the machine wants done.
type Effect interface{ effect() }

// Prepare asks for an agent's pending step to be prepared: load its state,
// mint a session id, render its prompt. The Prepare effects of one [Tick]
// are answered together by one [Prepared].
type Prepare struct {
	Agent string
	Step  state.Step
	// Vars are the template values of the step (see [Vars]).
	Vars map[string]string
}

// Start asks for a step to run. It always follows the [Save] that records
// the step as running: if that save fails, the step must not start (answer
// with [SaveFailed]), so a crash re-runs exactly the step the file names.
type Start struct {
	Request step.Request
}

// Follow asks for a step adopted from the last driver (see [Adopted]) to be
// followed to its end, as a started step is.
type Follow struct {
	Request step.Request
}

// Save asks for the run to be written: its header, the agents listed and
// the session costs listed, which are those changed since the last Save.
type Save struct {
	Agents   []string
	Sessions []string
}

// Emit publishes an event of the run to its sinks: the transcript, the
// progress lines (worded by raymond/report), anyone following the run.
// Transition, when set, is the transitions.log entry of a transition.
type Emit struct {
	Event      transcript.Event
	Transition *transcript.Transition
}

// StepClosed says a step's end has been applied: its record can be
// written with what it cost.
type StepClosed struct {
	Agent string
	Seq   int
	Name  string
	// Step is the pending step as it ran.
	Step state.Step
	// CostUSD is what the step cost; TotalCostUSD the run's cost after it.
	CostUSD, TotalCostUSD float64
}

// Wake asks for a [Tick] at At.
type Wake struct {
	At time.Time
}

// AskOpened says an agent waits for a person's answer to Ask: in prompt
// mode the driver puts the question to the person and answers with
// [Answered] (or [NoAnswers]). It comes when the agent asks, and again for
// every pending ask when a drive begins.
type AskOpened struct {
	Agent string
	Ask   state.Ask
}

// Done says the run has settled for this driver: its status is final for
// now (completed, failed, paused, budget_exceeded) and nothing runs.
type Done struct{}

func (Prepare) effect()    {}
func (Start) effect()      {}
func (Follow) effect()     {}
func (Save) effect()       {}
func (Emit) effect()       {}
func (StepClosed) effect() {}
func (Wake) effect()       {}
func (Done) effect()       {}
func (AskOpened) effect()  {}
