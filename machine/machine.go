package machine

import (
	"errors"
	"fmt"
	"math"
	"path"
	"strings"
	"time"

	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// MainAgent is the id of the agent a run starts with.
const MainAgent = "main"

const (
	// maxAttempts is how many answers a state may give in a row before a
	// refused one fails the agent: the first and two reminders.
	maxAttempts = 3
	// maxRetries is how often a transient failure is retried.
	maxRetries = 3
	// resetMargin is added to a usage limit's reset time.
	resetMargin = 30 * time.Second
	// limitBackoff is the first wait after a usage limit with no known
	// reset (or one already past); it doubles up to maxLimitBackoff.
	limitBackoff    = 5 * time.Minute
	maxLimitBackoff = 2 * time.Hour
	// maxStartBackoff is the longest wait before trying again a step that
	// could not start for want of descriptors or processes.
	maxStartBackoff = time.Minute
)

// retryDelays are the back-offs before the 1st, 2nd and 3rd retry.
var retryDelays = [maxRetries]time.Duration{5 * time.Second, 15 * time.Second, 45 * time.Second}

// RetryDelay is the back-off before the n-th retry of a transient failure
// (n from 1).
func RetryDelay(n int) time.Duration { return retryDelays[min(max(n, 1), maxRetries)-1] }

// ErrUnusable means the step runner cannot run steps at all until the user
// acts (claude missing, not logged in, no credit, root refused).
var ErrUnusable = errors.New("claude cannot run steps")

// Machine is one run's state machine. It owns the run it was made with:
// nothing else may change the run while the machine is in use. Its methods
// do no I/O.
type Machine struct {
	run *state.Run
	// index maps an agent id to its position in run.Agents.
	index map[string]int
	// live counts the agents that have not ended.
	live int
	// dirty are the agents changed since the last Save; costed the
	// sessions whose cost changed since then.
	dirty  map[string]bool
	costed []string
	// notBefore holds agents waiting for a retry back-off, or for a
	// usage limit of every model they may use to end (held).
	notBefore map[string]time.Time
	held      map[string]state.Wait
	// startFails counts, per agent, the steps in a row that could not
	// start for want of descriptors or processes (see startLater).
	startFails map[string]int
	// running are the agents whose step is being prepared or runs.
	running map[string]bool
	// reserved holds, with a budget, the --max-budget-usd of each paid
	// step being prepared or run: money no other step may be given.
	reserved map[string]float64
	// queue holds the ready agents in the order they became ready, from
	// head on; queued says which ids it holds. Entries whose agent is no
	// longer ready when they come up are skipped.
	queue  []string
	head   int
	queued map[string]bool
	// fresh are the agents added since the last transition enqueued them.
	fresh []string
	// limitStreak counts usage limits in a row without a known reset.
	limitStreak int
	// stopping: no new step starts (quiesce, cancel, a fatal error).
	stopping bool
	// err is why the run stopped on its own (claude unusable, a save
	// that failed); Drive returns it.
	err error
	// waitShown and nextTick pace the messages of a usage-limit wait.
	waitShown time.Time
	nextTick  time.Time
	// settled: Done was returned.
	settled bool
	// onAsk is who answers asks in this drive (Begin.OnAsk); noAnswers
	// says nobody is left to (NoAnswers).
	onAsk     string
	noAnswers bool
	// asking are the agents that wait for an answer.
	asking map[string]bool
}

// New returns the machine of r.
func New(r *state.Run) *Machine {
	if r.SessionCosts == nil {
		r.SessionCosts = map[string]float64{}
	}
	m := &Machine{run: r, dirty: map[string]bool{}, notBefore: map[string]time.Time{}, held: map[string]state.Wait{}, startFails: map[string]int{}, running: map[string]bool{}, reserved: map[string]float64{}, queued: map[string]bool{},
		asking: map[string]bool{}}
	m.reindex()
	return m
}

// Run is the run the machine drives.
func (m *Machine) Run() *state.Run { return m.run }

// Err is why the run stopped on its own, or nil.
func (m *Machine) Err() error { return m.err }

// Running is how many steps are being prepared or run.
func (m *Machine) Running() int { return len(m.running) }

// Apply applies ev to the run and returns what to do about it.
func (m *Machine) Apply(ev Event) []Effect {
	switch ev := ev.(type) {
	case Begin:
		return m.begin(ev)
	case Tick:
		return m.tick(ev.Now)
	case Prepared:
		return m.prepared(ev)
	case StepEnded:
		return m.stepEnded(ev)
	case Salvaged:
		return m.salvaged(ev)
	case Launched:
		return m.launched(ev)
	case Adopted:
		return m.adopted(ev)
	case Quiesce:
		return m.stop(nil, transcript.Event{Type: transcript.EventStopping})
	case Cancel:
		return m.stop(nil, transcript.Event{})
	case SaveFailed:
		return m.saveFailed(ev)
	case Answered:
		return m.answered(ev)
	case Merged:
		return m.merged(ev)
	case NoAnswers:
		m.noAnswers = true
		return nil
	}
	panic(fmt.Sprintf("machine: unknown event %T", ev))
}

// stop makes the run stop starting steps; err, when set, is why. The
// first stop publishes ev, when it has a type.
func (m *Machine) stop(err error, ev transcript.Event) []Effect {
	if err != nil && m.err == nil {
		m.err = err
	}
	var out []Effect
	if !m.stopping && ev.Type != "" {
		out = append(out, Emit{Event: ev})
	}
	m.stopping = true
	return out
}

// agent returns the agent with id, or nil.
func (m *Machine) agent(id string) *state.Agent {
	i, ok := m.index[id]
	if ok && i < len(m.run.Agents) && m.run.Agents[i].ID == id {
		return &m.run.Agents[i]
	}
	if !ok && len(m.index) == len(m.run.Agents) {
		return nil
	}
	m.reindex() // the run's agents were replaced or changed behind the machine's back
	if i, ok = m.index[id]; !ok {
		return nil
	}
	return &m.run.Agents[i]
}

// reindex rebuilds the index and the count of live agents.
func (m *Machine) reindex() {
	m.index = make(map[string]int, len(m.run.Agents))
	m.live = 0
	clear(m.asking)
	for i := range m.run.Agents {
		a := &m.run.Agents[i]
		m.index[a.ID] = i
		if !a.Status.Ended() {
			m.live++
		}
		if a.Status == state.AgentAsking && a.Ask.Pending() {
			m.asking[a.ID] = true
		}
	}
}

// add appends an agent to the run.
func (m *Machine) add(a state.Agent) {
	m.run.Agents = append(m.run.Agents, a)
	m.index[a.ID] = len(m.run.Agents) - 1
	if !a.Status.Ended() {
		m.live++
	}
	m.fresh = append(m.fresh, a.ID)
	m.touch(a.ID)
}

// ready makes an agent ready to run its pending step, after those that
// became ready before it.
func (m *Machine) ready(a *state.Agent) {
	a.Status = state.AgentReady
	m.enqueue(a.ID)
}

// enqueue puts an agent at the end of the ready queue, unless it is there.
func (m *Machine) enqueue(id string) {
	if m.queued[id] {
		return
	}
	m.queued[id] = true
	m.queue = append(m.queue, id)
}

// dequeue takes the first agent of the ready queue; false when it is empty.
func (m *Machine) dequeue() (string, bool) {
	if m.head == len(m.queue) {
		return "", false
	}
	id := m.queue[m.head]
	m.queue[m.head] = ""
	m.head++
	if m.head > 1024 && m.head*2 > len(m.queue) { // reclaim the taken half
		m.queue = append(m.queue[:0:0], m.queue[m.head:]...)
		m.head = 0
	}
	delete(m.queued, id)
	return id, true
}

// end marks an agent as ended with status s.
func (m *Machine) end(a *state.Agent, s state.AgentStatus) {
	if !a.Status.Ended() {
		m.live--
	}
	a.Status = s
}

func (m *Machine) touch(id string) { m.dirty[id] = true }

// active reports whether any agent has not ended.
func (m *Machine) active() bool { return m.live > 0 }

// save is the Save of what changed since the last one.
func (m *Machine) save() Save {
	ids := make([]string, 0, len(m.dirty))
	for id := range m.dirty {
		ids = append(ids, id)
	}
	clear(m.dirty)
	s := Save{Agents: ids, Sessions: m.costed}
	m.costed = nil
	return s
}

// finished sets the run's final status when every agent has ended: failed
// if one failed, else completed; main's result is the run's either way.
func (m *Machine) finished() bool {
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
	// main's result is the run's whatever its siblings did: a failed
	// worker must not hide it (the status says the run failed).
	if main := m.agent(MainAgent); main != nil {
		r.Result = main.Result
	}
	r.Wait, r.Holds = nil, nil
	return true
}

// book adds a step's cost to the run and remembers its session's total.
func (m *Machine) book(res step.Result) float64 {
	if !res.Billed {
		return 0
	}
	c := res.CostUSD
	m.run.TotalCostUSD = math.Round((m.run.TotalCostUSD+c)*1e9) / 1e9
	if res.SessionID != "" {
		m.run.SessionCosts[res.SessionID] = res.SessionCostUSD
		m.costed = append(m.costed, res.SessionID)
	}
	return c
}

// overBudget reports whether the run has spent its budget.
func overBudget(r *state.Run) bool {
	return r.BudgetUSD > 0 && r.TotalCostUSD >= r.BudgetUSD
}

// Vars are the template values of an agent's pending step (protocol §7):
// the fork variables, then run_id (and its seed-plan name workflow_id),
// agent_id, state, input, result (the same as input), task_folder and ask_id
// (after an ask), which no fork variable can replace (a fork that names
// one is refused; a run saved by an older raymond may still hold one).
func Vars(r *state.Run, a *state.Agent) map[string]string {
	s := a.Pending
	vars := make(map[string]string, len(s.Vars)+5)
	for k, v := range s.Vars {
		vars[k] = v
	}
	vars["run_id"], vars["workflow_id"] = r.WorkflowID, r.WorkflowID
	vars["agent_id"], vars["state"] = a.ID, s.State
	if s.Input != nil {
		// {{result}} is the returned payload (protocol §5.5), and, beyond
		// §7, any pending input: earlier versions of the original Raymond
		// named the pending value {{result}} only, and folders written for
		// them must run unchanged.
		vars["input"], vars["result"] = *s.Input, *s.Input
	}
	if a.TaskFolder != "" {
		vars["task_folder"] = a.TaskFolder
	}
	if s.AskID != "" {
		vars["ask_id"] = s.AskID
	}
	if r.Workspace.Worktree() {
		vars[MergeConflictsVar] = ConflictText(a.Workspace)
	}
	return vars
}

// agentPrefix is the short lowercase form of a state name used in the ids
// of forked agents (protocol §5.6): WORKER.md → worker.
func agentPrefix(stateName string) string {
	stem := strings.TrimSuffix(stateName, path.Ext(stateName))
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

func ptr[T any](v T) *T { return &v }

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
