package machine

import (
	"errors"
	"time"

	"raymond/claude"
	"raymond/parsing"
	"raymond/report"
	"raymond/state"
	"raymond/step"
	"raymond/workflow"
)

// The tables of apply_test.go were written against the orchestrator's
// stepDone and effect before the machine had a package of its own. This
// harness keeps them as written: stepDone is a step's end as the claude
// runner reports it (a *claude.Result, or an error that kept it from
// starting) plus what the step's goroutine decided, and apply turns it into
// the StepEnded event the driver sends — the result put in neutral terms by
// claude.Neutral with the session's prior cost from the run, the reminder
// and the accepted tags from the policy — then reads the effects back.

type stepDone struct {
	agent     string
	seq       int
	name      string
	res       *claude.Result
	startErr  error
	tr        parsing.Transition
	decideErr error
	policy    workflow.Policy
	cwds      []string
}

type effectKind int

const (
	effectNote effectKind = iota + 1
	effectStop
)

type effect struct {
	kind  effectKind
	event struct{ Type string }
	line  string
}

func (m *Machine) apply(d stepDone, now time.Time) []effect {
	ev := StepEnded{Agent: d.agent, Seq: d.seq, Name: d.name, Now: now, Transition: d.tr, DecideErr: d.decideErr, Cwds: d.cwds,
		Restricted: d.policy.Restricted()}
	if d.decideErr != nil {
		ev.Reminder = workflow.Reminder(d.decideErr, d.policy)
		ev.Accepted = d.policy.Accepted()
	}
	req := step.Request{Agent: d.agent}
	if a := m.agent(d.agent); a != nil && a.Pending != nil {
		req.Step = *a.Pending
		if a.Pending.Mode != state.SessionNew {
			req.PriorCostUSD, req.PriorCostKnown = m.run.SessionCosts[a.Pending.ResumeSession]
		}
	}
	switch {
	case d.startErr != nil && errors.Is(d.startErr, claude.ErrNotFound):
		ev.Result = step.NotStarted(step.Unusable, d.startErr)
	case d.startErr != nil:
		ev.Result = step.StartFailed(d.startErr)
	default:
		ev.Result = claude.Neutral(d.res, req)
	}
	stopped := m.err
	var out []effect
	for _, e := range m.Apply(ev) {
		switch e := e.(type) {
		case Emit:
			if m.err != stopped && e.Event.Type == "paused" {
				out = append(out, effect{kind: effectStop, line: e.Event.Message})
				continue
			}
			var fx effect
			fx.kind, fx.event.Type = effectNote, e.Event.Type
			fx.line, _ = report.Progress(&e.Event)
			if e.Event.Type == "step_ended" {
				continue // written by the orchestrator's closeStep before
			}
			out = append(out, fx)
		}
	}
	return out
}
