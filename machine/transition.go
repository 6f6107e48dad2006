package machine

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"raymond/parsing"
	"raymond/state"
	"raymond/transcript"
)

// transition applies the tag a successful step emitted (protocol.md §5,
// §14, §15).
func (m *Machine) transition(a *state.Agent, ev StepEnded, cost float64) []Effect {
	now := ev.Now
	s := a.Pending
	tag := ev.Transition.Tag
	if reason := m.overLimit(a, ev); reason != "" {
		return m.fail(a, now, fmt.Sprintf("%s: %s", s.State, reason))
	}
	if stopped := m.cycle(a, ev); stopped != nil {
		return stopped
	}
	session, branch := m.sessionAfter(s, ev)
	a.SessionID = session
	a.Attempts = 0
	a.LastError = ""
	delete(m.notBefore, a.ID)
	if tag.Name == parsing.Ask && len(ev.Transition.Forks) == 0 {
		return m.ask(a, ev, session, cost)
	}
	from := s.State
	input := attrPtr(tag, "input")
	cwd := a.Cwd
	if len(ev.Cwds) > 0 && ev.Cwds[0] != "" {
		cwd = ev.Cwds[0]
	}
	here := a.Ref()

	var next *state.Step
	to := tag.Target
	var spawned []string
	var effects []Effect
	at := func(target string) state.Ref { return state.Ref{Scope: here.Scope, URL: here.URL, State: target} }
	switch tag.Name {
	case parsing.Goto:
		next = &state.Step{Ref: at(to), Mode: state.SessionResume, ResumeSession: session, Input: input}
	case parsing.Reset:
		a.Cwd = cwd
		m.newTask(a, tag)
		next = &state.Step{Ref: at(to), Mode: state.SessionNew, Input: input}
	case parsing.Call, parsing.Function, parsing.CallWorkflow, parsing.FunctionWorkflow:
		ret, _ := tag.Attr("return")
		a.Stack = append(a.Stack, state.Frame{Session: session, Ref: at(ret), Cwd: a.Cwd, TaskFolder: a.TaskFolder, Chain: a.Chain})
		ref := at(to)
		if tag.Name == parsing.CallWorkflow || tag.Name == parsing.FunctionWorkflow {
			ref = m.enter(a, tag)
		}
		if tag.Name == parsing.FunctionWorkflow {
			a.Cwd = cwd
		}
		m.callWorkspace(a, tag)
		next = &state.Step{Ref: ref, Mode: state.SessionNew, Input: input}
		if tag.Name == parsing.Call || tag.Name == parsing.CallWorkflow {
			next.Mode, next.ResumeSession = state.SessionBranch, session
		}
	case parsing.ResetWorkflow:
		a.Cwd = cwd
		a.Stack = []state.Frame{}
		ref := m.target(tag)
		a.Scope, a.ScopeURL = ref.Scope, ref.URL
		a.Chain = []string{m.scopePath(ref.Scope)}
		m.newTask(a, tag)
		next = &state.Step{Ref: ref, Mode: state.SessionNew, Input: input}
	case parsing.Fork, parsing.ForkWorkflow:
		to, _ = tag.Attr("next")
		next = &state.Step{Ref: at(to), Mode: state.SessionResume, ResumeSession: session}
		spawned, effects = m.spawn(a.ID, ev)
		// spawn appended to Agents: a may point into the old array.
		a = m.agent(ev.Agent)
	case parsing.Result:
		payload := tag.Payload
		if len(a.Stack) == 0 {
			return m.complete(a, ev, s, session, cost, payload)
		}
		f := a.Stack[len(a.Stack)-1]
		a.Stack = a.Stack[:len(a.Stack)-1]
		a.Cwd = f.Cwd
		a.SessionID = f.Session
		a.Scope, a.ScopeURL = f.Scope, f.URL
		a.TaskFolder, a.Chain = f.TaskFolder, f.Chain
		m.returnWorkspace(a, f)
		to = f.State
		next = &state.Step{Ref: f.Ref, Mode: state.SessionResume, ResumeSession: f.Session, Input: &payload, Returned: true}
		branch = false
	default:
		return m.fail(a, now, fmt.Sprintf("%s: unknown tag <%s>", from, tag.Name))
	}
	if len(ev.Transition.Forks) > 1 || (tag.Name != parsing.Fork && tag.Name != parsing.ForkWorkflow && len(ev.Transition.Forks) > 0) {
		// A fan-out: the parent continues at the common next state.
		spawned, effects = m.spawn(a.ID, ev)
		a = m.agent(ev.Agent)
	}
	if branch && next.Mode == state.SessionResume && next.ResumeSession == session {
		// A script step reached by a branch leaves the branch to the next
		// step that uses the session.
		next.Mode = state.SessionBranch
	}
	next.Cwd = a.Cwd
	next.Attempt = 1
	next.Entry = true
	a.Pending = next
	a.CurrentState = next.State
	// The parent's next step is ready before the workers it forked: steps
	// start in the order they became ready.
	m.ready(a)
	for _, id := range m.fresh {
		m.enqueue(id)
	}
	m.fresh = m.fresh[:0]

	name := tag.Name
	if len(ev.Transition.Forks) > 0 && tag.Name != parsing.ForkWorkflow {
		name = parsing.Fork
	}
	if next.Scope != here.Scope && tag.Name != parsing.Result {
		to = m.scopeLabel(next.Ref)
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
	out := []Effect{Emit{
		Transition: &tr,
		Event: transcript.Event{Time: now, Type: transcript.EventTransition, Agent: a.ID, Step: ev.Name, State: from, Tag: name, Target: to,
			Session: session, CostUSD: ptr(cost), TotalCostUSD: ptr(m.run.TotalCostUSD), Depth: len(a.Stack), Payload: tr.Payload},
	}}
	return append(out, effects...)
}

// sessionAfter is the agent's session after its step s ended: the one the
// step ran in, as its runner says or as the step named it. A script step
// leaves the session as it was (protocol §11.4): the one it would have
// resumed; none when it was to start one; and when it was to branch one,
// that session, with branch set: the next step that resumes it branches
// it instead.
func (m *Machine) sessionAfter(s *state.Step, ev StepEnded) (session string, branch bool) {
	if ev.Script {
		switch s.Mode {
		case state.SessionResume:
			return s.ResumeSession, false
		case state.SessionBranch:
			return s.ResumeSession, s.ResumeSession != ""
		}
		return "", false
	}
	if ev.Result.SessionID != "" {
		return ev.Result.SessionID, false
	}
	return sessionOf(s), false
}

// overLimit says why a transition would take the run past one of its
// limits (issue: a fork bomb, a runaway recursion), or "" when it does not.
// The agent fails; its siblings go on, and nothing of the transition is
// applied: a resume with a higher limit runs its step again.
func (m *Machine) overLimit(a *state.Agent, ev StepEnded) string {
	maxAgents, maxDepth, maxForks := m.run.Options.Limits()
	forked := len(m.run.Agents) - 1 // every agent but main was forked; none is ever removed
	switch tag := ev.Transition.Tag; {
	case len(ev.Transition.Forks) > 0 && forked+len(ev.Transition.Forks) > maxForks:
		return fmt.Sprintf("forking %d agents would make %d forked in this run, over its limit of %d (--max-forks, config max_forks); nothing was forked",
			len(ev.Transition.Forks), forked+len(ev.Transition.Forks), maxForks)
	case len(ev.Transition.Forks) > 0 && m.live+len(ev.Transition.Forks) > maxAgents:
		return fmt.Sprintf("forking %d agents would make %d alive at once, over the run's limit of %d (--max-agents, config max_agents); nothing was forked",
			len(ev.Transition.Forks), m.live+len(ev.Transition.Forks), maxAgents)
	case (tag.Name == parsing.Call || tag.Name == parsing.Function || tag.Name == parsing.CallWorkflow || tag.Name == parsing.FunctionWorkflow) &&
		len(a.Stack)+1 > maxDepth:
		return fmt.Sprintf("<%s> would stack %d frames, over the run's limit of %d (--max-depth, config max_depth): is the workflow calling itself without end?",
			tag.Name, len(a.Stack)+1, maxDepth)
	case tag.Name == parsing.CallWorkflow || tag.Name == parsing.FunctionWorkflow:
		return workflowDepth(tag, m.chainOf(a), m.scopePath(m.target(tag).Scope))
	}
	for _, f := range ev.Transition.Forks {
		if f.Name != parsing.ForkWorkflow {
			continue
		}
		if why := workflowDepth(f, m.chainOf(a), m.scopePath(m.target(f).Scope)); why != "" {
			return why
		}
	}
	return ""
}

// complete ends an agent whose <result> found an empty stack.
func (m *Machine) complete(a *state.Agent, ev StepEnded, s *state.Step, session string, cost float64, payload string) []Effect {
	now := ev.Now
	from := s.State
	m.end(a, state.AgentCompleted)
	m.handOver(a)
	a.Result = &payload
	a.Pending = nil
	a.CurrentState = from
	tr := transcript.Transition{
		Time: now, Agent: a.ID, From: from, Tag: parsing.Result, Session: session,
		SessionNote: sessionNote(s), CostUSD: cost,
		TotalCostUSD: m.run.TotalCostUSD, Payload: &payload,
	}
	return []Effect{
		Emit{Transition: &tr,
			Event: transcript.Event{Time: now, Type: transcript.EventTransition, Agent: a.ID, Step: ev.Name, State: from, Tag: parsing.Result,
				Session: session, CostUSD: ptr(cost), TotalCostUSD: ptr(m.run.TotalCostUSD), Payload: &payload}},
		note(a.ID, transcript.Event{Time: now, Type: transcript.EventAgentCompleted, State: from, Payload: &payload}),
	}
}

// spawn starts one agent per fork of the step's transition and returns
// their descriptions for the log.
func (m *Machine) spawn(parent string, ev StepEnded) ([]string, []Effect) {
	n := len(ev.Transition.Forks)
	spawned := make([]string, 0, n)
	effects := make([]Effect, 0, n)
	// Sized once: a fan-out of thousands would otherwise grow the run's
	// agents by doubling, and hold the old arrays until the next collection.
	m.run.Agents = slices.Grow(m.run.Agents, n)
	m.fresh = slices.Grow(m.fresh, n)
	p := m.agent(parent)
	parentCwd, parentTask, parentRef, parentChain := p.Cwd, p.TaskFolder, p.Ref(), m.chainOf(p)
	for i, f := range ev.Transition.Forks {
		ref := state.Ref{Scope: parentRef.Scope, URL: parentRef.URL, State: f.Target}
		prefix := f.Target
		chain := p.Chain
		if f.Name == parsing.ForkWorkflow {
			ref = m.target(f)
			prefix = ScopeName(m.scopePath(ref.Scope))
			chain = append(slices.Clip(parentChain), m.scopePath(ref.Scope))
		}
		m.run.NextAgentSeq++
		id := agentID(parent, prefix, m.run.NextAgentSeq)
		for m.agent(id) != nil { // an id never repeats, even after a hand edit
			m.run.NextAgentSeq++
			id = agentID(parent, prefix, m.run.NextAgentSeq)
		}
		cwd := parentCwd
		if i+1 < len(ev.Cwds) && ev.Cwds[i+1] != "" {
			cwd = ev.Cwds[i+1]
		}
		var ws *state.AgentWorkspace
		if m.worktree() {
			ws, cwd = m.forkWorkspace(p, id, f, cwd)
		}
		task := m.taskFolder(id)
		if v, _ := f.Attr("task"); v == "inherit" {
			task = parentTask
		}
		vars := f.Vars()
		m.add(state.Agent{
			ID: id, Scope: ref.Scope, ScopeURL: ref.URL, CurrentState: f.Target, Cwd: cwd, Stack: []state.Frame{},
			Status: state.AgentReady, Parent: parent, TaskFolder: task, Chain: chain, Workspace: ws,
			Pending: &state.Step{Ref: ref, Mode: state.SessionNew, Input: attrPtr(f, "input"), Vars: vars, Cwd: cwd, Attempt: 1, Entry: true},
		})
		where := f.Target
		if ref.Scope != parentRef.Scope {
			where = m.scopeLabel(ref)
		}
		desc := id + " at " + where
		if len(vars) > 0 {
			desc += " (" + formatVars(vars) + ")"
		}
		spawned = append(spawned, desc)
		effects = append(effects, note(parent, transcript.Event{Time: ev.Now, Type: transcript.EventSpawn, Step: ev.Name, Child: id, Parent: parent, State: where, Vars: vars}))
	}
	return spawned, effects
}

// maxAgentID is the longest agent id a fork makes.
const maxAgentID = 64

// agentID is the id of an agent forked by parent at target, the seq-th of
// the run (protocol §5.6): the parent's id, "_", a short form of the state,
// the counter: main_worker3. An id that would pass maxAgentID bytes (a chain
// of forks many generations deep) keeps only the parent's root instead,
// main_worker1734: the counter alone makes it unique, Agent.Parent still
// names the parent, and ids, file names and state writes stay bounded.
func agentID(parent, target string, seq int) string {
	id := fmt.Sprintf("%s_%s%d", parent, agentPrefix(target), seq)
	if len(id) <= maxAgentID {
		return id
	}
	root, _, _ := strings.Cut(parent, "_")
	return fmt.Sprintf("%s_%s%d", root, agentPrefix(target), seq)
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
