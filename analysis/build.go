package analysis

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"raymond/report"
	"raymond/step"
	"raymond/transcript"
)

// builder replays a transcript's events into a Run.
type builder struct {
	r      *Run
	agents map[string]*Agent
	steps  map[string]*Step
	// visitOf is the visit each step belongs to, by step name.
	visitOf map[string]*Visit
	// open is each agent's current visit, nil between a transition that
	// ended it and the next one.
	open map[string]*Visit
	// remind marks agents whose next step is a reminder.
	remind map[string]bool
	// ended holds the steps that had a step_ended event.
	ended map[string]bool
	// lastTotal is the last total_cost_usd seen.
	lastTotal float64
	haveTotal bool
	// driving is set while a process's run_ended has not been seen;
	// lastEvent is the latest event so far.
	driving   bool
	lastEvent time.Time
	// lastEnded is set when the last event is run_ended.
	lastEnded bool
	// limited are the steps stopped by the usage limit since the last
	// wait event: the next wait is theirs.
	limited []*Step
	// asks are the run's asks by id.
	asks map[string]*Ask
}

func newBuilder() *builder {
	return &builder{
		r:       &Run{Schema: SchemaVersion},
		agents:  make(map[string]*Agent),
		steps:   make(map[string]*Step),
		visitOf: make(map[string]*Visit),
		open:    make(map[string]*Visit),
		remind:  make(map[string]bool),
		ended:   make(map[string]bool),
		asks:    make(map[string]*Ask),
	}
}

// agent returns the agent id, adding it to the run when it is new.
func (b *builder) agent(id string) *Agent {
	if a := b.agents[id]; a != nil {
		return a
	}
	a := &Agent{ID: id, Path: []*Visit{}, StepNames: []string{}}
	b.agents[id] = a
	b.r.Agents = append(b.r.Agents, a)
	return a
}

// visit opens a new visit of agent a.
func (b *builder) visit(a *Agent, stateName, via string, depth int) *Visit {
	v := &Visit{State: stateName, Via: via, Depth: depth, Steps: []string{}}
	a.Path = append(a.Path, v)
	b.open[a.ID] = v
	return v
}

// addStep adds a step to the run and to its agent's open visit (a new one
// when the agent has none in that state).
func (b *builder) addStep(s *Step) {
	b.steps[s.Name] = s
	b.r.Steps = append(b.r.Steps, s)
	a := b.agent(s.Agent)
	if a.Started.IsZero() || (!s.Started.IsZero() && s.Started.Before(a.Started)) {
		a.Started = s.Started
	}
	a.StepNames = append(a.StepNames, s.Name)
	v := b.open[a.ID]
	if v == nil || !sameState(v.State, s.State) {
		depth := 0
		if v != nil {
			depth = v.Depth
		} else if n := len(a.Path); n > 0 {
			depth = a.Path[n-1].Depth
		}
		v = b.visit(a, s.State, "", depth)
	}
	// A step of a state in another workflow takes the name its
	// transition gave it, scope and all.
	s.State = v.State
	v.Steps = append(v.Steps, s.Name)
	b.visitOf[s.Name] = v
}

// replay applies the events in order.
func (b *builder) replay(events []transcript.Event) {
	for i := range events {
		b.event(&events[i])
	}
}

