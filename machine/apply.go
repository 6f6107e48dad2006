package machine

import (
	"fmt"
	"strings"
	"time"

	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// stepEnded applies the end of a step: it books the step's cost, then
// decides what the agent does next — a transition, a reminder, a retry
// after a back-off, a wait for the usage limit, a stop — or fails it.
func (m *Machine) stepEnded(ev StepEnded) []Effect {
	a := m.agent(ev.Agent)
	if a == nil || a.Pending == nil {
		return nil
	}
	m.release(ev.Agent)
	m.touch(a.ID)
	s := a.Pending
	ran := *s
	res := ev.Result
	cost := m.book(res)
	m.learnModel(ran, res)
	out := []Effect{
		StepClosed{Agent: a.ID, Seq: ev.Seq, Name: ev.Name, Step: ran, CostUSD: cost, TotalCostUSD: m.run.TotalCostUSD},
		Emit{Event: m.endedEvent(ev, ran, cost)},
	}
	out = append(out, m.checkpointed(a, ev)...)
	if a.Workspace != nil && res.Outcome == step.Succeeded && len(a.Workspace.Conflicts) > 0 {
		a.Workspace.Conflicts = nil // the step was told (merge_conflicts)
	}
	return append(out, m.decide(a, ev, cost)...)
}

// endedEvent is the step_ended event of a step.
func (m *Machine) endedEvent(ev StepEnded, s state.Step, cost float64) transcript.Event {
	res := ev.Result
	e := transcript.Event{Time: ev.Now, Type: transcript.EventStepEnded, Agent: ev.Agent, Step: ev.Name, State: s.State, Attempt: s.Attempt}
	if res.NotStarted {
		e.NotStarted = true
		if res.Outcome == step.Canceled {
			e.Outcome = res.Class
		}
		return e
	}
	e.Session, e.Outcome, e.DurationMS = res.SessionID, res.Class, res.Ended.Sub(res.Started).Milliseconds()
	e.InputTokens, e.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
	e.CostUSD = ptr(cost)
	e.TotalCostUSD = ptr(m.run.TotalCostUSD)
	if ev.DecideErr != nil {
		e.Message = ev.DecideErr.Error()
	}
	return e
}

// decide is what follows the end of a step for its agent.
func (m *Machine) decide(a *state.Agent, ev StepEnded, cost float64) []Effect {
	s := a.Pending
	res := ev.Result
	if !res.NotStarted || res.Outcome != step.Transient {
		delete(m.startFails, a.ID)
	}
	switch {
	case res.Outcome == step.Canceled:
		// Before or after its process started: it runs again on resume.
		m.ready(a)
		return []Effect{deferred(a, ev.Now, "canceled")}
	case res.NotStarted && res.Outcome == step.Unusable:
		m.ready(a)
		return m.unusable(a, ev.Now, res)
	case res.NotStarted && res.Outcome == step.Transient:
		return m.startLater(a, ev.Now, ev.Name, ev.Result.Class, ev.Result.Reason)
	case res.NotStarted:
		m.ready(a)
		return m.fail(a, ev.Now, stateReason(s.State, res.Reason))
	case res.Outcome == step.Succeeded && ev.DecideErr == nil:
		m.limitStreak = 0
		return m.transition(a, ev, cost)
	case res.Outcome == step.Succeeded:
		m.limitStreak = 0
		return m.refused(a, ev)
	case res.Outcome == step.UsageLimit:
		return m.usageLimit(a, ev)
	case res.Outcome == step.Transient && res.Overloaded:
		if next := m.nextModel(s, res, ev.Now); next != "" {
			return []Effect{m.fellBack(a, ev, whyOverloaded, next)}
		}
		return m.retry(a, ev)
	case res.Outcome == step.Unusable:
		m.ready(a)
		return m.unusable(a, ev.Now, res)
	case res.Outcome == step.BudgetExhausted && overBudget(m.run):
		m.ready(a)
		return []Effect{deferred(a, ev.Now, "exhausted")}
	case res.Outcome == step.BudgetExhausted && m.run.BudgetUSD > 0:
		// Stopped at its share while other steps held the rest: it runs
		// again, from the start, once what they leave is unreserved. Each
		// such stop spends at least minShare, so this ends.
		m.ready(a)
		return []Effect{deferred(a, ev.Now, "share")}
	case res.Outcome == step.Transient, res.Outcome == step.BudgetExhausted:
		return m.retry(a, ev)
	default:
		return m.fail(a, ev.Now, stateReason(s.State, res.Reason))
	}
}

// stateReason is a failed step's reason prefixed with its state, unless
// the reason names the state first already, as a script's does ("POLL.sh
// exited with status 3"): "POLL.sh: POLL.sh exited …" says it twice.
func stateReason(state, reason string) string {
	if strings.HasPrefix(reason, state+" ") {
		return reason
	}
	return state + ": " + reason
}

// unusable stops the run: the runner cannot run any step until the user
// acts. The agent's step stays pending for the resume.
func (m *Machine) unusable(a *state.Agent, now time.Time, res step.Result) []Effect {
	cause := res.Err
	if cause == nil {
		cause = fmt.Errorf("%s", res.Reason)
	}
	m.stop(fmt.Errorf("%w: %w", ErrUnusable, cause), transcript.Event{})
	return []Effect{Emit{Event: transcript.Event{Time: now, Type: transcript.EventPaused, Agent: a.ID, Message: res.Reason}}}
}

// fail ends an agent as failed with reason; its pending step stays, so a
// resume can retry it. The reason, which names the state, is led by the
// workflow's name ("workflow review: CHECK.md: …") unless it names it
// already, as an error of workflow.Scope.Load does.
func (m *Machine) fail(a *state.Agent, now time.Time, reason string) []Effect {
	ref := a.Ref()
	if a.Pending != nil {
		ref = a.Pending.Ref
	}
	if !strings.HasPrefix(reason, "workflow ") {
		reason = "workflow " + m.workflowOf(ref) + ": " + reason
	}
	m.touch(a.ID)
	m.end(a, state.AgentFailed)
	a.LastError = reason
	delete(m.notBefore, a.ID)
	delete(m.held, a.ID)
	return []Effect{note(a.ID, transcript.Event{Time: now, Type: transcript.EventAgentFailed, State: a.CurrentState, Message: reason})}
}

// retry runs the step again after a back-off, up to maxRetries times.
func (m *Machine) retry(a *state.Agent, ev StepEnded) []Effect {
	s := a.Pending
	reason := ev.Result.Reason
	if s.Attempt > maxRetries {
		return m.fail(a, ev.Now, fmt.Sprintf("%s: %s (gave up after %d retries)", s.State, reason, maxRetries))
	}
	delay := RetryDelay(s.Attempt)
	s.Attempt++
	m.ready(a)
	a.LastError = reason
	m.notBefore[a.ID] = ev.Now.Add(delay)
	return []Effect{note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventRetry, Step: ev.Name, State: s.State, Attempt: s.Attempt,
		Outcome: ev.Result.Class, Message: reason, Max: maxRetries, DelayMS: delay.Milliseconds()})}
}

