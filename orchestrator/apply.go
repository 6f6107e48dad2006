package orchestrator

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"raymond/claude"
	"raymond/state"
	"raymond/transcript"
	"raymond/workflow"
)

// apply turns a finished step into the agent's next state and returns what
// to report. It books the step's cost first: a step that failed may still
// have cost money.
func (m *machine) apply(ev stepDone, now time.Time) []effect {
	a := m.run.Agent(ev.agent)
	if a == nil || a.Pending == nil {
		return nil
	}
	delete(m.running, ev.agent)
	m.touch(a.ID)
	s := a.Pending
	cost := m.cost(s, ev.res)

	if ev.startErr != nil {
		return m.startFailed(a, ev)
	}
	res := ev.res
	switch {
	case res.Outcome == claude.Success && ev.decideErr == nil:
		m.limitStreak = 0
		return m.transition(a, ev, cost, now)
	case res.Outcome == claude.Success:
		m.limitStreak = 0
		return m.protocolError(a, ev, now)
	case res.Outcome == claude.Canceled:
		// Killed by a second signal: the step runs again on resume.
		a.Status = state.AgentReady
		return []effect{say(a.ID, fmt.Sprintf("%s: step stopped; it runs again on resume", s.State))}
	case res.Outcome == claude.UsageLimit:
		return m.usageLimit(a, ev, now)
	case res.RootRefused, res.Outcome == claude.AuthError, res.Outcome == claude.BillingError:
		a.Status = state.AgentReady
		return []effect{{kind: effectStop, agent: a.ID, line: unusableReason(res)}}
	case res.Outcome == claude.Exhausted && res.Subtype == budgetSubtype && overBudget(m.run):
		// The step hit the cap raymond gave it: what is left of the run's
		// budget. The run stops as budget_exceeded; the step runs again
		// when it is resumed with a higher budget.
		a.Status = state.AgentReady
		return []effect{say(a.ID, fmt.Sprintf("%s: stopped at the run's budget; it runs again when the run is resumed with a higher --budget", s.State))}
	case res.Outcome.Transient(), res.Outcome == claude.Exhausted && res.Subtype == budgetSubtype:
		return m.retry(a, ev, now)
	default:
		return m.fail(a, fmt.Sprintf("%s: %s", s.State, outcomeReason(res)))
	}
}

// budgetSubtype is the result subtype of a step stopped by --max-budget-usd.
const budgetSubtype = "error_max_budget_usd"

// startFailed handles a step whose runner could not start it.
func (m *machine) startFailed(a *state.Agent, ev stepDone) []effect {
	a.Status = state.AgentReady
	if errors.Is(ev.startErr, claude.ErrNotFound) {
		return []effect{{kind: effectStop, agent: a.ID, line: ev.startErr.Error(), err: ev.startErr}}
	}
	return m.fail(a, fmt.Sprintf("%s: %v", a.Pending.State, ev.startErr))
}

// fail ends the agent as failed; its pending step stays so that resume can
// run it again.
func (m *machine) fail(a *state.Agent, reason string) []effect {
	m.touch(a.ID) // begin fails agents too, outside apply
	a.Status = state.AgentFailed
	a.LastError = reason
	delete(m.notBefore, a.ID)
	return []effect{note(a.ID, transcript.Event{Type: transcript.EventAgentFailed, State: a.CurrentState, Message: reason},
		"failed: "+reason, true)}
}

// retry runs a transiently failed step again after a back-off, or fails the
// agent when its retries are used up.
func (m *machine) retry(a *state.Agent, ev stepDone, now time.Time) []effect {
	s := a.Pending
	reason := outcomeReason(ev.res)
	if s.Attempt > maxRetries {
		return m.fail(a, fmt.Sprintf("%s: %s (gave up after %d retries)", s.State, reason, maxRetries))
	}
	delay := retryDelays[max(s.Attempt, 1)-1]
	s.Attempt++
	a.Status = state.AgentReady
	a.LastError = reason
	m.notBefore[a.ID] = now.Add(delay)
	return []effect{note(a.ID, transcript.Event{Type: transcript.EventRetry, Step: ev.name, State: s.State, Attempt: s.Attempt, Outcome: ev.res.Outcome.String(), Message: reason},
		fmt.Sprintf("%s: %s; retry %d of %d in %s", s.State, reason, s.Attempt-1, maxRetries, delay), true)}
}

// usageLimit makes the whole run wait for the limit's reset; the step runs
// again afterwards.
func (m *machine) usageLimit(a *state.Agent, ev stepDone, now time.Time) []effect {
	a.Status = state.AgentReady
	until := ev.res.ResetAt
	if !until.IsZero() {
		until = until.Add(resetMargin)
	}
	if until.After(now) {
		m.limitStreak = 0
	} else {
		// No reset announced, or one already past (a clock that is off,
		// a stale rate_limit_event): back off, longer each time, rather
		// than run the step again at once and hit the limit again.
		wait := limitBackoff << min(m.limitStreak, 5)
		until = now.Add(min(wait, maxLimitBackoff))
		m.limitStreak++
	}
	// Several steps may hit the limit; the run waits for the latest reset.
	if w := m.run.Wait; w == nil || until.After(w.Until) {
		m.run.Wait = &state.Wait{Until: until, Reason: firstLine(ev.res.Text)}
	}
	return []effect{say(a.ID, fmt.Sprintf("%s: usage limit reached; the step runs again after the reset", a.Pending.State))}
}