func (b *builder) event(e *transcript.Event) {
	r := b.r
	if r.Started.IsZero() || e.Time.Before(r.Started) {
		r.Started = e.Time
	}
	prev := b.lastEvent
	if e.Time.After(b.lastEvent) {
		b.lastEvent = e.Time
	}
	b.lastEnded = e.Type == transcript.EventRunEnded
	if e.TotalCostUSD != nil {
		b.lastTotal, b.haveTotal = *e.TotalCostUSD, true
	}
	switch e.Type {
	case transcript.EventRunStarted, transcript.EventRunResumed:
		if b.driving {
			// The process before this one never wrote run_ended.
			b.closeProcess(prev, true)
		}
		r.Processes = append(r.Processes, Process{Started: e.Time})
		b.driving = true
		// A resume may raise the budget: only a budget_exceeded of this
		// process says the run stopped at it.
		r.BudgetExceeded = false
		if e.Type == transcript.EventRunResumed {
			r.Resumes++
		}
		r.Scripted = r.Scripted || e.Scripted
		if r.Workflow == "" {
			r.Workflow = e.Message
		}
		if r.Entry == "" {
			r.Entry = e.State
		}
	case transcript.EventRunEnded:
		r.Status = e.Status
		r.Error = e.Message
		r.Ended = e.Time
		b.closeWaits(e.Time)
		b.closeProcess(e.Time, false)
		b.limited = nil
	case transcript.EventStepStarted:
		b.stepStarted(e)
	case transcript.EventStepEnded:
		b.stepEnded(e)
	case transcript.EventTransition:
		b.transition(e)
	case transcript.EventSpawn:
		b.spawn(e)
	case transcript.EventRetry:
		r.Retries++
		if s := b.steps[e.Step]; s != nil {
			s.Retried = true
			if s.Error == "" {
				s.Error = e.Message
			}
		}
	case transcript.EventFallback:
		r.Fallbacks++
		if s := b.steps[e.Step]; s != nil {
			s.FellBack = e.Message
		}
	case transcript.EventReminder:
		r.Reminders++
		if s := b.steps[e.Step]; s != nil {
			s.Reminded, s.Refused = true, e.Message
		}
		b.remind[e.Agent] = true
	case transcript.EventAgentCompleted:
		a := b.agent(e.Agent)
		a.Status, a.Result, a.Ended, a.Error = "completed", e.Payload, e.Time, ""
		b.open[a.ID] = nil
	case transcript.EventAgentFailed:
		b.agentFailed(e)
	case transcript.EventWait:
		w := Wait{Started: e.Time, Reason: e.Message}
		if e.Until != nil {
			w.Until = e.Until.UTC()
		}
		r.Waits = append(r.Waits, w)
		for _, s := range b.limited {
			s.WaitUntil = w.Until
		}
		b.limited = nil
	case transcript.EventWaitOver:
		b.closeWaits(e.Time)
	case transcript.EventBudgetExceeded:
		r.BudgetExceeded = true
	case transcript.EventAsk:
		b.askEvent(e)
	case transcript.EventAnswered, transcript.EventAskExpired:
		b.askClosed(e)
	case transcript.EventWarning:
		r.Warnings = append(r.Warnings, warningText(e))
	case transcript.EventLoopWarning, transcript.EventCycle:
		// A step that repeated a tool call, an agent stopped going round
		// a cycle: among the run's warnings, with the agent.
		r.Warnings = append(r.Warnings, e.Agent+": "+report.Words(e))
	case transcript.EventVisitCap:
		r.VisitCaps = append(r.VisitCaps, &VisitCap{Time: e.Time, Agent: e.Agent, State: e.State, Visits: e.Visits, Max: e.Max,
			Tag: e.Tag, Target: e.Target, Payload: e.Payload, Taken: report.VisitCapTaken(e)})
		b.visitCap(e)
	}
}

// closeProcess ends the current driving process at t.
func (b *builder) closeProcess(t time.Time, crashed bool) {
	ps := b.r.Processes
	if !b.driving || len(ps) == 0 {
		return
	}
	p := &ps[len(ps)-1]
	p.Ended, p.Crashed = t, crashed
	b.r.Driven += max(t.Sub(p.Started), 0)
	b.driving = false
}

// closeWaits ends every wait still open at t.
func (b *builder) closeWaits(t time.Time) {
	for i := range b.r.Waits {
		if w := &b.r.Waits[i]; w.Ended.IsZero() {
			w.Ended = t
		}
	}
}

func (b *builder) stepStarted(e *transcript.Event) {
	if b.steps[e.Step] != nil {
		return // a step name seen twice: keep the first
	}
	agentID, _, seq := splitName(e.Step, e.Agent)
	s := &Step{
		Name: e.Step, Agent: agentID, Seq: seq, State: e.State, Attempt: e.Attempt,
		Session: e.Session, Started: e.Time, Reminder: b.remind[agentID],
	}
	if e.AllowedTools != nil || e.DisallowedTools != nil || e.PermissionMode != "" {
		s.Tools = &ToolLimits{Allowed: e.AllowedTools, Disallowed: e.DisallowedTools, PermissionMode: e.PermissionMode}
	}
	delete(b.remind, agentID)
	a := b.agent(agentID)
	if a.Status != "" {
		b.resumed(a, e.Step)
	}
	b.addStep(s)
}