// startLater tries again, after a back-off, a step whose process could not
// start for want of descriptors, processes or memory: nothing ran and
// nothing was paid, so it is no attempt and never fails the agent. The
// wait starts at the first retry delay and doubles up to maxStartBackoff,
// for as long as the shortage lasts.
func (m *Machine) startLater(a *state.Agent, now time.Time, name, class, reason string) []Effect {
	s := a.Pending
	n := m.startFails[a.ID]
	m.startFails[a.ID] = n + 1
	delay := min(retryDelays[0]<<min(n, 8), maxStartBackoff)
	m.ready(a)
	a.LastError = reason
	m.notBefore[a.ID] = now.Add(delay)
	return []Effect{note(a.ID, transcript.Event{Time: now, Type: transcript.EventRetry, Step: name, State: s.State, Attempt: s.Attempt,
		Outcome: class, Message: reason, DelayMS: delay.Milliseconds()})}
}

// usageLimit holds the step's model: until the reset plus a margin, or,
// with no reset known (or one already past), 5 minutes doubling up to 2
// hours. The step goes on at once with the next model of its list that no
// limit holds; without one it runs again once its model's limit ends (it
// is not a failed attempt), while steps on other models go on. A limit of
// a model the run does not know holds the whole run.
func (m *Machine) usageLimit(a *state.Agent, ev StepEnded) []Effect {
	now, res, s := ev.Now, ev.Result, a.Pending
	until := res.ResetAt
	if !until.IsZero() {
		until = until.Add(resetMargin)
	}
	if until.After(now) {
		m.limitStreak = 0
	} else {
		wait := limitBackoff << min(m.limitStreak, 5)
		until = now.Add(min(wait, maxLimitBackoff))
		m.limitStreak++
	}
	model, rest := m.modelOf(s), s.Fallbacks
	if n := min(len(res.FellBack), len(s.Fallbacks)); n > 0 {
		// claude went on with its fallbacks by itself: the limit is the
		// last one's.
		model, rest = s.Fallbacks[n-1], s.Fallbacks[n:]
	}
	if model == "" {
		m.ready(a)
		if w := m.run.Wait; w == nil || until.After(w.Until) {
			m.run.Wait = &state.Wait{Until: until, Reason: res.Reason}
		}
		return []Effect{deferred(a, now, "usage limit")}
	}
	m.holdModel(model, until, res.Reason)
	if next := m.nextModel(s, res, now); next != "" {
		return []Effect{m.fellBack(a, ev, whyLimit, next)}
	}
	return m.park(a, now, append([]string{model}, rest...))
}

