package orchestrator

import (
	"context"
	"time"

	"raymond/claude"
	"raymond/state"
	"raymond/transcript"
)

// schedule starts every step that may start now and returns when the loop
// should wake up on its own (zero: only when a step ends).
func (g *driving) schedule(ctx context.Context) (wake time.Time) {
	m := g.m
	r := m.run
	if g.stopping || !m.active() || overBudget(r) {
		return time.Time{}
	}
	now := g.clock.Now()
	if w := r.Wait; w != nil {
		if now.Before(w.Until) {
			if r.Options.NoWait {
				return time.Time{}
			}
			return g.waiting(now, w)
		}
		r.Wait = nil
		r.Status = state.StatusRunning
		g.event(transcript.Event{Type: transcript.EventWaitOver})
		g.out.line("", "usage limit wait over; steps start again", true)
	}
	maxPar := max(r.Options.MaxParallel, 1)
	var launches []*launch
	// The search starts after the agent started last, so that an agent
	// that is ready again at once (a parent going from state to state)
	// cannot keep the slots from the others.
	n, first := len(r.Agents), m.next
	for k := 0; k < n && len(m.running) < maxPar; k++ {
		i := (first + k) % n
		a := &r.Agents[i]
		if a.Status != state.AgentReady || a.Pending == nil || m.running[a.ID] {
			continue
		}
		if t, ok := m.notBefore[a.ID]; ok {
			if now.Before(t) {
				if wake.IsZero() || t.Before(wake) {
					wake = t
				}
				continue
			}
			delete(m.notBefore, a.ID)
		}
		l, effects := m.begin(a)
		g.carry(effects)
		if l != nil {
			launches = append(launches, l)
			m.next = i + 1
		}
	}
	if len(launches) == 0 {
		return wake
	}
	// Everything a step needs is on disk before it starts (§9).
	g.persist()
	if g.stopping { // the write failed
		for _, l := range launches {
			a := r.Agent(l.req.Agent)
			a.Status = state.AgentReady
			a.Steps--
			delete(m.running, a.ID)
		}
		return time.Time{}
	}
	for _, l := range launches {
		g.start(ctx, l)
	}
	return wake
}

// start runs a launched step in a goroutine that reports on g.done.
func (g *driving) start(ctx context.Context, l *launch) {
	req := l.req
	name := req.Name()
	// Creating files is slow on some file systems (0.2 ms each here), so
	// the step's files are made while its process starts; its first line
	// waits for them.
	ready := make(chan struct{})
	tr := g.tr
	g.steps.Go(func() {
		defer close(ready)
		l.log = tr.Step(name)
		l.log.Prompt(req.Prompt)
	})
	g.event(transcript.Event{Type: transcript.EventStepStarted, Agent: req.Agent, Step: name, State: req.Step.State,
		Session: firstOf(req.Step.SessionID, req.Step.ResumeSession), Attempt: req.Step.Attempt})
	g.out.stepStarted(req)
	h := claude.Handler{
		OnEvent: func(e claude.Event) { g.out.live(req.Agent, req.Step.State, e) },
		OnLine: func(raw []byte) {
			<-ready
			l.log.Line(raw)
		},
	}
	scope := g.m.scope
	g.steps.Go(func() {
		done := runStep(ctx, g.runner, scope, l, h)
		<-ready
		done.log = l.log
		g.done <- done
	})
}
