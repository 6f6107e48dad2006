package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"raymond/machine"
	"raymond/report"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
	"raymond/workflow"
)

// nowFunc is the wall clock of step timings and the run's duration; a
// variable so tests can freeze it.
var nowFunc = time.Now

// driving is one Drive call: the run's machine and everything that carries
// out its effects — the journal, the transcript, the progress printer, the
// steps' goroutines.
type driving struct {
	d       *Driver
	m       *machine.Machine
	journal *state.Journal
	tr      *transcript.Writer
	out     *report.Printer
	sinks   []Sink
	clock   Clock
	runner  step.Runner
	scopes  *workflow.Scopes
	ctx     context.Context
	done    chan stepDone
	steps   sync.WaitGroup
	// launched brings the identity of the steps' processes to the loop,
	// to be saved.
	launched chan machine.Launched
	// launches are the steps in flight, by agent.
	launches map[string]*launch
	// wake is when the machine asked to be ticked; finished that it said
	// Done; prepared that the last tick's steps were prepared.
	wake     time.Time
	finished bool
	prepared bool
	started  time.Time
	// saveErr is the last save that failed, for an answer's Saved.
	saveErr error
	// scripted says the run is driven with scripted replies: the events
	// that show tools and costs say so (Event.Scripted).
	scripted bool
	// again says the last effects merged workers' branches: the machine
	// is ticked again at once, whether or not a step runs.
	again bool
}

// launch is one step from its preparation to its record.
type launch struct {
	st    *workflow.State
	scope *workflow.Scope
	req   step.Request
	log   *transcript.StepLog
	// ready is closed once the step's transcript files are open.
	ready chan struct{}
	// res and decideErr are how the step ended, for its record.
	res       step.Result
	decideErr error
	// started is when the step started, on the wall clock; running says
	// it has not ended. Both belong to the loop.
	started time.Time
	running bool
	// workspace is the worktree the step works in ("" for none);
	// checkpoint the commit its changes became.
	workspace  string
	checkpoint *state.Checkpoint
	// mu guards tool and detail: the last tool the step used, set from the
	// step's goroutine, read by its heartbeat.
	mu           sync.Mutex
	tool, detail string
}

// lastTool returns the last tool the step used and its detail.
func (l *launch) lastTool() (string, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.tool, l.detail
}

// stepDone is what a step's goroutine reports.
type stepDone struct {
	ev machine.StepEnded
	// warnings are published before the step's end is applied.
	warnings []string
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
	if ws := r.Workspace; ws.Closed() {
		return r, DraftClosedError(id, ws)
	}
	// The workflow is opened before update changes anything (an answer
	// given with resume --input): a run that cannot go on is left as it
	// was, and the person is told so.
	scopes := workflow.NewScopes(d.Fetcher)
	defer scopes.Close()
	scope, err := scopes.Open(r.ScopeDir, r.ScopeURL)
	if err != nil {
		// Like a workflow that cannot start, one that can no longer be
		// opened is the user's to fix: exit 2 (protocol §13.1).
		what := "put the workflow back where it was"
		if _, statErr := os.Stat(r.ScopeDir); statErr == nil {
			what = "fix the workflow"
		}
		return nil, &WorkflowError{Err: fmt.Errorf("run %s: %w; %s, then resume the run (nothing was changed)", id, err, what)}
	}
	if update != nil {
		if err := update(r); err != nil {
			return nil, err
		}
	}
	g := &driving{d: d, m: machine.New(r), clock: d.Clock, runner: d.Runner, scopes: scopes,
		launches: map[string]*launch{}, started: nowFunc(), scripted: r.Options.Scripted}
	if g.clock == nil {
		g.clock = clockFromEnv()
	}
	if g.runner == nil {
		return nil, fmt.Errorf("drive run %s: no step runner", id)
	}
	g.out = report.NewPrinter(d.Progress, d.Prefix, d.Quiet, d.Color)
	if r.Options.Debug && d.DebugDir != "" {
		var once sync.Once
		g.tr = transcript.Open(d.debugDir(id), func(err error) {
			once.Do(func() {
				// Live: the writer holds its lock while it calls this.
				g.publish(transcript.Event{Type: transcript.EventTranscriptFailed, Message: err.Error()}, nil)
			})
		})
		defer g.tr.Close()
	}
	g.sinks = append([]Sink{g.tr, g.out}, d.Sinks...)
	if g.journal, err = d.Store.Journal(r); err != nil {
		return nil, err
	}
	g.ctx = ctx
	g.done = make(chan stepDone, max(r.Options.MaxParallel, 1))
	g.launched = make(chan machine.Launched, max(r.Options.MaxParallel, 1))
	inFlight := g.interrupted(r)
	// The steps the last driver left in flight are looked at before
	// anything runs: those whose process still runs, or whose output holds
	// their end, are adopted; the others run again.
	adopted, rest := g.adoptable(inFlight)
	g.carry(g.m.Apply(machine.Begin{Now: g.clock.Now(), PID: os.Getpid(), OnAsk: g.onAsk()}))
	for _, a := range adopted {
		g.carry(g.m.Apply(machine.Adopted{Agent: a.agent, Now: g.clock.Now(), Running: a.running}))
	}
	g.sweep(rest)
	g.manifestWarnings(scope)
	// What the interrupted steps spent is read only now that the sweep
	// has ended what they left running: a step's process outlives its
	// driver, and spends until it ends.
	for _, ev := range g.salvage(rest) {
		g.carry(g.m.Apply(ev))
	}

	g.loop(ctx)
	g.steps.Wait()

	// The end of the run is on disk, as one fsynced snapshot, before it is
	// announced: a process killed after saying "completed" must not leave a
	// run that reads as interrupted.
	stopErr := g.m.Err()
	if err := g.journal.Close(); err != nil && stopErr == nil {
		stopErr = err
	}
	g.publish(transcript.Event{Type: transcript.EventRunEnded, Status: string(r.Status), TotalCostUSD: ptr(r.TotalCostUSD), Message: r.Error}, nil)
	g.publish(g.summary(), nil)
	return r, stopErr
}

