package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"raymond/state"
	"raymond/step"
)

// manualClock is a clock a test moves by hand; After fires when the test
// moves the clock past it.
type manualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []clockWaiter
}

type clockWaiter struct {
	at time.Time
	ch chan time.Time
}

func newManualClock() *manualClock {
	return &manualClock{now: time.Date(2026, 11, 24, 12, 0, 0, 0, time.Local)}
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 {
		ch <- c.now
		return ch
	}
	c.waiters = append(c.waiters, clockWaiter{at: c.now.Add(d), ch: ch})
	return ch
}

func (c *manualClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			w.ch <- c.now
		} else {
			kept = append(kept, w)
		}
	}
	c.waiters = kept
}

// acquireAsync asks for a slot for run and returns the channel that says
// when it was given.
func acquireAsync(t *testing.T, g *Gate, run string) (given chan func()) {
	t.Helper()
	given = make(chan func(), 1)
	go func() {
		_, release, err := g.acquire(context.Background(), run, "", false, 0)
		if err == nil {
			given <- release
		}
	}()
	return given
}

// waitWaiting waits until n tickets wait at the gate.
func waitWaiting(t *testing.T, g *Gate, n int) {
	t.Helper()
	require.Eventually(t, func() bool { return g.Status().StepsWaiting == n }, 10*time.Second, time.Millisecond)
}

func TestGateRoundRobinBetweenRuns(t *testing.T) {
	g := NewGate(1, 0, "", newManualClock(), nil)
	_, first, err := g.acquire(context.Background(), "busy", "", false, 0)
	require.NoError(t, err)
	// The busy run queues three more steps, then a second run queues one.
	var busy []chan func()
	for range 3 {
		busy = append(busy, acquireAsync(t, g, "busy"))
		waitWaiting(t, g, len(busy))
	}
	other := acquireAsync(t, g, "other")
	waitWaiting(t, g, 4)

	first()
	// The busy run's next step goes first (its turn came first), then the
	// other run's, before the busy run's third.
	release := <-busy[0]
	select {
	case <-other:
		t.Fatal("two slots given with a cap of 1")
	default:
	}
	release()
	release = <-other
	select {
	case <-busy[1]:
		t.Fatal("the busy run got a second turn before the other run")
	default:
	}
	release()
	(<-busy[1])()
	(<-busy[2])()
	require.Equal(t, GateStatus{MaxSteps: 1}, g.Status())
}

func TestGateCanceledWhileWaiting(t *testing.T) {
	g := NewGate(1, 0, "", newManualClock(), nil)
	_, release, err := g.acquire(context.Background(), "a", "", false, 0)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := g.acquire(ctx, "b", "", false, 0)
		done <- err
	}()
	waitWaiting(t, g, 1)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	require.Equal(t, 0, g.Status().StepsWaiting)
	release()
	require.Equal(t, 0, g.Status().StepsRunning)
}

// limitRunner ends its first step at a usage limit and the others well.
type limitRunner struct {
	reset time.Time
	mu    sync.Mutex
	calls int
}

func (r *limitRunner) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.calls == 1 {
		return step.Result{Outcome: step.UsageLimit, ResetAt: r.reset}
	}
	return step.Result{Outcome: step.Succeeded, Billed: true, CostUSD: 0.5}
}

func TestGateUsageLimitHoldsEveryRun(t *testing.T) {
	clock := newManualClock()
	inner := &limitRunner{reset: clock.Now().Add(time.Hour)}
	g := NewGate(4, 0, "", clock, nil)
	r := g.Runner(inner)
	res := r.Run(context.Background(), step.Request{RunID: "a"}, step.Handler{})
	require.Equal(t, step.UsageLimit, res.Outcome)
	st := g.Status()
	require.NotNil(t, st.UsageLimit)
	require.Equal(t, inner.reset.Add(usageLimitPad), *st.UsageLimit)

	// Another run's step waits for the reset.
	done := make(chan step.Result, 1)
	go func() { done <- r.Run(context.Background(), step.Request{RunID: "b"}, step.Handler{}) }()
	waitWaiting(t, g, 1)
	clock.advance(59 * time.Minute)
	select {
	case <-done:
		t.Fatal("a step started during the usage-limit hold")
	default:
	}
	clock.advance(2 * time.Minute)
	require.Equal(t, step.Succeeded, (<-done).Outcome)
	require.Nil(t, g.Status().UsageLimit)
}

func TestGateDailyCap(t *testing.T) {
	clock := newManualClock()
	spendFile := filepath.Join(t.TempDir(), SpendFile)
	g := NewGate(4, 1.0, spendFile, clock, nil)
	r := g.Runner(&limitRunner{calls: 1}) // every step costs $0.50
	for range 2 {
		require.Equal(t, step.Succeeded, r.Run(context.Background(), step.Request{RunID: "a"}, step.Handler{}).Outcome)
	}
	st := g.Status()
	require.InDelta(t, 1.0, st.SpendTodayUSD, 1e-9)
	require.NotNil(t, st.HeldUntil, "the cap is reached")

	// A restarted daemon remembers the day's spend.
	again := NewGate(4, 1.0, spendFile, clock, nil)
	require.InDelta(t, 1.0, again.Status().SpendTodayUSD, 1e-9)

	done := make(chan step.Result, 1)
	go func() { done <- r.Run(context.Background(), step.Request{RunID: "b"}, step.Handler{}) }()
	waitWaiting(t, g, 1)
	clock.advance(13 * time.Hour) // past midnight: a new day, a new allowance
	require.Equal(t, step.Succeeded, (<-done).Outcome)
	require.InDelta(t, 0.5, g.Status().SpendTodayUSD, 1e-9)
}

