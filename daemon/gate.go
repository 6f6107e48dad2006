package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"raymond/orchestrator"
	"raymond/state"
	"raymond/step"
)

// Gate is the one scheduler the runs of a daemon share. Every step of every
// run passes it before its process starts:
//
//   - at most Max steps run at once, daemon-wide; waiting steps are let in
//     round-robin between runs (a run with ten waiting steps does not hold
//     back a run with one), oldest first within a run;
//   - a usage limit hit by any step holds every step on that model until
//     its reset (the runs share one account): a step whose model is held
//     goes on with the first of its fallbacks that is not, and waits
//     otherwise, while steps on other models go on; a limit of a step
//     whose model is not known holds every step;
//   - once the day's spend reaches the daily cap, no step starts until the
//     next local midnight;
//   - under a daily cap, a prompt step starts capped at what is left of the
//     day's cap once the caps of the steps in flight are set aside (or at its
//     own cap, when lower); a step that would get nothing waits for steps in
//     flight to end. The day's spend can then pass the cap by no more than
//     what a step spends past its own --max-budget-usd.
//
// A step held at the gate is "running" in its run's state file, so a crash
// runs it again, which costs nothing: it never started.
type Gate struct {
	clock     orchestrator.Clock
	spendPath string
	changed   func()

	mu       sync.Mutex
	max      int
	running  int
	waiting  int
	queues   map[string][]*ticket
	ring     []string             // runs with waiting tickets, in turn order
	limit    time.Time            // every model's
	models   map[string]time.Time // by model (as the step names it)
	dailyCap float64
	spend    spend
	timer    bool // a goroutine waits for the hold to end
	// reserved is the sum of the caps given to the steps in flight: what
	// they may still spend of the day's cap.
	reserved float64
	observe  func(step.Result, time.Duration)
	// stops are the runs' quiesce channels: a run that quiesces takes its
	// steps out of the queue rather than wait for a slot (or for a hold
	// to end, which may be hours).
	stops    map[string]<-chan struct{}
	spendSeq uint64 // counts the changes of spend

	saveMu   sync.Mutex // held while the spend file is written
	savedSeq uint64     // the change of spend the file holds (saveMu)
	// writeFailed, when set, hears of a failed write of the gate's file.
	writeFailed func(what string, err error)
}

// spend is what the daemon's steps have cost on one day, kept in a file so a
// restart does not forget it.
type spend struct {
	Day string  `json:"day"` // YYYY-MM-DD, local time
	USD float64 `json:"usd"`
}

// ticket is one step waiting for a slot.
type ticket struct {
	run   string
	model string // the step's, "" for a script or the default
	ready chan struct{}
	given bool
	// costs says the step may spend (a prompt, not a script); want is its
	// own cap, 0 for none.
	costs bool
	want  float64
	// budget is the cap the gate gave it when it let it in, 0 for none;
	// it is reserved until the step ends.
	budget float64
}

// GateStatus is what the gate holds now, for the API and the page.
type GateStatus struct {
	MaxSteps      int        `json:"max_steps"`
	StepsRunning  int        `json:"steps_running"`
	StepsWaiting  int        `json:"steps_waiting"`
	UsageLimit    *time.Time `json:"usage_limit_until"`
	SpendTodayUSD float64    `json:"spend_today_usd"`
	DailyCapUSD   float64    `json:"daily_cap_usd"`
	HeldUntil     *time.Time `json:"held_until"`
	// ModelLimits are the usage limits of single models still held.
	ModelLimits map[string]time.Time `json:"model_limits,omitempty"`
}

// usageLimitPad is added to a usage limit's reset time, as the machine
// itself waits: the reset an API reports is not to the second.
const usageLimitPad = 30 * time.Second

// usageLimitUnknown is how long the gate holds after a usage limit whose
// reset is unknown.
const usageLimitUnknown = 5 * time.Minute

