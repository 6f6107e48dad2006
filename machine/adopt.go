package machine

import (
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// launched saves what identifies a step's process with the step, when the
// step still runs: a step that has ended already, or the next step of the
// same agent, has nothing to do with it.
func (m *Machine) launched(ev Launched) []Effect {
	a := m.agent(ev.Agent)
	if a == nil || a.Pending == nil || !m.running[a.ID] || a.Steps != ev.Seq || a.Status != state.AgentRunning {
		return nil
	}
	p := ev.Process
	a.Pending.Process = &p
	m.touch(a.ID)
	return nil
}

// adopted keeps running a step that the last driver left in flight, which
// Begin made ready again, and asks for it to be followed.
func (m *Machine) adopted(ev Adopted) []Effect {
	a := m.agent(ev.Agent)
	if a == nil || a.Pending == nil || a.Status != state.AgentReady || m.running[a.ID] || a.Steps == 0 {
		return nil
	}
	a.Status = state.AgentRunning // the queue skips it
	m.running[a.ID] = true
	s := a.Pending
	outcome := "ended"
	if ev.Running {
		outcome = "running"
	}
	name := step.Name(a.ID, s.State, a.Steps)
	return []Effect{
		note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventStepAdopted, Step: name, State: s.State, Attempt: s.Attempt, Outcome: outcome}),
		Follow{Request: m.request(a)},
	}
}

// request is the step.Request of an agent's pending step as it was started.
func (m *Machine) request(a *state.Agent) step.Request {
	r := m.run
	s := a.Pending
	req := step.Request{
		RunID: r.WorkflowID, Agent: a.ID, Seq: a.Steps, Step: *s,
		Vars: Vars(r, a), Options: r.Options, MaxBudgetUSD: m.reserved[a.ID],
	}
	if s.Mode != state.SessionNew && s.ResumeSession != "" {
		req.PriorCostUSD, req.PriorCostKnown = r.SessionCosts[s.ResumeSession]
	}
	return req
}
