package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"raymond/state"
	"raymond/step"
	"raymond/transcript"
	"raymond/workflow"
)

// nowFunc is the wall clock of step timings; the Clock drives waits.
var nowFunc = time.Now

// driving is one Drive call: the loop's own variables.
type driving struct {
	d       *Driver
	m       *machine
	journal *state.Journal
	tr      *transcript.Writer
	out     *printer
	clock   Clock
	runner  step.Runner
	done    chan stepDone
	steps   sync.WaitGroup
	// stopping is set once no new step may start: a signal, a persist
	// error, claude unusable.
	stopping bool
	// stopErr is returned by Drive (persist error, claude unusable).
	stopErr error
	started time.Time
	// waitShown is the wait whose start was already announced, and
	// nextTick when its countdown next shows how long is left.
	waitShown time.Time
	nextTick  time.Time
}

func (d *Driver) drive(ctx context.Context, id string, update func(*state.Run) error) (*state.Run, error) {
	if err := state.ValidID(id); err != nil {
		return nil, err
	}
	lock, err := d.Store.Lock(id)
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	r, err := d.Store.Read(id)
	if err != nil {
		return nil, err
	}
	if r.Status == state.StatusCompleted {
		return r, fmt.Errorf("run %s already completed; start a new run instead", id)
	}
	if update != nil {
		if err := update(r); err != nil {
			return nil, err
		}
	}
	scope, err := workflow.OpenDir(r.ScopeDir)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w; put the workflow folder back to go on with the run", id, err)
	}
	defer scope.Close()
	resumed := r.Status != state.StatusCreated
	prepare(r)
	r.PID = os.Getpid()

	g := &driving{d: d, m: newMachine(r), clock: d.Clock, runner: d.Runner, started: nowFunc()}
	g.m.scope = scope
	if g.clock == nil {
		g.clock = clockFromEnv()
	}
	if g.runner == nil {
		g.runner = step.Claude{}
	}
	g.out = newPrinter(d.Progress, d.Prefix, d.Quiet, d.Color)
	if r.Options.Debug && d.DebugDir != "" {
		var once sync.Once
		g.tr = transcript.Open(d.debugDir(id), func(err error) {
			once.Do(func() {
				g.out.line("", fmt.Sprintf("warning: cannot write the transcript (%v); the run goes on without it", err), true)
			})
		})
		defer g.tr.Close()
	}
	if g.journal, err = d.Store.Journal(r); err != nil {
		return nil, err
	}
	kind, verb := transcript.EventRunStarted, "started"
	if resumed {
		kind, verb = transcript.EventRunResumed, "resumed"
	}
	g.event(transcript.Event{Type: kind, State: r.EntryState, Message: r.ScopeDir})
	g.out.line("", fmt.Sprintf("run %s %s: %s", id, verb, r.ScopeDir), true)

	g.loop(ctx)
	g.steps.Wait()

	g.event(transcript.Event{Type: transcript.EventRunEnded, Status: string(r.Status), TotalCostUSD: ptr(r.TotalCostUSD), Message: r.Error})
	g.summary()
	if err := g.journal.Close(); err != nil && g.stopErr == nil {
		g.stopErr = err
	}
	return r, g.stopErr
}