// manifestWarnings says once per drive what the starting scope's manifest
// holds that raymond ignores (unknown keys, protocol §17), where the user
// sees it and in the transcript.
func (g *driving) manifestWarnings(scope *workflow.Scope) {
	if m := scope.Manifest(); m != nil {
		for _, w := range m.Warnings {
			g.publish(transcript.Event{Time: g.clock.Now(), Type: transcript.EventWarning, Message: w}, nil)
		}
	}
}

// waitingFor says, once no new step starts, which steps the run waits for,
// with how long each has run.
func (g *driving) waitingFor() {
	var names []string
	for _, l := range g.launches {
		if l.running {
			names = append(names, fmt.Sprintf("%s %s (%s)", l.req.Agent, l.req.Step.State,
				report.Duration(nowFunc().Sub(l.started).Round(time.Second))))
		}
	}
	if len(names) == 0 {
		return
	}
	slices.Sort(names)
	g.publish(transcript.Event{Type: transcript.EventWaitingFor, Message: strings.Join(names, ", ")}, nil)
}

// heartbeat says, while a step runs long, that it is still running, at
// the pace of Driver.Heartbeat, until done is closed.
func (g *driving) heartbeat(l *launch, done <-chan struct{}) {
	every := g.d.Heartbeat
	if every == 0 {
		every = time.Minute
	}
	if every < 0 {
		return
	}
	for n := 1; ; n++ {
		at := every * time.Duration(n)
		if n > 5 {
			at = every * 5 * time.Duration(n-4)
		}
		timer := time.NewTimer(time.Until(l.started.Add(at)))
		select {
		case <-done:
			timer.Stop()
			return
		case <-timer.C:
		}
		tool, detail := l.lastTool()
		g.publish(transcript.Event{Type: transcript.EventStillRunning, Agent: l.req.Agent, State: l.req.Step.State, Step: l.req.Name(),
			DurationMS: nowFunc().Sub(l.started).Milliseconds(), Tool: tool, Message: detail}, nil)
	}
}

// onAsk is the ask mode of the drive: prompt needs an Asker.
func (g *driving) onAsk() string {
	mode := g.d.OnAsk
	if mode == AskPrompt && g.d.Asker == nil || mode == "" {
		mode = AskPause
	}
	return mode
}

// inFlight is a step that was running when its run was last driven.
type inFlight struct {
	agent, name, marker string
	req                 step.Request // as it was started
	// running says the process of a step to adopt still runs.
	running bool
}

