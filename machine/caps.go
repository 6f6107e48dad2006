package machine

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// visitKey is the identity of a state for its visit count: its file name
// in the run's own workflow, the workflow's path, "/" and the file name in
// another, so that two workflows' REVIEW.md are counted apart.
func (m *Machine) visitKey(r state.Ref) string {
	if r.Scope == "" || r.Scope == m.run.ScopeDir {
		return r.State
	}
	return strings.TrimRight(r.Scope, "/") + "/" + r.State
}

// visit counts the entry of the agent's pending step into its state
// against the state's max_visits, when it has one. An entry past the cap
// is not counted: the state's on_max_visits is taken instead, or the
// agent fails; visit then returns what that did, and the pending step
// does not start. The entry mark is cleared with the count, in the save
// before the step starts, so the entry counts once however often the
// step runs.
func (m *Machine) visit(a *state.Agent, now time.Time, p PreparedStep) []Effect {
	s := a.Pending
	key := m.visitKey(s.Ref)
	if p.MaxVisits > 0 && a.Visits[key] >= p.MaxVisits {
		return m.capped(a, now, p, key)
	}
	s.Entry, s.Capped = false, nil
	if p.MaxVisits > 0 {
		if a.Visits == nil {
			a.Visits = make(map[string]int)
		}
		a.Visits[key]++
	}
	m.touch(a.ID)
	return nil
}

// capSource says where the cap of the state r is written: its
// frontmatter, or the YAML workflow's file.
func (m *Machine) capSource(r state.Ref) string {
	switch path.Ext(m.scopePath(r.Scope)) {
	case ".yaml", ".yml":
		return "the YAML workflow"
	}
	return "frontmatter"
}

// capped takes the state's on_max_visits instead of the entry past its
// cap: a goto or reset to its target, or a result with its payload. The
// target is entered as any state is, so its own cap applies; a chain of
// fallbacks that comes back to a state it left fails the agent, as does a
// cap without on_max_visits.
func (m *Machine) capped(a *state.Agent, now time.Time, p PreparedStep, key string) []Effect {
	s := a.Pending
	m.touch(a.ID)
	ev := transcript.Event{Time: now, Type: transcript.EventVisitCap, State: s.State, Visits: a.Visits[key], Max: p.MaxVisits}
	fb := p.OnMaxVisits
	if fb == nil {
		ev.Message = "no on_max_visits: the agent fails"
		return append([]Effect{note(a.ID, ev)}, m.fail(a, now, fmt.Sprintf("%s: visit cap reached (max_visits: %d, from %s); add on_max_visits to go elsewhere, or raise max_visits",
			s.State, p.MaxVisits, m.capSource(s.Ref)))...)
	}
	if slices.Contains(s.Capped, key) {
		ev.Message = "on_max_visits loops back to a state over its cap: the agent fails"
		return append([]Effect{note(a.ID, ev)}, m.fail(a, now, fmt.Sprintf("%s: visit cap reached (max_visits: %d), and the on_max_visits fallbacks %s lead back to it with every state over its cap; raise a max_visits or end the chain at a state without one",
			s.State, p.MaxVisits, strings.Join(append(slices.Clone(s.Capped), key), " → ")))...)
	}
	ev.Tag, ev.Target = fb.Name, fb.Target
	capped := append(slices.Clone(s.Capped), key)
	here := s.Ref
	switch fb.Name {
	case parsing.Result:
		ev.Payload = ptr(fb.Payload)
		if len(a.Stack) == 0 {
			payload := fb.Payload
			m.end(a, state.AgentCompleted)
			a.Result = &payload
			a.Pending = nil
			a.CurrentState = s.State
			a.LastError = ""
			return []Effect{note(a.ID, ev),
				note(a.ID, transcript.Event{Time: now, Type: transcript.EventAgentCompleted, State: s.State, Payload: &payload})}
		}
		f := a.Stack[len(a.Stack)-1]
		a.Stack = a.Stack[:len(a.Stack)-1]
		a.Cwd, a.SessionID = f.Cwd, f.Session
		a.Scope, a.ScopeURL = f.Scope, f.URL
		a.TaskFolder, a.Chain = f.TaskFolder, f.Chain
		ev.Target = f.State
		a.Pending = &state.Step{Ref: f.Ref, Mode: state.SessionResume, ResumeSession: f.Session, Input: ptr(fb.Payload), Returned: true}
	case parsing.Reset:
		a.Pending = &state.Step{Ref: state.Ref{Scope: here.Scope, URL: here.URL, State: fb.Target}, Mode: state.SessionNew,
			Input: s.Input, Vars: s.Vars}
	default: // goto: the transition goes on as it would have, elsewhere
		next := *s
		next.Ref = state.Ref{Scope: here.Scope, URL: here.URL, State: fb.Target}
		a.Pending = &next
	}
	a.Pending.Cwd = a.Cwd
	a.Pending.Attempt = 1
	a.Pending.Entry = true
	a.Pending.Capped = capped
	a.CurrentState = a.Pending.State
	m.ready(a)
	return []Effect{note(a.ID, ev)}
}