// prepare makes a run read from disk ready to drive: steps that were in
// flight when the last driver died run again, failed agents are retried
// from the state they failed in (§8), and a wait that is over is dropped.
func prepare(r *state.Run) {
	for i := range r.Agents {
		a := &r.Agents[i]
		switch a.Status {
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
	r.Status = state.StatusRunning
	r.Error = ""
}

// loop runs steps until nothing more can happen.
func (g *driving) loop(ctx context.Context) {
	m := g.m
	r := m.run
	g.done = make(chan stepDone, max(r.Options.MaxParallel, 1))
	quiesce := g.d.Quiesce
	ctxDone := ctx.Done()
	for {
		// A signal that arrived with a step's end wins over starting more.
		select {
		case <-quiesce:
			quiesce = nil
			g.stop(nil, quiesceMsg)
		default:
		}
		if ctx.Err() != nil {
			g.stop(nil, "")
		}
		wake := g.schedule(ctx)
		g.persist()
		if len(m.running) == 0 && g.settled() {
			return
		}
		var timer <-chan time.Time
		if !wake.IsZero() {
			timer = g.clock.After(max(wake.Sub(g.clock.Now()), 0))
		}
		select {
		case ev := <-g.done:
			g.finish(ev)
			// Coalesce: apply whatever else has arrived before writing.
			for more := true; more; {
				select {
				case ev := <-g.done:
					g.finish(ev)
				default:
					more = false
				}
			}
		case <-quiesce:
			quiesce = nil
			g.stop(nil, quiesceMsg)
		case <-ctxDone:
			ctxDone = nil
			g.stop(nil, "")
		case <-timer:
		}
	}
}

const quiesceMsg = "stopping: no new steps start; the steps running now finish first (interrupt again to kill them)"

// stop stops new steps from starting.
func (g *driving) stop(err error, msg string) {
	if err != nil && g.stopErr == nil {
		g.stopErr = err
	}
	if !g.stopping && msg != "" {
		g.out.line("", msg, true)
	}
	g.stopping = true
}

// settled decides, when no step runs, whether the run is over for this
// process, and sets its status. It returns false when the loop should wait
// (a back-off or a usage-limit reset) and go on.
func (g *driving) settled() bool {
	m := g.m
	r := m.run
	if m.finished() {
		return true
	}
	switch {
	case g.stopping:
		r.Status = state.StatusPaused
		if g.stopErr != nil {
			r.Error = g.stopErr.Error()
		}
	case overBudget(r):
		// Before the wait: no step could start after the reset anyway.
		// The wait stays, for a resume with a higher budget.
		r.Status = state.StatusBudgetExceeded
		r.Error = fmt.Sprintf("budget reached: %s spent of %s", money(r.TotalCostUSD), money(r.BudgetUSD))
	case r.Wait != nil && r.Options.NoWait:
		r.Status = state.StatusPaused
		r.Error = "usage limit: " + r.Wait.Reason
	case r.Wait != nil:
		return false
	case len(m.notBefore) > 0:
		return false
	default:
		// Nothing runs, nothing waits, yet agents are active: only agents
		// that are ready but could not start are left. schedule starts
		// every ready agent it can, so this means a bug; say so plainly.
		r.Status = state.StatusPaused
		r.Error = "internal error: agents are ready but none could start"
	}
	g.event(transcript.Event{Type: eventFor(r.Status), Status: string(r.Status), Message: r.Error})
	g.persistAll()
	return true
}

func eventFor(s state.Status) string {
	if s == state.StatusBudgetExceeded {
		return transcript.EventBudgetExceeded
	}
	return transcript.EventPaused
}

// overBudget reports whether the run may not start another paid step.
func overBudget(r *state.Run) bool {
	return r.BudgetUSD > 0 && r.TotalCostUSD >= r.BudgetUSD
}

// finish applies a finished step and reports it.
func (g *driving) finish(ev stepDone) {
	m := g.m
	a := m.run.Agent(ev.agent)
	var step state.Step
	if a != nil && a.Pending != nil {
		step = *a.Pending
	}
	effects := m.apply(ev, g.clock.Now())
	g.closeStep(ev, step)
	g.carry(effects)
}

// carry reports effects and acts on stops.
func (g *driving) carry(effects []effect) {
	for _, e := range effects {
		switch e.kind {
		case effectStop:
			cause := e.err
			if cause == nil {
				cause = errors.New(e.line)
			}
			// The summary and the command line show the reason; the
			// transcript records it here.
			g.stop(fmt.Errorf("%w: %w", ErrClaudeUnusable, cause), "")
			g.event(transcript.Event{Type: transcript.EventPaused, Agent: e.agent, Message: e.line})
			continue
		}
		if e.event.Type != "" {
			g.event(e.event)
		}
		if e.transition != nil {
			g.tr.Transition(*e.transition)
		}
		if e.line != "" {
			g.out.line(e.agent, e.line, e.quiet)
		}
	}
}

// event writes a transcript event stamped with the clock.
func (g *driving) event(e transcript.Event) {
	if e.Time.IsZero() {
		e.Time = g.clock.Now()
	}
	g.tr.Event(e)
}

// persist saves the agents changed since the last save, with whatever
// changed in the run's header; without changed agents it saves nothing.
// A failed write stops the run: no step may start on state that is not on
// disk.
func (g *driving) persist() {
	if len(g.m.dirty) > 0 {
		g.save()
	}
}

// persistAll saves the run's header (status, error, wait) even when no agent
// changed.
func (g *driving) persistAll() { g.save() }

func (g *driving) save() {
	m := g.m
	ids := make([]string, 0, len(m.dirty))
	for id := range m.dirty {
		ids = append(ids, id)
	}
	if err := g.journal.Save(m.run, ids...); err != nil {
		g.stop(fmt.Errorf("save run state: %w", err), "cannot save the run's state: "+err.Error()+"; stopping")
		return
	}
	clear(m.dirty)
}
