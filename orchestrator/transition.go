package orchestrator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// transition applies the tag a successful step emitted (protocol.md §5).
func (m *machine) transition(a *state.Agent, ev stepDone, cost float64, now time.Time) []effect {
	s := a.Pending
	tag := ev.tr.Tag
	session := ev.res.SessionID
	if session == "" {
		session = sessionOf(s)
	}
	a.SessionID = session
	a.Attempts = 0
	a.LastError = ""
	delete(m.notBefore, a.ID)
	from := s.State
	input := attrPtr(tag, "input")
	cwd := a.Cwd
	if len(ev.cwds) > 0 && ev.cwds[0] != "" {
		cwd = ev.cwds[0]
	}

	var next *state.Step
	to := tag.Target
	var spawned []string
	var effects []effect
	switch tag.Name {
	case parsing.Goto:
		next = &state.Step{Ref: state.Ref{State: to}, Mode: state.SessionResume, ResumeSession: session, Input: input}
	case parsing.Reset:
		a.Cwd = cwd
		next = &state.Step{Ref: state.Ref{State: to}, Mode: state.SessionNew, Input: input}
	case parsing.Call, parsing.Function:
		ret, _ := tag.Attr("return")
		a.Stack = append(a.Stack, state.Frame{Session: session, Ref: state.Ref{State: ret}, Cwd: a.Cwd})
		mode := state.SessionNew
		if tag.Name == parsing.Call {
			mode = state.SessionBranch
		}
		next = &state.Step{Ref: state.Ref{State: to}, Mode: mode, ResumeSession: session, Input: input}
		if mode == state.SessionNew {
			next.ResumeSession = ""
		}
	case parsing.Fork:
		to, _ = tag.Attr("next")
		next = &state.Step{Ref: state.Ref{State: to}, Mode: state.SessionResume, ResumeSession: session}
		spawned, effects = m.spawn(a.ID, ev)
		// spawn appended to Agents: a may point into the old array.
		a = m.run.Agent(ev.agent)
	case parsing.Result:
		payload := tag.Payload
		if len(a.Stack) == 0 {
			return m.complete(a, ev, s, session, cost, payload, now)
		}
		f := a.Stack[len(a.Stack)-1]
		a.Stack = a.Stack[:len(a.Stack)-1]
		a.Cwd = f.Cwd
		a.SessionID = f.Session
		to = f.State
		next = &state.Step{Ref: state.Ref{State: to}, Mode: state.SessionResume, ResumeSession: f.Session, Input: &payload}
	default:
		return m.fail(a, fmt.Sprintf("%s: unknown tag <%s>", from, tag.Name))
	}
	if len(ev.tr.Forks) > 1 || (tag.Name != parsing.Fork && len(ev.tr.Forks) > 0) {
		// A fan-out: the parent continues at the common next state.
		spawned, effects = m.spawn(a.ID, ev)
		a = m.run.Agent(ev.agent)
	}
	next.Cwd = a.Cwd
	next.Attempt = 1
	a.Pending = next
	a.CurrentState = next.State
	a.Status = state.AgentReady

	name := tag.Name
	if len(ev.tr.Forks) > 0 {
		name = parsing.Fork
	}
	tr := transcript.Transition{
		Time: now, Agent: a.ID, From: from, To: to, Tag: name,
		Session: session, SessionNote: sessionNote(s), CostUSD: cost, TotalCostUSD: m.run.TotalCostUSD,
		Depth: len(a.Stack), Spawned: spawned,
	}
	if tag.Name == parsing.Result {
		tr.Payload = next.Input
	} else {
		tr.Payload = input
	}
	line := fmt.Sprintf("%s -> %s (%s)  %s, total %s", from, to, name, money(cost), money(m.run.TotalCostUSD))
	out := []effect{{
		kind: effectNote, agent: a.ID, transition: &tr, line: line, quiet: true,
		event: transcript.Event{Type: transcript.EventTransition, Agent: a.ID, Step: ev.name, State: from, Tag: name, Target: to,
			Session: session, CostUSD: ptr(cost), TotalCostUSD: ptr(m.run.TotalCostUSD), Depth: len(a.Stack), Payload: tr.Payload},
	}}
	return append(out, effects...)
}