// interrupted lists the steps r says are running: read before a drive
// begins, they are the steps a driver that died left in flight.
func (g *driving) interrupted(r *state.Run) []inFlight {
	var out []inFlight
	for _, a := range r.Agents {
		if a.Status != state.AgentRunning || a.Pending == nil {
			continue
		}
		name := step.Name(a.ID, a.Pending.State, a.Steps)
		req := step.Request{RunID: r.WorkflowID, Agent: a.ID, Seq: a.Steps, Step: *a.Pending, Options: r.Options}
		if s := a.Pending; s.Mode != state.SessionNew && s.ResumeSession != "" {
			req.PriorCostUSD, req.PriorCostKnown = r.SessionCosts[s.ResumeSession]
		}
		req.Spool = g.spool(name)
		out = append(out, inFlight{agent: a.ID, name: name, marker: step.Marker(r.Options.ProjectDir, r.WorkflowID, a.ID, a.Steps), req: req})
	}
	return out
}

// spool is the file the process of the step named name writes its output
// to: its .jsonl in the transcript, else (--no-debug) a file of the same
// name in a folder of the run's beside its state file, removed once the
// step's end is applied.
func (g *driving) spool(name string) string {
	if g.tr != nil {
		return g.tr.StepStream(name)
	}
	return filepath.Join(g.d.Store.Dir, g.m.Run().WorkflowID+spoolSuffix, name+".jsonl")
}

// spoolSuffix names, after a run's id, the folder of its steps' output
// when it has no transcript.
const spoolSuffix = ".steps"

// adoptable splits the steps in flight into those to adopt, whose state
// still loads, and the rest.
func (g *driving) adoptable(steps []inFlight) (adopt, rest []inFlight) {
	ad, ok := g.runner.(step.Adopter)
	if !ok {
		return nil, steps
	}
	r := g.m.Run()
	for _, s := range steps {
		ok, running := false, false
		if s.req.Seq != 0 {
			ok, running = ad.Adoptable(s.req)
		}
		if !ok {
			rest = append(rest, s)
			continue
		}
		ref := s.req.Step.Ref.In(r.ScopeDir)
		if ref.URL == "" && ref.Scope == r.ScopeDir {
			ref.URL = r.ScopeURL
		}
		scope, err := g.scopes.Open(ref.Scope, ref.URL)
		if err != nil {
			rest = append(rest, s)
			continue
		}
		st, err := scope.Load(s.req.Step.State)
		if err != nil || st.Script {
			rest = append(rest, s)
			continue
		}
		s.running = running
		g.launches[s.agent] = &launch{st: st, scope: scope}
		adopt = append(adopt, s)
	}
	return adopt, rest
}

// follow follows a step adopted from the driver that died (machine.Follow)
// to its end, as start runs a step: its transcript's meta is written when
// it ends, its live events are published, its end comes to the loop.
func (g *driving) follow(req step.Request) {
	l := g.launches[req.Agent]
	ad, ok := g.runner.(step.Adopter)
	if l == nil || !ok { // cannot happen: only adoptable steps are adopted
		return
	}
	req.Spool = g.spool(req.Name())
	l.req = req
	l.ready = make(chan struct{})
	tr, name := g.tr, req.Name()
	g.steps.Go(func() {
		defer close(l.ready)
		l.log = tr.SpooledStep(name)
	})
	l.started, l.running = nowFunc(), true
	if p := req.Step.Process; p != nil && !p.Started.IsZero() {
		l.started = p.Started
	}
	h := g.handler(l)
	g.run(l, func(ctx context.Context) step.Result { return ad.Adopt(ctx, req, h) })
}

// sweep ends what the interrupted steps left running (a tool's background
// command outlives a claude killed with its driver), before any of them runs
// again, when the runner can (step.Sweeper), and says so.
func (g *driving) sweep(steps []inFlight) {
	sw, ok := g.runner.(step.Sweeper)
	if !ok {
		return
	}
	for _, s := range steps {
		pids, err := sw.Sweep(s.marker)
		msg := ""
		switch {
		case err != nil:
			msg = fmt.Sprintf("cannot look for processes left running by the interrupted step %s: %v", s.name, err)
		case len(pids) == 1:
			msg = fmt.Sprintf("ended a process left running by the interrupted step %s (pid %d)", s.name, pids[0])
		case len(pids) > 1:
			msg = fmt.Sprintf("ended %d processes left running by the interrupted step %s (pids %s)", len(pids), s.name, joinInts(pids))
		default:
			continue
		}
		g.publish(transcript.Event{Type: transcript.EventWarning, Agent: s.agent, Message: msg}, nil)
	}
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}

