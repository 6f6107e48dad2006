package machine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"raymond/permission"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// begin makes the run ready to be driven: steps in flight when the last
// driver stopped run again, failed agents with a step left are retried.
func (m *Machine) begin(ev Begin) []Effect {
	r := m.run
	m.onAsk = ev.OnAsk
	resumed := r.Status != state.StatusCreated
	var answered []string
	for i := range r.Agents {
		a := &r.Agents[i]
		switch a.Status {
		case state.AgentAsking:
			switch {
			case a.Ask == nil:
				// A hand-edited file: nothing to wait for; run the state again.
				a.Status = state.AgentFailed
				a.LastError = "asking without an ask in the state file"
			case a.Ask.Answer != nil:
				answered = append(answered, a.ID)
			case a.Ask.Expired:
				a.Status = state.AgentFailed
			}
		case state.AgentRunning:
			a.Status = state.AgentReady
		case state.AgentFailed:
			if a.Pending != nil {
				a.Status = state.AgentReady
				a.Attempts = 0
				a.Pending.Attempt = 1
			}
		}
	}
	m.reindex()
	for i := range r.Agents { // in the order they were created
		if a := &r.Agents[i]; a.Status == state.AgentReady && a.Pending != nil {
			m.enqueue(a.ID)
		}
	}
	r.Status = state.StatusRunning
	r.Error = ""
	r.PID = ev.PID
	kind := transcript.EventRunStarted
	if resumed {
		kind = transcript.EventRunResumed
	}
	// A workflow from a URL is shown by its URL: the user never named
	// its copy in the registry.
	where := r.ScopeDir
	if r.ScopeURL != "" {
		where = r.ScopeURL
	}
	out := []Effect{Emit{Event: transcript.Event{Time: ev.Now, Type: kind, Run: r.WorkflowID, State: r.EntryState, Message: where}}}
	// Answers recorded while no process drove the run (raymond answer)
	// are used now; the asks still pending are open again, deadlines
	// unchanged.
	for _, id := range answered {
		out = append(out, m.resumeAsked(m.agent(id), ev.Now)...)
	}
	for _, a := range m.pendingAsks() {
		out = append(out, AskOpened{Agent: a.ID, Ask: *a.Ask})
	}
	return out
}

// tick starts what may start, shows a usage-limit wait, and settles the
// run when nothing runs and nothing is left to wait for.
func (m *Machine) tick(now time.Time) []Effect {
	if m.settled {
		return []Effect{Done{}}
	}
	var out []Effect
	var askWake time.Time
	if !m.stopping && len(m.asking) > 0 {
		out, askWake = m.dueAsks(now)
	}
	out = append(out, m.mergesDue()...)
	started, wake := m.schedule(now)
	out = append(out, started...)
	if !askWake.IsZero() && (wake.IsZero() || askWake.Before(wake)) {
		wake = askWake
	}
	if len(m.running) == 0 {
		if done := m.settle(now); done != nil {
			return append(out, done...) // settling saves
		}
	}
	if len(m.dirty) > 0 || len(m.costed) > 0 {
		out = append(out, m.save())
	}
	if !wake.IsZero() {
		out = append(out, Wake{At: wake})
	}
	return out
}

