package orchestrator

import (
	"fmt"
	"math"
	"strings"
	"time"

	"raymond/claude"
	"raymond/parsing"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
	"raymond/workflow"
)

// Limits of the failure rules (protocol.md §6.2, §8).
const (
	// maxAttempts is how many outputs one step may produce before a
	// protocol error fails the agent: the first plus two reminders.
	maxAttempts = 3
	// maxRetries is how many times a transiently failed step is run again.
	maxRetries = 3
	// resetMargin is added to an announced usage-limit reset.
	resetMargin = 30 * time.Second
	// limitBackoff is the first wait on a usage limit whose reset time is
	// unknown; it doubles on each further such limit, up to maxLimitBackoff.
	limitBackoff    = 5 * time.Minute
	maxLimitBackoff = 2 * time.Hour
)

// retryDelays are the back-off before each retry of a transient failure.
var retryDelays = [maxRetries]time.Duration{5 * time.Second, 15 * time.Second, 45 * time.Second}

// newSessionID mints session ids; tests replace it.
var newSessionID = claude.NewSessionID

// machine is the run's state plus what the loop keeps in memory only. Its
// methods change the run and return what the loop must do next; they do no
// I/O, so tests drive them with tables of events.
type machine struct {
	run *state.Run
	// dirty collects the ids of agents changed since the last save.
	dirty map[string]bool
	// notBefore holds agents whose retry waits for a back-off.
	notBefore map[string]time.Time
	// running counts the steps in flight, per agent.
	running map[string]bool
	// next is the index in run.Agents where the search for a ready agent
	// starts: just after the agent started last, so that every ready
	// agent gets its turn when there are fewer slots than ready agents.
	next int
	// limitStreak counts consecutive usage limits without a known reset.
	limitStreak int
	// lastCost is the cost of the step applied last.
	lastCost float64
	// scope is the run's workflow, opened once for the whole run.
	scope *workflow.Scope
}

func newMachine(r *state.Run) *machine {
	if r.SessionCosts == nil {
		r.SessionCosts = map[string]float64{}
	}
	return &machine{run: r, dirty: map[string]bool{}, notBefore: map[string]time.Time{}, running: map[string]bool{}}
}

// stepDone is the report of a finished step, the one event that changes the
// run.
type stepDone struct {
	agent string
	// seq is the step's transcript number; name its transcript base name.
	seq  int
	name string
	// res is the runner's result; startErr the error when it could not
	// start at all.
	res      *claude.Result
	startErr error
	// tr and decideErr are what the output asks for (Success only).
	tr        parsing.Transition
	decideErr error
	// policy is the state's policy, for a reminder.
	policy workflow.Policy
	// cwds are the resolved working directories of the transition: for
	// reset/fork (index 0 the tag, then one per fork), "" when unchanged.
	cwds []string
	// log is the step's transcript, closed by the loop with its meta.
	log *transcript.StepLog
	// started is when the step started.
	started time.Time
	// req is the request the step ran with.
	req step.Request
}

// effect is what the loop does after an event: report something.
type effect struct {
	kind  effectKind
	agent string
	// event is the transcript event; transition the transitions.log entry.
	event      transcript.Event
	transition *transcript.Transition
	// line is the progress line, without the agent prefix.
	line string
	// quiet marks lines shown even with --quiet.
	quiet bool
	// err is the cause of a stop, when there is one.
	err error
}

type effectKind int

const (
	effectNote effectKind = iota + 1
	// effectStop stops the run: no step can run (claude unusable).
	effectStop
)

// note adds an effect reporting ev with a progress line.
func note(agent string, ev transcript.Event, line string, important bool) effect {
	ev.Agent = agent
	return effect{kind: effectNote, agent: agent, event: ev, line: line, quiet: important}
}

// say adds an effect that only shows a line: the step_ended event of the
// step already tells the transcript what happened.
func say(agent, line string) effect {
	return effect{kind: effectNote, agent: agent, line: line, quiet: true}
}

func (m *machine) touch(id string) { m.dirty[id] = true }

// active reports whether some agent has not ended.
func (m *machine) active() bool {
	for i := range m.run.Agents {
		if !m.run.Agents[i].Status.Ended() {
			return true
		}
	}
	return false
}

// finished sets the run's final status when every agent has ended, and
// reports whether it did.
func (m *machine) finished() bool {
	if m.active() {
		return false
	}
	r := m.run
	r.Status = state.StatusCompleted
	for i := range r.Agents {
		if r.Agents[i].Status == state.AgentFailed {
			r.Status = state.StatusFailed
		}
	}
	if main := r.Agent(MainAgent); main != nil && r.Status == state.StatusCompleted {
		r.Result = main.Result
	}
	r.Wait = nil
	return true
}

// cost books the cost of a finished step in the ledger and returns it.
func (m *machine) cost(s *state.Step, res *claude.Result) float64 {
	m.lastCost = 0
	if res == nil || !res.HasResult {
		return 0
	}
	prev, known := 0.0, false
	if s.Mode != state.SessionNew && s.ResumeSession != "" {
		prev, known = m.run.SessionCosts[s.ResumeSession]
	}
	c := claude.StepCost(res, prev, known)
	m.lastCost = c
	// Rounded to a nano-dollar so that sums of decimal costs read as
	// people expect (0.0123, not 0.012299999999999998).
	m.run.TotalCostUSD = math.Round((m.run.TotalCostUSD+c)*1e9) / 1e9
	if res.SessionID != "" {
		m.run.SessionCosts[res.SessionID] = res.TotalCostUSD
	}
	return c
}

// agentPrefix returns the short form of a state name used in fork ids:
// lowercase letters and digits of its stem, at most 16 of them.
func agentPrefix(stateName string) string {
	stem := strings.TrimSuffix(stateName, ".md")
	var b strings.Builder
	for _, c := range strings.ToLower(stem) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') {
			b.WriteRune(c)
			if b.Len() == 16 {
				break
			}
		}
	}
	if b.Len() == 0 {
		return "agent"
	}
	return b.String()
}

// money formats a cost for people.
func money(usd float64) string { return fmt.Sprintf("$%.4f", usd) }

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }
