package orchestrator

import (
	"fmt"
	"time"

	"raymond/scripted"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// closeStep writes the meta record of a finished step. s is the step as it
// was pending when it ran.
func (g *driving) closeStep(ev stepDone, s state.Step) {
	res := ev.res
	meta := transcript.Meta{
		Agent: ev.agent, State: s.State, Seq: ev.seq, Attempt: s.Attempt, Reminder: s.Reminder != "",
		Cwd: s.Cwd, SessionMode: string(s.Mode), ResumedSession: s.ResumeSession,
		TotalCostUSD: g.m.run.TotalCostUSD, Runner: runnerName(g.runner),
	}
	if d, ok := g.runner.(step.Describer); ok && ev.req.Agent != "" {
		meta.Argv = d.Argv(ev.req)
	}
	end := transcript.Event{Type: transcript.EventStepEnded, Agent: ev.agent, Step: ev.name, State: s.State, Attempt: s.Attempt}
	switch {
	case ev.startErr != nil:
		meta.Outcome, meta.Error = "not started", ev.startErr.Error()
		meta.Started, meta.Ended = ev.started, ev.started
	case res != nil:
		meta.SessionID = res.SessionID
		meta.Started, meta.Ended = res.Started, res.Ended
		meta.DurationMS = res.Ended.Sub(res.Started).Milliseconds()
		meta.ExitCode, meta.Signal = res.ExitCode, res.Signal
		meta.Outcome = res.Outcome.String()
		meta.Usage, meta.NumTurns = res.Usage, res.NumTurns
		meta.Model, meta.ClaudeVersion = res.Model, res.Version
		meta.StderrTail = res.Stderr
		meta.CostUSD = g.m.lastCost
		if ev.decideErr != nil {
			meta.Error = ev.decideErr.Error()
		}
		end.Session, end.Outcome, end.DurationMS = res.SessionID, meta.Outcome, meta.DurationMS
		end.InputTokens, end.OutputTokens = res.Usage.InputTokens, res.Usage.OutputTokens
		end.CostUSD = ptr(meta.CostUSD)
		end.TotalCostUSD = ptr(g.m.run.TotalCostUSD)
		end.Message = meta.Error
	}
	// The meta file is written aside: the loop has the next step to start.
	log := ev.log
	g.steps.Go(func() { log.Close(meta) })
	g.event(end)
}

// runnerName names the kind of runner for the transcript.
func runnerName(r step.Runner) string {
	switch r.(type) {
	case step.Claude, *step.Claude:
		return "claude"
	case *scripted.Runner:
		return "scripted"
	}
	return fmt.Sprintf("%T", r)
}

// waiting announces and paces a usage-limit wait and returns when to wake:
// at the reset, or earlier to show how long is left.
func (g *driving) waiting(now time.Time, w *state.Wait) time.Time {
	r := g.m.run
	left := w.Until.Sub(now)
	if r.Status != state.StatusWaiting || !g.waitShown.Equal(w.Until) {
		r.Status = state.StatusWaiting
		g.waitShown = w.Until
		g.persistAll()
		g.event(transcript.Event{Type: transcript.EventWait, Until: ptr(w.Until), Message: w.Reason})
		g.out.line("", fmt.Sprintf("usage limit reached (%s); no new step starts until %s (in %s). Ctrl-C pauses the run; resume it later.",
			w.Reason, w.Until.Local().Format("Jan 2 15:04:05"), roundLeft(left)), true)
	} else if !now.Before(g.nextTick) {
		// Only when a tick is due: a step that ends during the wait wakes
		// the loop too, and would repeat the line.
		g.out.line("", fmt.Sprintf("waiting for the usage limit to reset: %s left (until %s)",
			roundLeft(left), w.Until.Local().Format("15:04:05")), true)
	} else {
		return g.nextTick
	}
	tick := 10 * time.Minute
	switch {
	case left <= 10*time.Minute:
		tick = time.Minute
	case left > 2*time.Hour:
		tick = 30 * time.Minute
	}
	g.nextTick = now.Add(tick)
	if left <= tick {
		g.nextTick = w.Until
	}
	return g.nextTick
}

// roundLeft rounds a remaining duration for people.
func roundLeft(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// summary prints the run's last line.
func (g *driving) summary() {
	r := g.m.run
	steps := 0
	for i := range r.Agents {
		steps += r.Agents[i].Steps
	}
	took := nowFunc().Sub(g.started).Round(time.Millisecond)
	msg := fmt.Sprintf("run %s %s in %s: %s, %s, %s", r.WorkflowID, r.Status, took,
		count(steps, "step"), count(len(r.Agents), "agent"), money(r.TotalCostUSD))
	if r.BudgetUSD > 0 {
		msg += " of " + money(r.BudgetUSD)
	}
	if r.Error != "" && g.stopErr == nil { // Drive's caller shows stopErr
		msg += "\n" + r.Error
	}
	for i := range r.Agents {
		if a := &r.Agents[i]; a.Status == state.AgentFailed {
			msg += fmt.Sprintf("\n  %s failed at %s: %s", a.ID, a.CurrentState, a.LastError)
		}
	}
	g.out.line("", msg, true)
}

// count writes n things: "1 step", "3 steps".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
