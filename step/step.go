package step

import (
	"context"
	"fmt"
	"path"
	"strings"

	"raymond/claude"
	"raymond/state"
)

// Request is one step to run, decided in full by the orchestrator and already
// persisted in the run's state file.
type Request struct {
	// RunID is the run the step belongs to.
	RunID string
	// Agent is the id of the agent that runs the step.
	Agent string
	// Seq numbers the agent's steps from 1, reminders and retries included;
	// it is the NNN of the transcript files.
	Seq int
	// Step is the pending step as stored in the state file: state, session
	// mode, session to resume or branch from, pre-minted session id, cwd,
	// model, effort, attempt, reminder.
	Step state.Step
	// Prompt is the text sent to the model: the state's prompt after
	// templates, or the reminder when Step.Reminder is set.
	Prompt string
	// Vars are the template values the prompt was rendered with (input,
	// run_id, agent_id, state, fork variables); a scripted runner renders its
	// replies with them.
	Vars map[string]string
	// Options are the run's options (claude path, permissions, timeout).
	Options state.Options
	// MaxBudgetUSD caps what this step may spend; 0 means no cap.
	MaxBudgetUSD float64
}

// Name is the transcript base name of the step, <agent>_<state stem>_<NNN>
// (protocol.md §10).
func (r Request) Name() string {
	return Name(r.Agent, r.Step.State, r.Seq)
}

// Name returns the transcript base name of an agent's seq-th step at state.
func Name(agent, stateName string, seq int) string {
	stem := strings.TrimSuffix(stateName, path.Ext(stateName))
	return fmt.Sprintf("%s_%s_%03d", agent, stem, seq)
}

// Runner runs one step to its end and reports how it ended. Every way a step
// can end (success, API error, crash, timeout, cancellation) is a Result with
// an Outcome; an error means the step could not be started at all (an
// executable that is missing, an invalid request) and is not retried.
//
// Run calls the handler's funcs as claude.Run does: OnEvent and OnLine in
// stream order, OnStderr possibly from another goroutine. Runners must be safe
// for concurrent use: the orchestrator runs many steps at once.
type Runner interface {
	Run(ctx context.Context, req Request, h claude.Handler) (*claude.Result, error)
}

// Describer is implemented by runners that can show the command line of a
// step, for the transcript's meta record.
type Describer interface {
	Argv(req Request) []string
}
