package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/parsing"
	"raymond/state"
	"raymond/step"
)

// interruptedRun is a run the last driver left with main's step in flight
// (its first, new session, its process saved) and a worker ready.
func interruptedRun() *Machine {
	proc := &state.Process{PID: 4242, Start: 99, Started: t0.Add(-time.Minute)}
	r := &state.Run{
		WorkflowID: "r1", ScopeDir: "/wf", Status: state.StatusRunning,
		Options: state.Options{MaxParallel: 8},
		Agents: []state.Agent{{
			ID: "main", CurrentState: "A.md", Cwd: "/work", Status: state.AgentRunning, Steps: 1, Attempts: 1,
			Pending: &state.Step{Ref: state.Ref{State: "A.md"}, Mode: state.SessionNew, SessionID: "s1", Cwd: "/work", Attempt: 1, Process: proc},
		}},
	}
	return New(r)
}

// kinds names the effects, with the type of an Emit's event.
func kinds(effects []Effect) []string {
	var out []string
	for _, e := range effects {
		switch e := e.(type) {
		case Emit:
			out = append(out, "emit "+e.Event.Type)
		case Prepare:
			out = append(out, "prepare "+e.Agent)
		case Follow:
			out = append(out, "follow "+e.Request.Agent)
		case Save:
			out = append(out, "save")
		case Start:
			out = append(out, "start "+e.Request.Agent)
		case StepClosed:
			out = append(out, "closed "+e.Name)
		case Done:
			out = append(out, "done")
		case Wake:
			out = append(out, "wake")
		}
	}
	return out
}

// TestAdoption: the three fates of a step in flight when its driver died,
// as events in and effects out. Adopted (its process still runs, or it
// ended with its result) keeps the agent running and asks for a Follow,
// with the step as it was started; no Prepare runs it again, and its end
// is applied as a live step's. Without Adopted the step runs again.
func TestAdoption(t *testing.T) {
	tests := []struct {
		name    string
		events  []Event
		want    []string // effects of the last event
		status  state.AgentStatus
		running bool
	}{
		{name: "running: adopted and followed",
			events: []Event{Begin{Now: t0}, Adopted{Agent: "main", Now: t0, Running: true}},
			want:   []string{"emit step_adopted", "follow main"}, status: state.AgentRunning, running: true},
		{name: "adopted: the tick starts nothing",
			events: []Event{Begin{Now: t0}, Adopted{Agent: "main", Now: t0}, Tick{Now: t0}},
			want:   nil, status: state.AgentRunning, running: true},
		{name: "not adopted: runs again",
			events: []Event{Begin{Now: t0}, Tick{Now: t0}},
			want:   []string{"prepare main"}, status: state.AgentReady, running: true},
		{name: "adopted twice: once",
			events: []Event{Begin{Now: t0}, Adopted{Agent: "main", Now: t0}, Adopted{Agent: "main", Now: t0}},
			want:   nil, status: state.AgentRunning, running: true},
		{name: "unknown agent",
			events: []Event{Begin{Now: t0}, Adopted{Agent: "ghost", Now: t0}},
			want:   nil, status: state.AgentReady},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := interruptedRun()
			var effects []Effect
			for _, ev := range tc.events {
				effects = m.Apply(ev)
			}
			assert.Equal(t, tc.want, kinds(effects))
			assert.Equal(t, tc.status, m.Run().Agents[0].Status)
			assert.Equal(t, tc.running, m.running["main"])
		})
	}
}

// TestAdoptedFollowsTheStepAsStarted: the Follow carries the step as the
// last driver started it: its seq, session, the process it saved.
func TestAdoptedFollowsTheStepAsStarted(t *testing.T) {
	m := interruptedRun()
	m.Apply(Begin{Now: t0})
	effects := m.Apply(Adopted{Agent: "main", Now: t0, Running: true})
	require.Len(t, effects, 2)
	ev := effects[0].(Emit).Event
	assert.Equal(t, "main_A_001", ev.Step)
	assert.Equal(t, "running", ev.Outcome)
	req := effects[1].(Follow).Request
	assert.Equal(t, 1, req.Seq)
	assert.Equal(t, "r1", req.RunID)
	assert.Equal(t, "s1", req.Step.SessionID)
	require.NotNil(t, req.Step.Process)
	assert.Equal(t, 4242, req.Step.Process.PID)
}

// TestAdoptedEndAppliedAsLive: the end of an adopted step (a result line
// found in its output) books its cost and takes its transition exactly as
// the end of a step this driver started: no Prepare of the same step, the
// next state's instead.
func TestAdoptedEndAppliedAsLive(t *testing.T) {
	m := interruptedRun()
	m.Apply(Begin{Now: t0})
	m.Apply(Adopted{Agent: "main", Now: t0})
	tr, err := parsing.Parse("<goto>B.md</goto>")
	require.NoError(t, err)
	effects := m.Apply(StepEnded{Agent: "main", Seq: 1, Name: "main_A_001", Now: t0, Transition: tr,
		Result: step.Result{Outcome: step.Succeeded, Class: "success", Billed: true, CostUSD: 0.25, SessionCostUSD: 0.25, SessionID: "s1"}})
	assert.Equal(t, []string{"closed main_A_001", "emit step_ended", "emit transition"}, kinds(effects))
	assert.InDelta(t, 0.25, m.Run().TotalCostUSD, 1e-9)
	a := m.Run().Agents[0]
	assert.Equal(t, "B.md", a.Pending.State)
	assert.Equal(t, []string{"prepare main", "save"}, kinds(m.Apply(Tick{Now: t0})))
}

// TestLaunched: the identity of a started step's process is saved with the
// step; one that comes after the step ended, or for an older step of the
// agent, changes nothing.
func TestLaunched(t *testing.T) {
	p := state.Process{PID: 7, Start: 8, Started: t0}
	m := oneAgent(state.SessionNew)
	m.Apply(Launched{Agent: "main", Seq: 1, Process: p})
	require.NotNil(t, m.Run().Agents[0].Pending.Process)
	assert.Equal(t, p, *m.Run().Agents[0].Pending.Process)
	assert.True(t, m.dirty["main"], "saved at the next Save")

	m = oneAgent(state.SessionNew)
	m.Apply(Launched{Agent: "main", Seq: 2, Process: p})
	assert.Nil(t, m.Run().Agents[0].Pending.Process, "another step's process")

	m = oneAgent(state.SessionNew)
	m.apply(success(t, "<goto>B.md</goto>", 0.1), t0)
	m.Apply(Launched{Agent: "main", Seq: 1, Process: p})
	assert.Nil(t, m.Run().Agents[0].Pending.Process, "after the step ended")
}