// loop feeds the machine until it says the run is done: a tick, the steps
// it starts, then whatever comes first — steps ending, a stop, the time it
// asked to be woken at.
func (g *driving) loop(ctx context.Context) {
	quiesce := g.d.Quiesce
	ctxDone := ctx.Done()
	var answers <-chan Answer
	if g.d.Asker != nil && g.onAsk() == AskPrompt {
		answers = g.d.Asker.Answers()
	}
	for {
		select {
		case <-quiesce:
			quiesce = nil
			g.carry(g.m.Apply(machine.Quiesce{}))
		default:
		}
		if ctx.Err() != nil {
			g.carry(g.m.Apply(machine.Cancel{}))
		}
		g.wake, g.prepared, g.again = time.Time{}, false, false
		g.carry(g.m.Apply(machine.Tick{Now: g.clock.Now()}))
		if g.finished {
			return
		}
		if g.again && g.m.Running() == 0 {
			continue // workers were merged: look again
		}
		if g.prepared && g.m.Running() == 0 && g.wake.IsZero() {
			continue // the steps could not be prepared and failed their agents: look again
		}
		var timer <-chan time.Time
		if !g.wake.IsZero() {
			timer = g.clock.After(max(g.wake.Sub(g.clock.Now()), 0))
		}
		select {
		case d := <-g.done:
			g.finish(ctx, d)
			for more := true; more; {
				select {
				case d := <-g.done:
					g.finish(ctx, d)
				default:
					more = false
				}
			}
		case ev := <-g.launched:
			g.carry(g.m.Apply(ev))
		case <-quiesce:
			quiesce = nil
			g.carry(g.m.Apply(machine.Quiesce{}))
			g.waitingFor()
		case <-ctxDone:
			ctxDone = nil
			g.carry(g.m.Apply(machine.Cancel{}))
		case a, ok := <-answers:
			if !ok {
				answers = nil
				g.carry(g.m.Apply(machine.NoAnswers{}))
				continue
			}
			g.saveErr = nil
			g.carry(g.m.Apply(machine.Answered{Now: g.clock.Now(), AskID: a.AskID, Answer: a.Text}))
			if a.Saved != nil {
				a.Saved <- g.saveErr
			}
		case <-timer:
		}
	}
}

// finish applies the end of a step.
func (g *driving) finish(ctx context.Context, d stepDone) {
	if l := g.launches[d.ev.Agent]; l != nil {
		l.res, l.decideErr = d.ev.Result, d.ev.DecideErr
		l.running = false
		l.checkpoint = d.ev.Checkpoint
	}
	d.ev.Now = g.clock.Now()
	for _, w := range d.warnings {
		state := ""
		if l := g.launches[d.ev.Agent]; l != nil {
			state = l.req.Step.State
		}
		g.publish(transcript.Event{Time: d.ev.Now, Type: transcript.EventWarning, Agent: d.ev.Agent, State: state, Message: w}, nil)
	}
	for _, r := range d.ev.Result.Repeats {
		// Published here, by the loop, rather than live from the step's
		// goroutine: persisted events keep one order in every sink.
		state := ""
		if l := g.launches[d.ev.Agent]; l != nil {
			state = l.req.Step.State
		}
		g.publish(transcript.Event{Time: d.ev.Now, Type: transcript.EventLoopWarning, Agent: d.ev.Agent, Step: d.ev.Name, State: state,
			Tool: toolOf(r.Call), Message: r.Call, Count: r.Count, Max: r.Stop}, nil)
	}
	g.carry(g.m.Apply(d.ev))
}

// carry carries out the machine's effects in order. The Prepare effects
// are answered together once the others are done; a Start waits for the
// Save before it, and does not happen if that save failed. A failed save
// drops nothing else: the Done of a run that ends on a full disk must still
// end its drive.
func (g *driving) carry(effects []machine.Effect) {
	var prepares []machine.Prepare
	failed := false
	for i, e := range effects {
		switch e := e.(type) {
		case machine.Emit:
			g.publish(e.Event, e.Transition)
		case machine.Save:
			if failed {
				continue // the machine knows it cannot save; the steps it held stay held
			}
			if err := g.journal.Commit(g.m.Run(), state.Change{Agents: e.Agents, Sessions: e.Sessions}); err != nil {
				err = g.saveError(err)
				g.saveErr, failed = err, true
				g.carry(g.m.Apply(machine.SaveFailed{Err: err, Held: held(effects[i+1:])}))
			}
		case machine.Start:
			if failed {
				continue // held by the failed save
			}
			g.start(e.Request)
		case machine.Follow:
			g.follow(e.Request)
		case machine.StepClosed:
			g.closeStep(e)
		case machine.Prepare:
			prepares = append(prepares, e)
		case machine.Wake:
			g.wake = e.At
		case machine.Done:
			g.finished = true
		case machine.Merge:
			g.again = true
			g.carry(g.m.Apply(g.merge(e)))
		case machine.AskOpened:
			if g.d.Asker != nil && g.onAsk() == AskPrompt {
				g.d.Asker.Open(e.Agent, e.Ask)
			}
		}
	}
	if len(prepares) > 0 {
		g.prepared = true
		g.carry(g.m.Apply(g.prepare(prepares)))
	}
}