func (b *builder) stepEnded(e *transcript.Event) {
	s := b.steps[e.Step]
	if s == nil {
		// Its step_started was lost: start it where it ended.
		b.stepStarted(&transcript.Event{Time: e.Time.Add(-time.Duration(e.DurationMS) * time.Millisecond),
			Agent: e.Agent, Step: e.Step, State: e.State, Session: e.Session, Attempt: e.Attempt})
		s = b.steps[e.Step]
	}
	b.ended[s.Name] = true
	s.Ended = e.Time
	s.Duration = max(s.Ended.Sub(s.Started), 0)
	s.Outcome = e.Outcome
	// Before not_started was written, a step that could not start ended
	// with no outcome.
	s.NotStarted = e.NotStarted || e.Outcome == ""
	if s.Outcome == "usage limit" {
		b.limited = append(b.limited, s)
	}
	s.Error = e.Message
	if e.Session != "" {
		s.Session = e.Session
	}
	if e.CostUSD != nil {
		s.CostUSD = *e.CostUSD
	}
	s.Tokens.Input, s.Tokens.Output = e.InputTokens, e.OutputTokens
}

func (b *builder) transition(e *transcript.Event) {
	s := b.steps[e.Step]
	a := b.agent(e.Agent)
	v := b.visitOf[e.Step]
	if v == nil {
		v = b.open[a.ID]
	}
	if s != nil {
		s.Tag, s.Target = e.Tag, e.Target
		if e.Tag == "result" {
			s.Result = e.Payload
		}
	}
	if v != nil {
		v.Exit, v.Target = e.Tag, e.Target
		if e.Tag == "result" {
			v.Result = e.Payload
		}
	}
	b.open[a.ID] = nil
	if e.Target != "" {
		b.visit(a, e.Target, e.Tag, e.Depth)
	}
}

// visitCap closes the visit the transition into a capped state opened:
// it ran no step, because of the cap, and the agent went on by the
// state's on_max_visits, which opens a visit at its target (a return, for
// a result that pops the stack).
func (b *builder) visitCap(e *transcript.Event) {
	a := b.agent(e.Agent)
	v := b.open[a.ID]
	depth := 0
	if v != nil && len(v.Steps) == 0 && sameState(v.State, e.State) {
		v.NotRun = fmt.Sprintf("visit cap %d reached", e.Max)
		v.Exit, v.Target = "on_max_visits", e.Target
		depth = v.Depth
	}
	b.open[a.ID] = nil
	switch {
	case e.Target == "":
	case e.Tag == "result":
		b.visit(a, e.Target, "result", max(depth-1, 0))
	default:
		b.visit(a, e.Target, "on_max_visits", depth)
	}
}

func (b *builder) spawn(e *transcript.Event) {
	parent := e.Parent
	if parent == "" {
		parent = e.Agent
	}
	if v := b.visitOf[e.Step]; v != nil {
		v.Spawned = append(v.Spawned, e.Child)
	}
	c := b.agent(e.Child)
	c.Parent, c.SpawnStep, c.Started = parent, e.Step, e.Time
	b.visit(c, e.State, "fork", 0)
}

// sameState reports whether a visit's state, as a transition named it,
// is the state a step ran: a state in another workflow is named
// "scope/STATE.md" by the transition and "STATE.md" by its steps.
func sameState(visit, step string) bool {
	return visit == step || strings.HasSuffix(visit, "/"+step)
}

// warningText is a warning event as one line.
func warningText(e *transcript.Event) string {
	var parts []string
	for _, p := range []string{e.Agent, report.Warning(e)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ": ")
}

// splitName splits a step name, <agent>_<stem>_<NNN>, into the agent, the
// state's stem and the seq. agent, when known, settles where the agent id
// ends (both an agent id and a stem may hold underscores); otherwise the
// longest prefix of the form main_xxx1_yyy2 is taken as the agent.
func splitName(name, agent string) (agentID, stem string, seq int) {
	rest := name
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if n, err := strconv.Atoi(name[i+1:]); err == nil {
			seq, rest = n, name[:i]
		}
	}
	if agent != "" {
		if s, ok := strings.CutPrefix(rest, step.NamePart(agent, step.MaxAgentPart)+"_"); ok {
			return agent, s, seq
		}
		return agent, rest, seq
	}
	parts := strings.Split(rest, "_")
	n := 1
	for n < len(parts)-1 && forkSegment(parts[n]) {
		n++
	}
	return strings.Join(parts[:n], "_"), strings.Join(parts[n:], "_"), seq
}

// forkSegment reports whether s looks like the part a fork adds to an agent
// id: lower-case letters and digits, with a letter, ending in a digit
// (review1, worker12).
func forkSegment(s string) bool {
	if s == "" || s[len(s)-1] < '0' || s[len(s)-1] > '9' {
		return false
	}
	letter := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c < '0' || c > '9':
			return false
		}
	}
	return letter
}