// schedule picks the agents whose steps start now, up to the run's
// max_parallel steps at a time: agents start in the order they became
// ready (an agent whose retry back-off ends joins the queue then). It
// returns their Prepare effects and when to look again for a back-off or a
// wait that ends.
func (m *Machine) schedule(now time.Time) (out []Effect, wake time.Time) {
	r := m.run
	if m.stopping || !m.active() || overBudget(r) {
		return nil, time.Time{}
	}
	if w := r.Wait; w != nil {
		switch {
		case now.Before(w.Until) && r.Options.NoWait:
			return nil, time.Time{}
		case now.Before(w.Until) && w.Model == "":
			return m.waiting(now, w)
		case now.Before(w.Until):
			// One model's limit: the steps on other models go on
			// meanwhile, and those on it are parked until it ends.
			out, wake = m.waiting(now, w)
		default:
			r.Wait = nil
			r.Status = state.StatusRunning
			out = append(out, Emit{Event: transcript.Event{Time: now, Type: transcript.EventWaitOver}})
		}
	}
	if next := m.dueBackoffs(now); wake.IsZero() || !next.IsZero() && next.Before(wake) {
		wake = next
	}
	maxPar := max(r.Options.MaxParallel, 1)
	var round []*state.Agent
	for len(m.running)+len(round) < maxPar {
		id, ok := m.dequeue()
		if !ok {
			break
		}
		a := m.agent(id)
		if a == nil || a.Status != state.AgentReady || a.Pending == nil || m.running[id] || slices.Contains(round, a) {
			continue // no longer ready: ended, or already started
		}
		if _, waiting := m.notBefore[id]; waiting {
			continue // it joins the queue again when its back-off ends
		}
		round = append(round, a)
	}
	for _, a := range m.reserve(round) {
		m.running[a.ID] = true
		if m.wantsMerge(a) {
			// Its workers' branches come back first, at this step
			// boundary; Merged prepares the step.
			out = append(out, m.mergeOf(a))
			continue
		}
		out = append(out, Prepare{Agent: a.ID, Step: *a.Pending, Vars: Vars(r, a)})
	}
	return out, wake
}

