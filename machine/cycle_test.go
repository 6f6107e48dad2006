package machine

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/parsing"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// cycleStep is one step of main in a cycle test: the answer it gives at
// the state it is at, and how that state is marked.
type cycleStep struct {
	answer  string
	script  bool // the state is a script
	noCycle bool // the state has cycle_check: false
}

func TestCycleCheck(t *testing.T) {
	ab := func(n int) []cycleStep { // A → B → A → … with identical answers
		var s []cycleStep
		for i := range n {
			if i%2 == 0 {
				s = append(s, cycleStep{answer: "<goto>B.md</goto>"})
			} else {
				s = append(s, cycleStep{answer: "<goto>A.md</goto>"})
			}
		}
		return s
	}
	self := cycleStep{answer: "again <goto>A.md</goto>"}
	tests := []struct {
		name  string
		k     int
		steps []cycleStep
		// failAt is the step (from 1) after which main fails; 0: never.
		failAt int
		cycle  string
	}{
		{name: "a state repeating itself", k: 3, steps: []cycleStep{self, self, self, self}, failAt: 3,
			cycle: "A.md → A.md repeated 3 times with identical answers"},
		{name: "two states round and round", k: 3, steps: ab(8), failAt: 6,
			cycle: "A.md → B.md → A.md repeated 3 times with identical answers"},
		{name: "K of 2 stops sooner", k: 2, steps: ab(8), failAt: 4,
			cycle: "A.md → B.md → A.md repeated 2 times with identical answers"},
		{name: "a different answer breaks the cycle", k: 3, steps: []cycleStep{self, self, {answer: "once more <goto>A.md</goto>"}, self, self}},
		{name: "off", k: 0, steps: []cycleStep{self, self, self, self, self}},
		{name: "a script in the round clears the history", k: 2, steps: []cycleStep{
			{answer: "<goto>A.md</goto>", script: true}, self, {answer: "<goto>A.md</goto>", script: true}, self, {answer: "<goto>A.md</goto>", script: true}, self}},
		{name: "a state that opts out", k: 2, steps: []cycleStep{
			{answer: "<goto>A.md</goto>", noCycle: true}, {answer: "<goto>A.md</goto>", noCycle: true}, {answer: "<goto>A.md</goto>", noCycle: true}}},
		{name: "four states", k: 2, steps: []cycleStep{
			{answer: "<goto>B.md</goto>"}, {answer: "<goto>C.md</goto>"}, {answer: "<goto>D.md</goto>"}, {answer: "<goto>A.md</goto>"},
			{answer: "<goto>B.md</goto>"}, {answer: "<goto>C.md</goto>"}, {answer: "<goto>D.md</goto>"}, {answer: "<goto>A.md</goto>"}}, failAt: 8,
			cycle: "A.md → B.md → C.md → D.md → A.md repeated 2 times with identical answers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := oneAgent(state.SessionResume)
			m.run.Options.CycleStop = tt.k
			for i, cs := range tt.steps {
				a := &m.run.Agents[0]
				require.Equal(t, state.AgentReady == a.Status || i == 0, true, "main is %s before step %d", a.Status, i+1)
				a.Pending.NoCycleCheck = cs.noCycle
				m.running["main"] = true
				tr, err := parsing.Parse(cs.answer)
				require.NoError(t, err)
				effects := m.Apply(StepEnded{Agent: "main", Seq: i + 1, Name: "step", Now: t0, Transition: tr, Script: cs.script,
					Result: step.Result{Outcome: step.Succeeded, Class: "success", Text: cs.answer, SessionID: "s1"}})
				a = &m.run.Agents[0]
				if a.Status == state.AgentFailed {
					assert.Equal(t, tt.failAt, i+1, "main failed after step %d: %s", i+1, a.LastError)
					var cycle *transcript.Event
					for _, e := range effects {
						if em, ok := e.(Emit); ok && em.Event.Type == transcript.EventCycle {
							cycle = &em.Event
						}
					}
					require.NotNil(t, cycle, "no cycle event")
					assert.Equal(t, tt.cycle, cycle.Message)
					assert.Equal(t, tt.k, cycle.Count)
					assert.Contains(t, a.LastError, tt.cycle+": stopped (cycle_stop")
					assert.True(t, strings.HasSuffix(a.LastError, "`raymond resume r1`"), a.LastError)
					assert.Empty(t, a.Recent, "a failure empties the history, so a resume counts afresh")
					return
				}
				assert.LessOrEqual(t, len(a.Recent), maxCycle*max(tt.k, 1))
			}
			assert.Zero(t, tt.failAt, "main never failed")
		})
	}
}

// The history is kept in the run's state, so a resumed run (a new machine
// over the saved run) goes on counting.
func TestCycleCountsAcrossResume(t *testing.T) {
	m := oneAgent(state.SessionResume)
	m.run.Options.CycleStop = 3
	answer := func(m *Machine) {
		m.running["main"] = true
		tr, _ := parsing.Parse("<goto>A.md</goto>")
		m.Apply(StepEnded{Agent: "main", Seq: 1, Name: "s", Now: t0, Transition: tr,
			Result: step.Result{Outcome: step.Succeeded, Text: "<goto>A.md</goto>", SessionID: "s1"}})
	}
	answer(m)
	answer(m)
	data, err := json.Marshal(m.run) // as the state file keeps it
	require.NoError(t, err)
	var saved state.Run
	require.NoError(t, json.Unmarshal(data, &saved))
	require.Len(t, saved.Agents[0].Recent, 2)
	m2 := New(&saved)
	answer(m2)
	assert.Equal(t, state.AgentFailed, m2.run.Agents[0].Status)
}

func TestRepeating(t *testing.T) {
	tests := []struct {
		h    string
		k    int
		want int
	}{
		{"a a a", 3, 1},
		{"a a", 3, 0},
		{"x a b a b a b", 3, 2},
		{"a b a b a", 3, 0},
		{"a b c a b c", 2, 3},
		{"a b c d e a b c d e", 2, 0}, // longer than maxCycle
		{"b a a a", 3, 1},
		{"", 3, 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, repeating(strings.Fields(tt.h), tt.k), "%q k=%d", tt.h, tt.k)
	}
}