// NewGate returns a gate letting steps steps run at once (at least 1), with a
// daily spend cap in USD (0 for none) whose running total is kept in the file
// spendPath ("" keeps it in memory only). changed, when not nil, is called
// (without the gate's lock held) whenever the gate's status changes.
func NewGate(steps int, dailyCap float64, spendPath string, clock orchestrator.Clock, changed func()) *Gate {
	g := &Gate{clock: clock, spendPath: spendPath, changed: changed, max: max(steps, 1), models: map[string]time.Time{},
		dailyCap: dailyCap, queues: make(map[string][]*ticket), stops: make(map[string]<-chan struct{})}
	if spendPath != "" {
		if data, err := os.ReadFile(spendPath); err == nil {
			var f gateFile
			_ = json.Unmarshal(data, &f) // a broken file starts the day at 0
			g.spend = f.spend
			if f.Limit != nil {
				g.limit = *f.Limit
			}
			for m, t := range f.Models {
				g.models[m] = t
			}
		}
	}
	return g
}

// gateFile is what the gate keeps on disk: the day's spend and the usage
// limit it holds for. The hold is the account's, not a run's: a daemon
// stopped by a signal (its waiting runs then read paused) or killed must
// not start steps into the same limit when it starts again.
type gateFile struct {
	spend
	Limit *time.Time `json:"usage_limit_until,omitempty"`
	// Models are the limits of single models.
	Models map[string]time.Time `json:"model_limits,omitempty"`
}

// Status returns what the gate holds now.
func (g *Gate) Status() GateStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now()
	s := GateStatus{MaxSteps: g.max, StepsRunning: g.running, StepsWaiting: g.waiting,
		SpendTodayUSD: g.today(now).USD, DailyCapUSD: g.dailyCap}
	if g.limit.After(now) {
		t := g.limit
		s.UsageLimit = &t
	}
	if until, held := g.heldUntil(now); held {
		s.HeldUntil = &until
	}
	for m, t := range g.models {
		if t.After(now) {
			if s.ModelLimits == nil {
				s.ModelLimits = map[string]time.Time{}
			}
			s.ModelLimits[m] = t
		}
	}
	return s
}

// modelHeld says until when a usage limit holds model, zero for not.
func (g *Gate) modelHeld(now time.Time, model string) time.Time {
	if t := g.models[model]; model != "" && t.After(now) {
		return t
	}
	return time.Time{}
}

// pick is the model a step with model and fallbacks runs on now: model
// unless a limit holds it, else the first fallback no limit holds (the
// fallbacks after it returned too); model when all are held.
func (g *Gate) pick(model string, fallbacks []string) (string, []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.clock.Now()
	if g.modelHeld(now, model).IsZero() {
		return model, fallbacks
	}
	for i, m := range fallbacks {
		if g.modelHeld(now, m).IsZero() {
			if rest := fallbacks[i+1:]; len(rest) > 0 {
				return m, rest
			}
			return m, nil
		}
	}
	return model, fallbacks
}

// today returns the spend of now's day.
func (g *Gate) today(now time.Time) spend {
	day := now.Format(time.DateOnly)
	if g.spend.Day != day {
		return spend{Day: day}
	}
	return g.spend
}

// heldUntil says whether no step may start now, and until when.
func (g *Gate) heldUntil(now time.Time) (time.Time, bool) {
	var until time.Time
	if g.limit.After(now) {
		until = g.limit
	}
	if g.dailyCap > 0 && g.today(now).USD >= g.dailyCap-capDust {
		y, m, d := now.Date()
		midnight := time.Date(y, m, d+1, 0, 0, 0, 0, now.Location())
		until = later(until, midnight)
	}
	return until, !until.IsZero()
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// errQuiesced is a step that left the queue because its run quiesced.
var errQuiesced = errors.New("the run is stopping at its next step boundary")

// stopOn has the steps of run that wait for a slot give up once quiesce is
// closed; the function it returns undoes it (when the drive ends).
func (g *Gate) stopOn(run string, quiesce <-chan struct{}) func() {
	g.mu.Lock()
	g.stops[run] = quiesce
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		if g.stops[run] == quiesce {
			delete(g.stops, run)
		}
		g.mu.Unlock()
	}
}

