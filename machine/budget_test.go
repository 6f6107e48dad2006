package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/state"
)

// startRound ticks the machine and prepares every step it starts, as the
// driver does; it returns the --max-budget-usd of each step started.
func startRound(t *testing.T, m *Machine, now time.Time) map[string]float64 {
	t.Helper()
	var steps []PreparedStep
	for _, e := range m.Apply(Tick{Now: now}) {
		if p, ok := e.(Prepare); ok {
			steps = append(steps, PreparedStep{Agent: p.Agent, SessionID: "s-" + p.Agent})
		}
	}
	caps := map[string]float64{}
	if len(steps) == 0 {
		return caps
	}
	for _, e := range m.Apply(Prepared{Now: now, Steps: steps}) {
		if s, ok := e.(Start); ok {
			caps[s.Request.Agent] = s.Request.MaxBudgetUSD
		}
	}
	return caps
}

func sum(caps map[string]float64) float64 {
	var s float64
	for _, c := range caps {
		s += c
	}
	return s
}

// A run with a budget gives the steps that start together an equal share
// of what is left, not each all of it: $0.05, START spent $0.01 and forked
// three workers; START's next step and the workers share $0.04.
func TestForkedStepsShareTheBudget(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.BudgetUSD = 0.05
	m.apply(success(t, `<fork next="J.md" item="a">W.md</fork><fork next="J.md" item="b">W.md</fork><fork next="J.md" item="c">W.md</fork>`, 0.01), t0)
	caps := startRound(t, m, t0)
	require.Len(t, caps, 4)
	assert.LessOrEqual(t, sum(caps), 0.04+1e-12, "together at most what was left: %v", caps)
	for id, c := range caps {
		assert.InDelta(t, 0.01, c, 1e-9, "%s: an equal share", id)
	}
}

// Caps in flight are reservations: a step that is ready while the others
// hold all that is left waits, and the run does not end, until a step ends
// and gives back what it did not spend; then it starts with that.
func TestStepWaitsForReservedBudget(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.BudgetUSD = 0.05
	m.apply(success(t, `<fork next="J.md" item="a">W.md</fork><fork next="J.md" item="b">W.md</fork><fork next="J.md" item="c">W.md</fork>`, 0.01), t0)
	first := startRound(t, m, t0)
	require.Len(t, first, 4, "%v", first)

	a := success(t, `<goto>W.md</goto>`, 0.01)
	a.agent, a.name = "main_w1", "main_w1_W_001"
	m.apply(a, t0)
	assert.Empty(t, startRound(t, m, t0), "everything left is reserved: main_w1 waits (%v)", first)
	assert.Equal(t, state.StatusRunning, m.run.Status)
	assert.Equal(t, state.AgentReady, m.agent("main_w1").Status)

	b := success(t, `<result>done</result>`, 0.002)
	b.agent, b.name = "main_w2", "main_w2_W_001"
	m.apply(b, t0)
	caps := startRound(t, m, t0)
	assert.Equal(t, map[string]float64{"main_w1": 0.008}, caps, "main_w2 gave back $0.008")
	assert.LessOrEqual(t, sum(caps)+0.02, m.run.BudgetUSD-m.run.TotalCostUSD+1e-12)
}

// A run whose agents all ended but whose cost passed its budget is not
// reported completed: it ends budget_exceeded, its result kept.
func TestFinishedOverBudgetIsNotCompleted(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.BudgetUSD, m.run.TotalCostUSD = 0.05, 0.04
	m.apply(success(t, `<result>done</result>`, 0.02), t0)
	var kinds []string
	for _, e := range m.Apply(Tick{Now: t0}) {
		if e, ok := e.(Emit); ok {
			kinds = append(kinds, e.Event.Type)
		}
	}
	assert.Equal(t, state.StatusBudgetExceeded, m.run.Status)
	require.NotNil(t, m.run.Result)
	assert.Equal(t, "done", *m.run.Result)
	assert.Equal(t, "budget reached: $0.0600 spent of $0.0500", m.run.Error)
	assert.Contains(t, kinds, "budget_exceeded")

	// Resumed with a higher budget, it completes without running a step.
	m.run.BudgetUSD = 1
	again := New(m.run)
	again.Apply(Begin{Now: t0})
	for _, e := range again.Apply(Tick{Now: t0}) {
		_, prepare := e.(Prepare)
		assert.False(t, prepare, "no step runs")
	}
	assert.Equal(t, state.StatusCompleted, again.run.Status)

	// Exactly the budget is within it.
	m = oneAgent(state.SessionResume)
	m.run.BudgetUSD, m.run.TotalCostUSD = 0.05, 0.03
	m.apply(success(t, `<result>done</result>`, 0.02), t0)
	m.Apply(Tick{Now: t0})
	assert.Equal(t, state.StatusCompleted, m.run.Status)
}

// A step stopped at its share while the run is not over budget neither
// fails nor spends a retry: it is ready again and starts, with what is
// unreserved, once a step in flight ends.
func TestStepStoppedAtItsShareRunsAgain(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.BudgetUSD = 0.05
	m.apply(success(t, `<fork next="J.md" item="a">W.md</fork><fork next="J.md" item="b">W.md</fork><fork next="J.md" item="c">W.md</fork>`, 0.01), t0)
	require.Len(t, startRound(t, m, t0), 4)

	cost := 0.015
	out := m.apply(stepDone{agent: "main_w1", seq: 1, name: "main_w1_W_001", res: &claude.Result{Outcome: claude.Exhausted, Subtype: "error_max_budget_usd",
		IsError: true, HasResult: true, SessionID: "s-main_w1", TotalCostUSD: cost, CallCostUSD: &cost}}, t0)
	require.Len(t, out, 1)
	assert.Contains(t, out[0].line, "stopped at its share of the budget")
	assert.Equal(t, state.AgentReady, m.agent("main_w1").Status)
	assert.Empty(t, startRound(t, m, t0), "nothing unreserved yet")

	m.apply(stepDone{agent: "main_w2", seq: 1, name: "main_w2_W_001", res: &claude.Result{Outcome: claude.Exhausted, Subtype: "error_max_budget_usd",
		IsError: true, HasResult: true, SessionID: "s-main_w2", TotalCostUSD: 0.001, CallCostUSD: ptr(0.001)}}, t0)
	// $0.05 − $0.026 spent − $0.02 reserved (main, main_w3)
	assert.Equal(t, map[string]float64{"main_w1": 0.002, "main_w2": 0.002}, startRound(t, m, t0))
}