// protocolError reminds the model of the acceptable tags, in the same
// session, or fails the agent when the policy gives nothing to remind of or
// the attempts are used up (§6.2).
func (m *machine) protocolError(a *state.Agent, ev stepDone, now time.Time) []effect {
	s := a.Pending
	a.Attempts = max(a.Attempts, 1)
	reason := ev.decideErr.Error()
	if !ev.policy.Restricted() {
		// Without allowed_transitions there is nothing to remind of; say
		// so, as the fix is as likely in the prompt as in the answer.
		return m.fail(a, fmt.Sprintf("%s: %s; %s has no allowed_transitions, so no reminder was sent", s.State, reason, s.State))
	}
	// The reminder answers this refusal. When the attempts are used up it
	// is still kept as the pending step: a resume sends it, rather than
	// the prompt or reminder this answer already failed.
	session := ev.res.SessionID
	if session == "" {
		session = sessionOf(s)
	}
	a.SessionID = session
	a.Pending = &state.Step{
		Ref: state.Ref{State: s.State}, Mode: state.SessionResume, ResumeSession: session,
		Cwd: s.Cwd, Reminder: workflow.Reminder(ev.decideErr, ev.policy),
		Attempt: 1, Model: s.Model, Effort: s.Effort,
	}
	if a.Attempts >= maxAttempts {
		// Say what the state accepts: the fix is in the answer or in the
		// policy, and the person reading this must see both.
		return m.fail(a, fmt.Sprintf("%s: %s (after %d attempts); %s accepts only %s",
			s.State, reason, a.Attempts, s.State, strings.Join(ev.policy.Accepted(), ", ")))
	}
	a.Attempts++
	a.Status = state.AgentReady
	a.LastError = reason
	return []effect{note(a.ID, transcript.Event{Type: transcript.EventReminder, Step: ev.name, State: s.State, Attempt: a.Attempts, Message: reason},
		fmt.Sprintf("%s: %s; reminder %d of %d", s.State, reason, a.Attempts-1, maxAttempts-1), true)}
}

// sessionOf returns the session a step runs in.
func sessionOf(s *state.Step) string {
	if s.Mode == state.SessionResume {
		return s.ResumeSession
	}
	return s.SessionID
}

// outcomeReason says in a few words why a step did not succeed.
func outcomeReason(res *claude.Result) string {
	var b strings.Builder
	switch res.Outcome {
	case claude.Crash:
		if res.Signal != "" {
			fmt.Fprintf(&b, "claude was killed by %s without an answer", res.Signal)
		} else {
			fmt.Fprintf(&b, "claude exited with status %d without an answer", res.ExitCode)
		}
	case claude.Timeout:
		b.WriteString("claude printed nothing for too long and was stopped (--timeout)")
	case claude.APIError:
		fmt.Fprintf(&b, "API error: %s", firstLine(res.Text))
	case claude.Exhausted:
		fmt.Fprintf(&b, "the step used up its own limit (%s)", res.Subtype)
	case claude.SessionNotFound:
		b.WriteString("claude no longer has the session to resume (was ~/.claude cleaned, or the working directory moved?)")
	case claude.InvocationError:
		b.WriteString("the step could not run: ")
		b.WriteString(firstLine(res.Stderr))
	default:
		b.WriteString(res.Outcome.String())
	}
	if res.Outcome != claude.InvocationError && res.Outcome != claude.APIError {
		if t := firstLine(lastLines(res.Stderr)); t != "" {
			fmt.Fprintf(&b, " (stderr: %s)", t)
		}
	}
	return b.String()
}

// unusableReason explains why no step can run until the user acts.
func unusableReason(res *claude.Result) string {
	switch {
	case res.RootRefused:
		return "claude refuses --dangerously-skip-permissions (and bypassPermissions) when run as root. " +
			"Run raymond as a normal user, or drop --dangerously-skip-permissions and use --permission-mode " +
			"(the default is acceptEdits). If you run inside a sandbox you set up yourself, you may export " +
			"IS_SANDBOX=1 for claude; raymond never sets it for you"
	case res.Outcome == claude.AuthError:
		return "claude is not logged in (" + firstLine(res.Text+res.Stderr) + "). Run `claude` once to log in, then resume the run"
	default:
		return "the account cannot pay for more requests (" + firstLine(res.Text+res.Stderr) + "). Add credit, then resume the run"
	}
}

// firstLine returns the first non-blank line of s, at most 200 bytes.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "…"
			}
			return line
		}
	}
	return ""
}

// lastLines returns the last non-blank line of s.
func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
