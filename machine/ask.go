package machine

import (
	"fmt"
	"slices"
	"time"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// TimedOut is {{input}} of the step an expired ask continues at (protocol
// §15.2).
const TimedOut = "(no answer: timed out)"

// ask makes the agent wait for a person's answer (protocol §15.1): the ask
// goes into the run, the agent becomes asking and holds no slot. With
// --on-ask reject the agent fails instead.
func (m *Machine) ask(a *state.Agent, ev StepEnded, session string, cost float64) []Effect {
	now := ev.Now
	s := a.Pending
	tag := ev.Transition.Tag
	if m.onAsk == AskReject {
		return m.fail(a, now, fmt.Sprintf("%s: ask rejected by --on-ask reject", s.State))
	}
	next, _ := tag.Attr("next")
	m.run.AskSeq++
	k := &state.Ask{
		ID: fmt.Sprintf("ask_%s_%d", a.ID, m.run.AskSeq), Question: tag.Payload, State: s.State,
		Next: next, AskedAt: now, Session: session,
	}
	if t, ok := tag.Attr("timeout"); ok {
		if d, err := parsing.ParseTimeout(t); err == nil {
			k.Timeout = t
			k.TimeoutNext, _ = tag.Attr("timeout_next")
			k.Deadline = ptr(now.Add(d))
		}
	}
	a.Ask = k
	a.Pending = nil
	a.Status = state.AgentAsking
	a.CurrentState = s.State
	a.SessionID = session
	m.asking[a.ID] = true
	m.touch(a.ID)
	tr := transcript.Transition{
		Time: now, Agent: a.ID, From: s.State, To: next, Tag: parsing.Ask,
		Session: session, SessionNote: sessionNote(s), CostUSD: cost, TotalCostUSD: m.run.TotalCostUSD,
		Depth: len(a.Stack), Payload: &k.Question,
	}
	return []Effect{
		Emit{Transition: &tr, Event: transcript.Event{Time: now, Type: transcript.EventTransition, Agent: a.ID, Step: ev.Name,
			State: s.State, Tag: parsing.Ask, Target: next, Session: session, CostUSD: ptr(cost),
			TotalCostUSD: ptr(m.run.TotalCostUSD), Depth: len(a.Stack)}},
		m.askEvent(a, k),
		AskOpened{Agent: a.ID, Ask: *k},
	}
}

// askEvent is the ask event of k.
func (m *Machine) askEvent(a *state.Agent, k *state.Ask) Effect {
	return note(a.ID, transcript.Event{Time: k.AskedAt, Type: transcript.EventAsk, AskID: k.ID, State: k.State,
		Target: k.Next, Message: k.Question, Deadline: k.Deadline, TimeoutNext: k.TimeoutNext})
}

// answered applies an answer given while the run is driven.
func (m *Machine) answered(ev Answered) []Effect {
	a := m.askingAgent(ev.AskID)
	if a == nil {
		return []Effect{Emit{Event: transcript.Event{Time: ev.Now, Type: transcript.EventWarning,
			Message: fmt.Sprintf("answer to %s ignored: no such ask is pending", ev.AskID)}}}
	}
	if d := a.Ask.Deadline; d != nil && !ev.Now.Before(*d) {
		return append([]Effect{note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventWarning, AskID: ev.AskID,
			Message: fmt.Sprintf("answer to %s refused: its deadline %s has passed", ev.AskID, d.UTC().Format(time.RFC3339))})},
			m.expire(a, ev.Now)...)
	}
	answer := ev.Answer
	a.Ask.Answer, a.Ask.AnsweredAt = &answer, ptr(ev.Now)
	// Saved at once, not with the step that uses it: whoever gave the
	// answer is told it was taken only once it is on disk, and a driver
	// killed before that step starts must not lose it.
	return append(m.resumeAsked(a, ev.Now), m.save())
}

// askingAgent returns the agent whose pending ask is id, or nil.
func (m *Machine) askingAgent(id string) *state.Agent {
	for agentID := range m.asking {
		if a := m.agent(agentID); a != nil && a.Ask.Pending() && a.Ask.ID == id {
			return a
		}
	}
	return nil
}