// refused handles an answer that ran but was refused: with a policy, the
// reminder goes back in the same session, up to maxAttempts answers in
// all; without one, the agent fails.
func (m *Machine) refused(a *state.Agent, ev StepEnded) []Effect {
	s := a.Pending
	a.Attempts = max(a.Attempts, 1)
	reason := ev.DecideErr.Error()
	switch {
	case ev.Fatal:
		return m.fail(a, ev.Now, fmt.Sprintf("%s: %s", s.State, reason))
	case ev.Script:
		return m.fail(a, ev.Now, fmt.Sprintf("%s: %s; a script's output gets no reminder: fix the script", s.State, reason))
	}
	if !ev.Restricted {
		return m.fail(a, ev.Now, fmt.Sprintf("%s: %s; %s has no allowed_transitions, so no reminder was sent", s.State, reason, s.State))
	}
	session := ev.Result.SessionID
	if session == "" {
		session = sessionOf(s)
	}
	a.SessionID = session
	// A failed agent keeps this reminder pending, so a resume answers the
	// last refusal in the same session rather than re-running the state.
	// The reminder is the same step asked again: it keeps the step's input,
	// variables and ask, so that an entry carrying input="{{input}}" taken
	// after it forwards the same input (protocol §6.5).
	a.Pending = &state.Step{
		Ref: s.Ref, Mode: state.SessionResume, ResumeSession: session,
		Cwd: s.Cwd, Reminder: ev.Reminder,
		Attempt: 1, Model: s.Model, Effort: s.Effort,
		Input: s.Input, Vars: s.Vars, Returned: s.Returned, AskID: s.AskID,
		Timeout: s.Timeout, StepTimeout: s.StepTimeout,
		AllowedTools: s.AllowedTools, DisallowedTools: s.DisallowedTools, PermissionMode: s.PermissionMode,
		MaxTurns: s.MaxTurns, LoopWarn: s.LoopWarn, LoopStop: s.LoopStop, NoCycleCheck: s.NoCycleCheck,
	}
	if a.Attempts >= maxAttempts {
		return m.fail(a, ev.Now, fmt.Sprintf("%s: %s (after %d attempts); %s accepts only %s",
			s.State, reason, a.Attempts, s.State, strings.Join(ev.Accepted, ", ")))
	}
	a.Attempts++
	m.ready(a)
	a.LastError = reason
	return []Effect{note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventReminder, Step: ev.Name, State: s.State, Attempt: a.Attempts,
		Message: reason, Max: maxAttempts - 1})}
}

// sessionOf is the session a step ran in when its result names none.
func sessionOf(s *state.Step) string {
	if s.Mode == state.SessionResume {
		return s.ResumeSession
	}
	return s.SessionID
}

// note publishes ev as agent's.
func note(agent string, ev transcript.Event) Effect {
	ev.Agent = agent
	return Emit{Event: ev}
}

// deferred publishes that an agent's step stopped and runs again later:
// outcome is "canceled", "usage limit", "exhausted" (the run's budget) or
// "share" (its share of the budget, while other steps ran).
func deferred(a *state.Agent, now time.Time, outcome string) Effect {
	return note(a.ID, transcript.Event{Time: now, Type: transcript.EventStepDeferred, State: a.Pending.State, Outcome: outcome})
}

// salvaged books the cost of a step whose end was lost with its driver.
func (m *Machine) salvaged(ev Salvaged) []Effect {
	a := m.agent(ev.Agent)
	if a == nil || !ev.Result.Billed {
		return nil
	}
	cost := m.book(ev.Result)
	// Saved with the cost, the agent is no longer running: a resume after
	// a crash that comes before the step runs again books it once only.
	m.touch(a.ID)
	stateName := ""
	if a.Pending != nil {
		stateName = a.Pending.State
	}
	msg := fmt.Sprintf("the step in flight when raymond stopped had ended and cost $%.4f; that is counted, and the step runs again", cost)
	if ev.Result.Unreported {
		msg = fmt.Sprintf("the step in flight when raymond stopped was cut short after spending $%.4f (from claude's session file); that is counted, and the step runs again", cost)
	}
	return []Effect{note(a.ID, transcript.Event{Time: ev.Now, Type: transcript.EventWarning, State: stateName, Message: msg}),
		m.save()}
}