func TestGateSpendFileHoldsTheLatestTotal(t *testing.T) {
	// Steps that end at once each add to the day's spend; the file must end
	// with the sum of all, not with the total of whichever wrote last.
	spendFile := filepath.Join(t.TempDir(), SpendFile)
	g := NewGate(64, 0, spendFile, newManualClock(), nil)
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() { g.book(state.Step{}, step.Result{Billed: true, CostUSD: 0.25}) })
	}
	wg.Wait()
	data, err := os.ReadFile(spendFile)
	require.NoError(t, err)
	var got spend
	require.NoError(t, json.Unmarshal(data, &got))
	require.InDelta(t, 16.0, got.USD, 1e-9)
	require.InDelta(t, 16.0, NewGate(1, 0, spendFile, newManualClock(), nil).Status().SpendTodayUSD, 1e-9)
}

// capRunner records the cap of each step it is given, and ends each one
// when the test sends its cost.
type capRunner struct {
	caps chan float64
	cost chan float64
}

func (r *capRunner) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	r.caps <- req.MaxBudgetUSD
	if req.Script != nil {
		return step.Result{Outcome: step.Succeeded} // a script costs nothing
	}
	return step.Result{Outcome: step.Succeeded, Billed: true, CostUSD: <-r.cost}
}

// Under a daily cap, each step starts capped at what is left of the day's
// cap once the steps in flight have what their caps allow: parallel steps
// cannot together spend past the cap.
func TestGateDailyCapCapsSteps(t *testing.T) {
	clock := newManualClock()
	g := NewGate(4, 0.05, "", clock, nil)
	inner := &capRunner{caps: make(chan float64), cost: make(chan float64)}
	r := g.Runner(inner)
	done := make(chan step.Result, 3)
	for _, run := range []string{"a", "b", "c"} {
		go func() { done <- r.Run(context.Background(), step.Request{RunID: run}, step.Handler{}) }()
	}
	// One step gets all that is left; the others wait for it.
	require.InDelta(t, 0.05, <-inner.caps, 1e-9)
	waitWaiting(t, g, 2)
	inner.cost <- 0.03
	require.Equal(t, step.Succeeded, (<-done).Outcome)
	require.InDelta(t, 0.02, <-inner.caps, 1e-9)
	waitWaiting(t, g, 1)
	inner.cost <- 0.02
	require.Equal(t, step.Succeeded, (<-done).Outcome)
	st := g.Status()
	require.InDelta(t, 0.05, st.SpendTodayUSD, 1e-9)
	require.NotNil(t, st.HeldUntil, "the cap is reached: the last step waits for tomorrow")
	require.Equal(t, 1, st.StepsWaiting)

	// Tomorrow the step's own cap, lower than the day's, is kept; and a
	// script, which costs nothing, is neither capped nor held back.
	clock.advance(13 * time.Hour)
	require.InDelta(t, 0.05, <-inner.caps, 1e-9)
	go func() {
		done <- r.Run(context.Background(), step.Request{RunID: "d", MaxBudgetUSD: 0.01, Script: &step.Script{}}, step.Handler{})
	}()
	require.InDelta(t, 0.01, <-inner.caps, 1e-9)
	require.Equal(t, step.Succeeded, (<-done).Outcome)
	go func() {
		done <- r.Run(context.Background(), step.Request{RunID: "e", MaxBudgetUSD: 0.001}, step.Handler{})
	}()
	waitWaiting(t, g, 1) // the first step holds all of the day's cap
	inner.cost <- 0.04
	require.Equal(t, step.Succeeded, (<-done).Outcome)
	require.InDelta(t, 0.001, <-inner.caps, 1e-9)
	inner.cost <- 0.001
	require.Equal(t, step.Succeeded, (<-done).Outcome)
}

// TestGateUsageLimitHoldsItsModel: a limit hit on one model holds the
// steps on that model, in every run, until its reset; steps on another
// model go on, and a step whose list has a model not held takes it.
func TestGateUsageLimitHoldsItsModel(t *testing.T) {
	clock := newManualClock()
	g := NewGate(4, 0, "", clock, nil)
	reset := clock.Now().Add(time.Hour)
	g.book(state.Step{Model: "opus"}, step.Result{Outcome: step.UsageLimit, ResetAt: reset})
	st := g.Status()
	require.Nil(t, st.UsageLimit, "not every model's")
	require.Equal(t, map[string]time.Time{"opus": reset.Add(usageLimitPad)}, st.ModelLimits)

	held := make(chan func(), 1)
	go func() {
		_, release, err := g.acquire(context.Background(), "a", "opus", true, 0)
		if err == nil {
			held <- release
		}
	}()
	waitWaiting(t, g, 1)
	_, release, err := g.acquire(context.Background(), "b", "sonnet", true, 0)
	require.NoError(t, err, "a step on sonnet is not held")
	release()

	model, rest := g.pick("opus", []string{"sonnet", "haiku"})
	require.Equal(t, "sonnet", model)
	require.Equal(t, []string{"haiku"}, rest)
	model, _ = g.pick("opus", nil)
	require.Equal(t, "opus", model)

	select {
	case <-held:
		t.Fatal("a step on opus started before the reset")
	default:
	}
	clock.advance(time.Hour + time.Minute)
	(<-held)()
	require.Nil(t, g.Status().ModelLimits)
}