// resumeAsked moves an agent whose ask has its answer on to the ask's next
// state, resuming its session, with the answer as {{input}} and the ask's
// id as {{ask_id}} (protocol §15.1). The answer is saved before the step
// that uses it starts (an answer given to this drive, at once: see
// answered).
func (m *Machine) resumeAsked(a *state.Agent, now time.Time) []Effect {
	k := a.Ask
	delete(m.asking, a.ID)
	a.Pending = &state.Step{Ref: state.Ref{Scope: a.Scope, URL: a.ScopeURL, State: k.Next}, Mode: state.SessionResume,
		ResumeSession: k.Session, Input: ptr(*k.Answer), AskID: k.ID, Cwd: a.Cwd, Attempt: 1, Entry: true}
	a.CurrentState = k.Next
	m.touch(a.ID)
	m.ready(a)
	waited := int64(0)
	if k.AnsweredAt != nil {
		waited = k.AnsweredAt.Sub(k.AskedAt).Milliseconds()
	}
	return []Effect{note(a.ID, transcript.Event{Time: now, Type: transcript.EventAnswered, AskID: k.ID, State: k.State,
		Target: k.Next, Payload: k.Answer, DurationMS: waited})}
}

// expire ends an ask whose deadline has passed (protocol §15.2): the agent
// continues at timeout_next with TimedOut as its input, or fails.
func (m *Machine) expire(a *state.Agent, now time.Time) []Effect {
	k := a.Ask
	k.Expired = true
	delete(m.asking, a.ID)
	m.touch(a.ID)
	ev := transcript.Event{Time: now, Type: transcript.EventAskExpired, AskID: k.ID, State: k.State,
		Target: k.TimeoutNext, DurationMS: now.Sub(k.AskedAt).Milliseconds()}
	if k.TimeoutNext == "" {
		// The agent fails at the state that asked: a resume asks again.
		a.Pending = &state.Step{Ref: state.Ref{Scope: a.Scope, URL: a.ScopeURL, State: k.State}, Mode: state.SessionResume,
			ResumeSession: k.Session, Cwd: a.Cwd, Attempt: 1}
		return append([]Effect{note(a.ID, ev)}, m.fail(a, now, fmt.Sprintf("ask %s: no answer within %s", k.ID, k.Timeout))...)
	}
	a.Pending = &state.Step{Ref: state.Ref{Scope: a.Scope, URL: a.ScopeURL, State: k.TimeoutNext}, Mode: state.SessionResume,
		ResumeSession: k.Session, Input: ptr(TimedOut), AskID: k.ID, Cwd: a.Cwd, Attempt: 1, Entry: true}
	a.CurrentState = k.TimeoutNext
	m.ready(a)
	return []Effect{note(a.ID, ev)}
}

// dueAsks expires the asks whose deadline has come, oldest first, and
// returns when the next one comes (zero for none).
func (m *Machine) dueAsks(now time.Time) (out []Effect, next time.Time) {
	var due []*state.Agent
	for id := range m.asking {
		a := m.agent(id)
		if a == nil || !a.Ask.Pending() {
			delete(m.asking, id)
			continue
		}
		d := a.Ask.Deadline
		if d == nil {
			continue
		}
		if now.Before(*d) {
			if next.IsZero() || d.Before(next) {
				next = *d
			}
			continue
		}
		due = append(due, a)
	}
	slices.SortFunc(due, func(x, y *state.Agent) int { return x.Ask.Deadline.Compare(*y.Ask.Deadline) })
	for _, a := range due {
		out = append(out, m.expire(a, now)...)
	}
	return out, next
}

// pendingAsks returns the agents that wait for an answer, in the order
// they asked.
func (m *Machine) pendingAsks() []*state.Agent {
	var out []*state.Agent
	for id := range m.asking {
		if a := m.agent(id); a != nil && a.Ask.Pending() {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(x, y *state.Agent) int {
		if c := x.Ask.AskedAt.Compare(y.Ask.AskedAt); c != 0 {
			return c
		}
		return compareIDs(x.Ask.ID, y.Ask.ID)
	})
	return out
}

// compareIDs orders ask ids by their counter, then as text.
func compareIDs(x, y string) int {
	nx, ny := askNumber(x), askNumber(y)
	if nx != ny {
		return nx - ny
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// askNumber is the n of ask_<agent>_<n>, or 0.
func askNumber(id string) int {
	n, mul := 0, 1
	for i := len(id) - 1; i >= 0 && id[i] >= '0' && id[i] <= '9'; i-- {
		n += int(id[i]-'0') * mul
		mul *= 10
	}
	return n
}

// PendingAsks lists the run's pending asks, in the order they were asked.
func PendingAsks(r *state.Run) []state.Ask {
	var out []state.Ask
	for i := range r.Agents {
		if a := &r.Agents[i]; a.Status == state.AgentAsking && a.Ask.Pending() {
			out = append(out, *a.Ask)
		}
	}
	slices.SortFunc(out, func(x, y state.Ask) int {
		if c := x.AskedAt.Compare(y.AskedAt); c != 0 {
			return c
		}
		return compareIDs(x.ID, y.ID)
	})
	return out
}
