package orchestrator

import (
	"os"
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
		Cwd:          s.Cwd,
		TotalCostUSD: c.TotalCostUSD, Runner: step.RunnerName(g.runner),
	}
	if !l.st.Script { // a script has no session (protocol §11.4)
		meta.SessionMode, meta.ResumedSession = string(s.Mode), s.ResumeSession
		meta.MCPServers = s.MCPServers
	}
	if d, ok := g.runner.(step.Describer); ok && !l.st.Script {
		meta.Argv = d.Argv(l.req)
	}
	// A runner that ran a process of its own (a script) says what it ran.
	if res.Runner != "" {
		meta.Runner = res.Runner
	}
	if res.Argv != nil {
		meta.Argv = res.Argv
	}
	meta.Env = res.Env
	if res.TimeoutFrom != "" {
		meta.Timeout, meta.TimeoutFrom = step.Duration(res.Timeout), res.TimeoutFrom
	}
	if res.NotStarted {
		meta.Outcome, meta.Error = res.Class, res.Reason
		meta.Started, meta.Ended = res.Started, res.Started
	} else {
		meta.SessionID, meta.LastMessage = res.SessionID, res.LastMessage
		meta.Started, meta.Ended = res.Started, res.Ended
		meta.DurationMS = res.Ended.Sub(res.Started).Milliseconds()
		meta.ExitCode, meta.Signal = res.ExitCode, res.Signal
		meta.Outcome = res.Class
		meta.Usage, meta.NumTurns = res.Usage, res.Turns
		meta.Model, meta.ClaudeVersion = res.Model, res.Version
		meta.StderrTail = res.Stderr
		meta.CostUSD = c.CostUSD
		meta.Checkpoint = l.checkpoint
		if l.decideErr != nil {
			meta.Error = l.decideErr.Error()
		}
	}
	log := l.log
	spool := ""
	if g.tr == nil {
		spool = l.req.Spool // no transcript keeps it
	}
	g.steps.Go(func() {
		<-l.ready
		log.Close(meta)
		if spool != "" {
			_ = os.Remove(spool)
		}
	})
}

// summary is the closing event of a Drive: status, time, steps, agents,
// cost, and why each failed agent failed. It is live: it comes after
// run_ended, which readers of events.jsonl take as the end of the run.
func (g *driving) summary() transcript.Event {
	r := g.m.Run()
	e := transcript.Event{Type: transcript.EventSummary, Run: r.WorkflowID, Status: string(r.Status),
		DurationMS: nowFunc().Sub(g.started).Round(time.Millisecond).Milliseconds(),
		Agents:     len(r.Agents), TotalCostUSD: ptr(r.TotalCostUSD), BudgetUSD: r.BudgetUSD}
	for i := range r.Agents {
		a := &r.Agents[i]
		e.Steps += a.Steps
		if a.Status == state.AgentFailed {
			e.Failures = append(e.Failures, transcript.Failure{Agent: a.ID, State: a.CurrentState, Error: a.LastError})
		}
	}
	if g.m.Err() == nil { // otherwise Drive's caller shows the error
		e.Message = r.Error
	}
	return e
}