// acquire waits for a slot for a step of run and returns the ticket it was
// given (its budget is the step's cap, 0 for none) and the function that
// gives the slot back; it fails when ctx ends first, or the run quiesces.
// costs says the step may spend; want is its own cap, 0 for none.
func (g *Gate) acquire(ctx context.Context, run, model string, costs bool, want float64) (*ticket, func(), error) {
	t := &ticket{run: run, model: model, ready: make(chan struct{}), costs: costs, want: want}
	release := func() { g.release(t) }
	g.mu.Lock()
	stop := g.stops[run]
	if len(g.queues[run]) == 0 {
		g.ring = append(g.ring, run)
	}
	g.queues[run] = append(g.queues[run], t)
	g.waiting++
	g.dispatch()
	g.mu.Unlock()
	g.notify()
	var err error
	select {
	case <-t.ready:
		return t, release, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-stop:
		err = errQuiesced
	}
	g.mu.Lock()
	given := t.given
	if !given {
		g.drop(t)
	}
	g.mu.Unlock()
	if given && err == errQuiesced {
		// The slot came as the run quiesced, and select chose either: the
		// step counts as in flight already (Status said so), so it runs.
		return t, release, nil
	}
	if given {
		release()
	} else {
		g.notify()
	}
	return nil, nil, err
}