// dueBackoffs moves the agents whose retry back-off has ended to the ready
// queue, earliest first, and returns when the next one ends (zero for none).
func (m *Machine) dueBackoffs(now time.Time) (next time.Time) {
	var due []string
	for id, t := range m.notBefore {
		if now.Before(t) {
			if next.IsZero() || t.Before(next) {
				next = t
			}
			continue
		}
		due = append(due, id)
	}
	slices.SortFunc(due, func(a, b string) int {
		if c := m.notBefore[a].Compare(m.notBefore[b]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	for _, id := range due {
		delete(m.notBefore, id)
		delete(m.held, id)
		m.enqueue(id)
	}
	return next
}

// prepared turns the prepared steps into Starts, after one Save.
func (m *Machine) prepared(ev Prepared) []Effect {
	var out, starts []Effect
	for _, p := range ev.Steps {
		effects, start := m.prepare(ev.Now, p)
		out = append(out, effects...)
		if start != nil {
			starts = append(starts, *start)
		}
	}
	if len(starts) > 0 || len(m.dirty) > 0 || len(m.costed) > 0 {
		out = append(out, m.save())
	}
	return append(out, starts...)
}

// prepare settles the model and effort of one prepared step, takes the
// fresh session id for a new session or a branch, and counts the step.
func (m *Machine) prepare(now time.Time, p PreparedStep) ([]Effect, *Start) {
	r := m.run
	a := m.agent(p.Agent)
	if a == nil || a.Pending == nil || !m.running[a.ID] {
		return nil, nil
	}
	s := a.Pending
	if p.Script {
		delete(m.reserved, a.ID) // a script costs nothing: its share goes back
	}
	if p.Err != nil {
		m.release(a.ID)
		if step.Exhausted(p.Err) {
			// Out of descriptors reading the state file: try again later.
			return m.startLater(a, now, "", "not started", p.Err.Error()), nil
		}
		return m.fail(a, now, p.Err.Error()), nil
	}
	var out []Effect
	for _, w := range p.Warnings {
		if !slices.Contains(r.Warned, w) {
			r.Warned = append(r.Warned, w)
			out = append(out, note(a.ID, transcript.Event{Time: now, Type: transcript.EventWarning, State: s.State, Message: w}))
		}
	}
	if p.OnConflict != "" && a.Workspace != nil && len(a.Workspace.Conflicts) > 0 && p.OnConflict != s.State && s.Reminder == "" {
		return append(out, m.onConflict(a, now, p.OnConflict)...), nil
	}
	if s.Entry {
		if capped := m.visit(a, now, p); capped != nil {
			m.release(a.ID)
			return append(out, capped...), nil
		}
	}
	if parked := m.chooseModel(a, s, p, now); parked != nil {
		m.release(a.ID)
		return append(out, parked...), nil
	}
	s.Effort = firstOf(p.Effort, r.Options.Effort)
	s.MCPConfig, s.MCPServers = p.MCPConfig, p.MCPServers
	s.StepTimeout, s.Timeout = nil, nil
	if p.StepTimeout != nil {
		s.StepTimeout = ptr(state.Duration(*p.StepTimeout))
	}
	if p.Timeout != nil {
		s.Timeout = ptr(state.Duration(*p.Timeout))
	}
	s.AllowedTools, s.DisallowedTools, s.PermissionMode = p.AllowedTools, p.DisallowedTools, p.PermissionMode
	s.MaxTurns, s.LoopWarn, s.LoopStop, s.NoCycleCheck = p.MaxTurns, p.LoopWarn, p.LoopStop, p.NoCycleCheck
	if p.Script {
		s.Model, s.Effort, s.Fallbacks, s.MCPConfig, s.MCPServers = "", "", nil, "", nil
		s.AllowedTools, s.DisallowedTools, s.PermissionMode = nil, nil, ""
		s.MaxTurns, s.LoopWarn, s.LoopStop = nil, nil, nil
	}
	if permission.Escalates(r.Options.PermissionMode, r.Options.SkipPermissions, s.PermissionMode) {
		m.release(a.ID)
		return append(out, m.fail(a, now, fmt.Sprintf("%s asks for permission_mode %s, which skips every permission check, "+
			"but this run was not started with --dangerously-skip-permissions: a workflow cannot grant itself that; "+
			"start the run with --dangerously-skip-permissions if you trust it, or change the state's permission_mode", s.State, s.PermissionMode))...), nil
	}
	if s.Mode != state.SessionNew && s.ResumeSession == "" {
		// The agent has no session to resume or branch (a script step
		// started it): a new one starts (protocol §11.4).
		s.Mode = state.SessionNew
	}
	if cut, ok := r.Rewound.Cut(s.ResumeSession); ok && s.Mode != state.SessionNew {
		// A session of the original run, as it stood before the step
		// rewound to: branched there, never resumed in place.
		s.Mode, s.ResumeAt = state.SessionBranch, cut
	}
	if s.Mode != state.SessionResume {
		s.SessionID = p.SessionID
	}
	if o := s.Override; o != nil {
		s.Model, s.Effort = firstOf(o.Model, s.Model), firstOf(o.Effort, s.Effort)
	}
	if s.Model == "" && !p.Script && s.Mode != state.SessionNew && s.ResumeSession != r.ContinueSession {
		// No model named and none learned yet, in a session an earlier
		// step may have run on a state's model: without --model, Claude
		// Code would stay on that one. "default" is its own default.
		s.Model = ClaudeDefaultModel
	}
	if s.Attempt == 0 {
		s.Attempt = 1
	}
	a.Steps++
	a.Status = state.AgentRunning
	a.CurrentState = s.State
	if a.Attempts == 0 {
		a.Attempts = 1
	}
	m.touch(a.ID)
	prompt := s.Reminder
	if prompt == "" {
		prompt = p.Prompt
	}
	s.Process = nil // the process of an earlier attempt, if any
	req := m.request(a)
	req.Prompt = prompt
	return out, &Start{Request: req}
}

// ClaudeDefaultModel is the --model alias that names Claude Code's own
// default model (the one it runs without --model on a new session).
const ClaudeDefaultModel = "default"

// learnModel keeps, as the run's DefaultModel, the model Claude Code ran
// the first step on that named no model of its own (or named only
// "default"): from then on, steps that name none pass it explicitly.
func (m *Machine) learnModel(ran state.Step, res step.Result) {
	r := m.run
	if r.DefaultModel != "" || ran.Model != "" && ran.Model != ClaudeDefaultModel {
		return
	}
	if res.Model != "" && res.Model != "<synthetic>" {
		r.DefaultModel = res.Model
	}
}

// saveFailed stops the run: its state cannot be written. The steps held for
// that save do not start.
func (m *Machine) saveFailed(ev SaveFailed) []Effect {
	for _, id := range ev.Held {
		if a := m.agent(id); a != nil && m.running[id] {
			a.Steps--
			m.release(id)
			m.ready(a)
		}
		m.touch(id)
	}
	return m.stop(fmt.Errorf("save run state: %w", ev.Err), transcript.Event{Type: transcript.EventStopping, Message: ev.Err.Error()})
}

// settle decides the run's status when nothing runs: completed or failed
// when every agent has ended, paused when stopping, budget_exceeded, paused
// at a usage limit with --no-wait. It returns nil while the run still
// waits (a usage-limit reset, a back-off).
func (m *Machine) settle(now time.Time) []Effect {
	r := m.run
	if m.finished() {
		m.settled = true
		if r.Status != state.StatusCompleted || r.BudgetUSD <= 0 || r.TotalCostUSD <= r.BudgetUSD {
			return []Effect{m.save(), Done{}}
		}
		// Every agent ended, but past the budget (a step's last API request
		// went over its cap, a cost read back after a crash): the run is not
		// reported completed. Its result is kept; resumed with a higher
		// budget, it completes without running a step.
		r.Status = state.StatusBudgetExceeded
		r.Error = budgetReached(r)
		return []Effect{
			Emit{Event: transcript.Event{Time: now, Type: transcript.EventBudgetExceeded, Status: string(r.Status), Message: r.Error}},
			m.save(),
			Done{},
		}
	}
	switch {
	case m.stopping:
		r.Status = state.StatusPaused
		if m.err != nil {
			r.Error = m.err.Error()
		}
	case overBudget(r):
		r.Status = state.StatusBudgetExceeded
		r.Error = budgetReached(r)
	case r.Wait != nil && r.Options.NoWait:
		r.Status = state.StatusPaused
		r.Error = "usage limit: " + r.Wait.Reason
	case len(m.notBefore) > 0:
		return nil
	case len(m.asking) > 0 && (m.onAsk != AskPrompt || m.noAnswers):
		// Nobody here answers: the run waits for answers rather than
		// sleeping through a usage-limit wait too (protocol §15.3).
		r.Status = state.StatusAsking
		r.Error = ""
	case r.Wait != nil:
		return nil
	case len(m.asking) > 0:
		return nil // a person is being asked; a deadline wakes the run
	default:
		r.Status = state.StatusPaused
		r.Error = "internal error: agents are ready but none could start"
	}
	m.settled = true
	kind, msg := transcript.EventPaused, r.Error
	switch r.Status {
	case state.StatusBudgetExceeded:
		kind = transcript.EventBudgetExceeded
	case state.StatusAsking:
		kind = transcript.EventAsking
		msg = fmt.Sprintf("%d asks wait for an answer", len(m.asking))
		if len(m.asking) == 1 {
			msg = "1 ask waits for an answer"
		}
	}
	return []Effect{
		Emit{Event: transcript.Event{Time: now, Type: kind, Status: string(r.Status), Message: msg}},
		m.save(),
		Done{},
	}
}

// waiting shows a usage-limit wait: a message when it starts, then a
// countdown every 30 minutes while more than 2 hours are left, every 10
// minutes, then every minute. It returns when to look again.
func (m *Machine) waiting(now time.Time, w *state.Wait) ([]Effect, time.Time) {
	r := m.run
	left := w.Until.Sub(now)
	var out []Effect
	if r.Status != state.StatusWaiting || !m.waitShown.Equal(w.Until) {
		r.Status = state.StatusWaiting
		m.waitShown = w.Until
		out = append(out, m.save(),
			Emit{Event: transcript.Event{Time: now, Type: transcript.EventWait, Until: ptr(w.Until), Message: w.Reason, Model: w.Model}})
	} else if !now.Before(m.nextTick) {
		out = append(out, Emit{Event: transcript.Event{Time: now, Type: transcript.EventWaitTick, Until: ptr(w.Until)}})
	} else {
		return nil, m.nextTick
	}
	tick := 10 * time.Minute
	switch {
	case left <= 10*time.Minute:
		tick = time.Minute
	case left > 2*time.Hour:
		tick = 30 * time.Minute
	}
	m.nextTick = now.Add(tick)
	if left <= tick {
		m.nextTick = w.Until
	}
	return out, m.nextTick
}
