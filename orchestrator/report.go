package orchestrator

import (
	"fmt"
	"time"

	"raymond/machine"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// closeStep writes the record of a step whose end the machine applied:
// its meta.json, closed in the step's goroutine group so the loop does not
// wait for the disk.
func (g *driving) closeStep(c machine.StepClosed) {
	l := g.launches[c.Agent]
	delete(g.launches, c.Agent)
	if l == nil {
		return
	}
	s, res := c.Step, l.res
	meta := transcript.Meta{
		Agent: c.Agent, State: s.State, Seq: c.Seq, Attempt: s.Attempt, Reminder: s.Reminder != "",
		Cwd: s.Cwd, SessionMode: string(s.Mode), ResumedSession: s.ResumeSession,
		TotalCostUSD: c.TotalCostUSD, Runner: step.RunnerName(g.runner),
	}
	if d, ok := g.runner.(step.Describer); ok {
		meta.Argv = d.Argv(l.req)
	}
	if res.NotStarted {
		meta.Outcome, meta.Error = res.Class, res.Reason
		meta.Started, meta.Ended = res.Started, res.Started
	} else {
		meta.SessionID = res.SessionID
		meta.Started, meta.Ended = res.Started, res.Ended
		meta.DurationMS = res.Ended.Sub(res.Started).Milliseconds()
		meta.ExitCode, meta.Signal = res.ExitCode, res.Signal
		meta.Outcome = res.Class
		meta.Usage, meta.NumTurns = res.Usage, res.Turns
		meta.Model, meta.ClaudeVersion = res.Model, res.Version
		meta.StderrTail = res.Stderr
		meta.CostUSD = c.CostUSD
		if l.decideErr != nil {
			meta.Error = l.decideErr.Error()
		}
	}
	log := l.log
	g.steps.Go(func() {
		<-l.ready
		log.Close(meta)
	})
}

// summary writes the closing lines of a Drive: status, time, steps, agents,
// cost, and why each failed agent failed.
func (g *driving) summary() {
	r := g.m.Run()
	steps := 0
	for i := range r.Agents {
		steps += r.Agents[i].Steps
	}
	took := nowFunc().Sub(g.started).Round(time.Millisecond)
	msg := fmt.Sprintf("run %s %s in %s: %s, %s, %s", r.WorkflowID, r.Status, took,
		count(steps, "step"), count(len(r.Agents), "agent"), machine.Money(r.TotalCostUSD))
	if r.BudgetUSD > 0 {
		msg += " of " + machine.Money(r.BudgetUSD)
	}
	if r.Error != "" && g.m.Err() == nil { // Drive's caller shows the error
		msg += "\n" + r.Error
	}
	for i := range r.Agents {
		if a := &r.Agents[i]; a.Status == state.AgentFailed {
			msg += fmt.Sprintf("\n  %s failed at %s: %s", a.ID, a.CurrentState, a.LastError)
		}
	}
	g.out.line("", msg, true)
}

func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