// diskFullError is a save that failed for want of space: it names the
// folder and says how to go on.
type diskFullError struct {
	dir, run string
	err      error
}

func (e *diskFullError) Error() string {
	return fmt.Sprintf("no space left on device at %s; free space, then raymond resume %s", e.dir, e.run)
}

func (e *diskFullError) Unwrap() error { return e.err }

// saveError is err, a failed save, as the person reads it.
func (g *driving) saveError(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return &diskFullError{dir: g.d.Store.Dir, run: g.m.Run().WorkflowID, err: err}
	}
	return err
}

// held lists the agents of the Starts among effects.
func held(effects []machine.Effect) []string {
	var ids []string
	for _, e := range effects {
		if s, ok := e.(machine.Start); ok {
			ids = append(ids, s.Request.Agent)
		}
	}
	return ids
}

// Sink receives the events of a run as the driver publishes them: the
// transcript writer, the progress printer, and whatever a Driver's caller
// adds (a daemon's live stream). Events of the run come in order from the
// loop's goroutine; a step's live activity (transcript.Event.Live) comes
// from the step's goroutine, concurrently with them.
type Sink interface {
	Event(transcript.Event)
}

// StepSink is a Sink that follows each step more closely than the event
// stream does, as a tracer does (package telemetry): it sees every live
// event of a step, a tool's result that succeeded included, and gives the
// step's processes their trace context.
type StepSink interface {
	Sink
	// StepTrace is called on the loop once the step's step_started event
	// has been published, before the step runs. A traceparent it returns
	// ("" for none) goes to the step's processes (step.Request.TraceParent).
	StepTrace(req step.Request) (traceparent, tracestate string)
	// StepEvent receives what the step's runner reports, from the step's
	// goroutine, before the event stream has it.
	StepEvent(req step.Request, e step.Event)
}

// stepSinks are the sinks that are StepSinks.
func (g *driving) stepSinks() []StepSink {
	var out []StepSink
	for _, s := range g.sinks {
		if t, ok := s.(StepSink); ok {
			out = append(out, t)
		}
	}
	return out
}

// publish stamps an event with the clock's time and sends it to every
// sink; a transition also goes to transitions.log.
func (g *driving) publish(e transcript.Event, tr *transcript.Transition) {
	if e.Time.IsZero() {
		e.Time = g.clock.Now()
	}
	if e.Run == "" {
		e.Run = g.m.Run().WorkflowID
	}
	if g.scripted {
		switch e.Type {
		case transcript.EventRunStarted, transcript.EventRunResumed, transcript.EventTransition,
			transcript.EventToolUse, transcript.EventToolFailed, transcript.EventRunEnded, transcript.EventSummary:
			e.Scripted = true
		}
	}
	for _, s := range g.sinks {
		s.Event(e)
	}
	if tr != nil {
		g.tr.Transition(*tr)
	}
}

func ptr[T any](v T) *T { return &v }

// toolOf is the tool of a repeated call (`Bash {"command":"ls"}`).
func toolOf(call string) string {
	tool, _, _ := strings.Cut(call, " ")
	return tool
}

// salvage finds what the steps in flight when the last driver died cost,
// though their end was never applied: from their output (in the transcript,
// when there is one) when it shows their end, else from what the runner
// finds elsewhere (claude's session file) of a step cut short.
func (g *driving) salvage(steps []inFlight) []machine.Salvaged {
	sv, ok := g.runner.(step.Salvager)
	if !ok {
		return nil
	}
	var out []machine.Salvaged
	for _, s := range steps {
		if s.req.Seq == 0 {
			continue
		}
		lines, _ := os.ReadFile(s.req.Spool)
		if res, ok := sv.Salvage(s.req, lines); ok {
			out = append(out, machine.Salvaged{Agent: s.agent, Now: g.clock.Now(), Result: res})
		}
	}
	return out
}