// complete ends an agent whose <result> found an empty stack.
func (m *machine) complete(a *state.Agent, ev stepDone, s *state.Step, session string, cost float64, payload string, now time.Time) []effect {
	from := s.State
	a.Status = state.AgentCompleted
	a.Result = &payload
	a.Pending = nil
	a.CurrentState = from
	tr := transcript.Transition{
		Time: now, Agent: a.ID, From: from, Tag: parsing.Result, Session: session,
		SessionNote: sessionNote(s), CostUSD: cost,
		TotalCostUSD: m.run.TotalCostUSD, Payload: &payload,
	}
	line := fmt.Sprintf("%s -> done (result)  %s, total %s", from, money(cost), money(m.run.TotalCostUSD))
	return []effect{
		{kind: effectNote, agent: a.ID, transition: &tr, line: line, quiet: true,
			event: transcript.Event{Type: transcript.EventTransition, Agent: a.ID, Step: ev.name, State: from, Tag: parsing.Result,
				Session: session, CostUSD: ptr(cost), TotalCostUSD: ptr(m.run.TotalCostUSD), Payload: &payload}},
		note(a.ID, transcript.Event{Type: transcript.EventAgentCompleted, State: from, Payload: &payload}, "", false),
	}
}

// spawn starts one agent per fork of the step's transition and returns
// their descriptions for the log.
func (m *machine) spawn(parent string, ev stepDone) ([]string, []effect) {
	var spawned []string
	var effects []effect
	p := m.run.Agent(parent)
	parentCwd := p.Cwd
	for i, f := range ev.tr.Forks {
		m.run.NextAgentSeq++
		id := fmt.Sprintf("%s_%s%d", parent, agentPrefix(f.Target), m.run.NextAgentSeq)
		for m.run.Agent(id) != nil { // an id never repeats, even after a hand edit
			m.run.NextAgentSeq++
			id = fmt.Sprintf("%s_%s%d", parent, agentPrefix(f.Target), m.run.NextAgentSeq)
		}
		cwd := parentCwd
		if i+1 < len(ev.cwds) && ev.cwds[i+1] != "" {
			cwd = ev.cwds[i+1]
		}
		vars := f.Vars()
		m.run.Agents = append(m.run.Agents, state.Agent{
			ID: id, CurrentState: f.Target, Cwd: cwd, Stack: []state.Frame{}, Status: state.AgentReady, Parent: parent,
			Pending: &state.Step{Ref: state.Ref{State: f.Target}, Mode: state.SessionNew, Input: attrPtr(f, "input"), Vars: vars, Cwd: cwd, Attempt: 1},
		})
		m.touch(id)
		desc := id + " at " + f.Target
		if len(vars) > 0 {
			desc += " (" + formatVars(vars) + ")"
		}
		spawned = append(spawned, desc)
		effects = append(effects, note(parent, transcript.Event{Type: transcript.EventSpawn, Step: ev.name, Child: id, Parent: parent, State: f.Target},
			"started "+desc, false))
	}
	return spawned, effects
}

// attrPtr returns a pointer to the tag's attribute key, nil when absent.
func attrPtr(t parsing.Tag, key string) *string {
	if v, ok := t.Attr(key); ok {
		return &v
	}
	return nil
}

// sessionNote says how a step's session came to be, for transitions.log.
func sessionNote(s *state.Step) string {
	switch s.Mode {
	case state.SessionNew:
		return "new"
	case state.SessionBranch:
		return "branch of " + s.ResumeSession
	default:
		return "resumed"
	}
}

// formatVars writes fork variables as k=v, sorted by key.
func formatVars(vars map[string]string) string {
	keys := slices.Sorted(maps.Keys(vars))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, vars[k])
	}
	return strings.Join(parts, " ")
}