// drop takes a ticket that was never given out of its queue.
func (g *Gate) drop(t *ticket) {
	q := g.queues[t.run]
	for i, o := range q {
		if o == t {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	g.waiting--
	if len(q) == 0 {
		delete(g.queues, t.run)
		g.removeFromRing(t.run)
	} else {
		g.queues[t.run] = q
	}
}

func (g *Gate) removeFromRing(run string) {
	for i, r := range g.ring {
		if r == run {
			g.ring = append(g.ring[:i:i], g.ring[i+1:]...)
			return
		}
	}
}

// release gives t's slot back, and what its cap reserved.
func (g *Gate) release(t *ticket) {
	g.mu.Lock()
	g.running--
	g.reserved -= t.budget
	if g.running == 0 {
		g.reserved = 0 // no float dust left when nothing is in flight
	}
	g.dispatch()
	g.mu.Unlock()
	g.notify()
}

// dispatch gives free slots to waiting tickets, one run after the other,
// unless the gate holds; then it arranges to look again when the hold ends.
// g.mu is held.
func (g *Gate) dispatch() {
	now := g.clock.Now()
	if until, held := g.heldUntil(now); held {
		g.lookAgain(now, until)
		return
	}
	var soonest time.Time // the first model limit that ends, of the runs passed over
	for passed := 0; g.running < g.max && len(g.ring) > 0 && passed < len(g.ring); {
		run := g.ring[0]
		q := g.queues[run]
		i := slices.IndexFunc(q, func(t *ticket) bool { return g.modelHeld(now, t.model).IsZero() })
		if i < 0 {
			// Every step of this run waits for its model's limit: the
			// next run's turn.
			for _, t := range q {
				if u := g.modelHeld(now, t.model); soonest.IsZero() || u.Before(soonest) {
					soonest = u
				}
			}
			g.ring = append(g.ring[1:], run)
			passed++
			continue
		}
		passed = 0
		t := q[i]
		budget, ok := g.budget(now, t)
		if !ok {
			// Steps in flight may spend the rest of the day's cap: the
			// next one waits for one of them to end (release dispatches).
			// The turn stays this run's, so no step passes it.
			break
		}
		t.budget = budget
		g.reserved += budget
		g.ring = g.ring[1:]
		if len(q) == 1 {
			delete(g.queues, run)
		} else {
			g.queues[run] = slices.Delete(slices.Clone(q), i, i+1)
			g.ring = append(g.ring, run) // its next step waits for its next turn
		}
		t.given = true
		g.waiting--
		g.running++
		close(t.ready)
	}
	if !soonest.IsZero() {
		g.lookAgain(now, soonest)
	}
}

// lookAgain has dispatch run again at until, when a hold ends, unless it
// is arranged already. g.mu is held.
func (g *Gate) lookAgain(now, until time.Time) {
	if g.timer || g.waiting == 0 {
		return
	}
	g.timer = true
	wait := g.clock.After(until.Sub(now))
	go func() {
		<-wait
		g.mu.Lock()
		g.timer = false
		g.dispatch()
		g.mu.Unlock()
		g.notify()
	}()
}

// budget returns the cap t gets if it starts now, 0 for none, and false
// when it would get nothing: under a daily cap, a step that may spend gets
// what is left of the day's cap once the steps in flight have what their
// caps allow, or its own cap when lower. g.mu is held.
func (g *Gate) budget(now time.Time, t *ticket) (float64, bool) {
	if g.dailyCap <= 0 || !t.costs {
		return 0, true // nothing reserved; the step keeps its own cap
	}
	left := g.dailyCap - g.today(now).USD - g.reserved
	if left <= capDust {
		return 0, false
	}
	if t.want > 0 && t.want < left {
		return t.want, true
	}
	return math.Round(left*1e6) / 1e6, true // no float dust in the argument
}

// capDust is an amount of USD too small to count: sums of floats leave
// such dust where a cap is all spent or all reserved.
const capDust = 1e-9

// book takes in how a step ended: its cost, and a usage limit it hit,
// which holds the model the step ran on (every model, when the step named
// none).
func (g *Gate) book(s state.Step, res step.Result) {
	g.mu.Lock()
	now := g.clock.Now()
	changed := false
	if res.Outcome == step.UsageLimit {
		until := now.Add(usageLimitUnknown)
		if !res.ResetAt.IsZero() {
			until = res.ResetAt.Add(usageLimitPad)
		}
		model := s.Model
		if n := min(len(res.FellBack), len(s.Fallbacks)); n > 0 {
			model = s.Fallbacks[n-1] // claude went on with it by itself
		}
		switch {
		case model == "" || model == "default":
			if until.After(g.limit) {
				g.limit, changed = until, true
			}
		case until.After(g.models[model]):
			g.models[model], changed = until, true
		}
		if changed {
			g.spendSeq++
		}
	}
	billed := res.Billed && res.CostUSD > 0
	if billed {
		g.spend = g.today(now)
		g.spend.USD += res.CostUSD
		g.spendSeq++
		changed = true
	}
	g.mu.Unlock()
	if changed && g.spendPath != "" {
		g.saveSpend()
	}
	if changed {
		g.notify()
	}
}

// holdUntil holds every step on model ("": every step) until t, as a
// usage limit does: a run found waiting on the account's limit at start
// holds the others too.
func (g *Gate) holdUntil(model string, t time.Time) {
	g.mu.Lock()
	var changed bool
	switch {
	case model == "":
		if changed = t.After(g.limit); changed {
			g.limit = t
		}
	default:
		if changed = t.After(g.models[model]); changed {
			g.models[model] = t
		}
	}
	g.mu.Unlock()
	if changed {
		g.notify()
	}
}

// saveSpend writes the day's spend, and the usage limit held, to its file. Steps that end together
// queue here and the first one writes the latest total for all: one write
// instead of one each (a file created and renamed, at every step's end),
// and never an older total over a newer one.
func (g *Gate) saveSpend() {
	g.saveMu.Lock()
	defer g.saveMu.Unlock()
	g.mu.Lock()
	seq := g.spendSeq
	f := gateFile{spend: g.spend}
	if !g.limit.IsZero() {
		limit := g.limit
		f.Limit = &limit
	}
	now := g.clock.Now()
	for m, t := range g.models {
		if t.After(now) {
			if f.Models == nil {
				f.Models = map[string]time.Time{}
			}
			f.Models[m] = t
		}
	}
	data, _ := json.Marshal(f)
	g.mu.Unlock()
	if seq == g.savedSeq {
		return // a step that ended beside this one wrote it
	}
	err := writeFileAtomic(g.spendPath, data)
	if err == nil { // losing it costs a day's total or a hold, never a run
		g.savedSeq = seq
	} else if g.writeFailed != nil {
		g.writeFailed("save the gate's spend and usage limit", err)
	}
}

func (g *Gate) notify() {
	if g.changed != nil {
		g.changed()
	}
}

// Observe has f called with every step's result and how long it ran, after
// the step (for metrics). Set it before any step runs.
func (g *Gate) Observe(f func(res step.Result, ran time.Duration)) { g.observe = f }

// Runner returns inner with every step passing the gate first.
func (g *Gate) Runner(inner step.Runner) step.Runner {
	if inner == nil {
		return nil
	}
	return &gated{gate: g, inner: inner}
}

// gated is a runner whose steps pass a gate. It forwards the optional
// interfaces of its inner runner.
type gated struct {
	gate  *Gate
	inner step.Runner
}

// Run waits at the gate, then runs the step.
func (r *gated) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	if req.Script == nil {
		// A limit another run hit holds this step's model: it goes on
		// with a fallback of its list no limit holds, if it has one.
		req.Step.Model, req.Step.Fallbacks = r.gate.pick(req.Step.Model, req.Step.Fallbacks)
	}
	t, release, err := r.gate.acquire(ctx, req.RunID, req.Step.Model, req.Script == nil, req.MaxBudgetUSD)
	if err != nil {
		// Canceled, not NotStarted: the machine fails the agent of a step
		// that could not start, while a canceled step stays pending and
		// runs at the next resume.
		now := time.Now()
		return step.Result{Outcome: step.Canceled, Class: "canceled",
			Reason: "stopped while waiting for a free step slot: " + err.Error(), Err: err, Started: now, Ended: now}
	}
	defer release()
	if t.budget > 0 {
		req.MaxBudgetUSD = t.budget
	}
	start := time.Now()
	res := r.inner.Run(ctx, req, h)
	r.gate.book(req.Step, res)
	if r.gate.observe != nil {
		r.gate.observe(res, time.Since(start))
	}
	return res
}

// Argv forwards to the inner runner's step.Describer.
func (r *gated) Argv(req step.Request) []string {
	if d, ok := r.inner.(step.Describer); ok {
		return d.Argv(req)
	}
	return nil
}

// Name is the inner runner's name.
func (r *gated) Name() string { return step.RunnerName(r.inner) }

// Sweep forwards to the inner runner's step.Sweeper.
func (r *gated) Sweep(marker string) ([]int, error) {
	if s, ok := r.inner.(step.Sweeper); ok {
		return s.Sweep(marker)
	}
	return nil, nil
}

// Salvage forwards to the inner runner's step.Salvager.
func (r *gated) Salvage(req step.Request, lines []byte) (step.Result, bool) {
	if s, ok := r.inner.(step.Salvager); ok {
		return s.Salvage(req, lines)
	}
	return step.Result{}, false
}

// Adoptable forwards to the inner runner's step.Adopter.
func (r *gated) Adoptable(req step.Request) (ok, running bool) {
	if a, is := r.inner.(step.Adopter); is {
		return a.Adoptable(req)
	}
	return false, false
}

// Adopt forwards to the inner runner's step.Adopter. An adopted step is
// running already: it takes no slot at the gate, and was paid for by the
// daemon that started it.
func (r *gated) Adopt(ctx context.Context, req step.Request, h step.Handler) step.Result {
	if a, is := r.inner.(step.Adopter); is {
		return a.Adopt(ctx, req, h)
	}
	return step.NotStarted(step.Failed, fmt.Errorf("the runner %s cannot adopt a step", step.RunnerName(r.inner)))
}

// createTemp is the seam through which the daemon's own files are written,
// so a test can fill the disk.
var createTemp = os.CreateTemp

// writeFileAtomic replaces path with data through a temporary file, and
// makes it durable (the file and its folder synced) before it returns: what
// the daemon acknowledges from these files (a pause) must outlive a crash.
func writeFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, "."+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return state.SyncDir(dir)
}
