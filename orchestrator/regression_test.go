package orchestrator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// Tests written during the review of the orchestrator: each failed before
// the fix it names.

// The same through Drive: every step start after a usage limit with a past
// reset comes at least limitBackoff after the one before.
func TestDriveUsageLimitInThePastDoesNotSpin(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go."})
	w.create(t, "r1", state.Options{}, 0)
	clock := &InstantClock{}
	var starts []time.Time
	runner := runnerFunc(func(_ context.Context, req step.Request) *claude.Result {
		starts = append(starts, clock.Now())
		if len(starts) < 3 {
			return &claude.Result{Outcome: claude.UsageLimit, Text: "limit", ResetAt: clock.Now().Add(-time.Minute)}
		}
		return &claude.Result{Outcome: claude.Success, HasResult: true, Text: "<result>ok</result>", SessionID: "s"}
	})
	d := w.driver(runner)
	d.Clock = clock
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	require.Len(t, starts, 3)
	for i := 1; i < len(starts); i++ {
		assert.GreaterOrEqual(t, starts[i].Sub(starts[i-1]), 5*time.Minute, "step %d started right after a usage limit", i+1)
	}
}

// A run that reaches its budget while another agent's usage limit makes it
// wait cannot start any step after the wait: it ends budget_exceeded at once
// instead of sleeping until the reset (or, with --no-wait, pausing as if only
// the limit stood in its way).
func TestBudgetReachedDuringUsageLimit(t *testing.T) {
	files := map[string]string{"START.md": "Go.", "W.md": "Work.", "JOIN.md": "Join.", "END.md": "End."}
	const script = `
replies:
  START: ['<fork next="JOIN.md">W.md</fork>']
  W: [{outcome: usage_limit, reset: 5h}]
  JOIN: [{text: "<goto>END</goto>", cost: 0.005}]
`
	for _, noWait := range []bool{false, true} {
		w := newWorld(t, files)
		w.create(t, "r1", state.Options{MaxParallel: 2, NoWait: noWait}, 0.005)
		d := w.driver(replies(t, script))
		// Time stands still: a run that waits for the reset waits until
		// the guard below gives up, and ends paused.
		d.Clock = frozenClock{}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		run, err := d.Drive(ctx, "r1", nil)
		cancel()
		require.NoError(t, err)
		assert.Equal(t, state.StatusBudgetExceeded, run.Status, "no-wait %v", noWait)
		assert.Contains(t, run.Error, "budget reached", "no-wait %v", noWait)
		assert.NotNil(t, run.Wait, "no-wait %v: the limit still applies once the budget is raised", noWait)
	}
}

// With fewer slots than ready agents, an agent that is always ready again
// (a parent going from state to state) must not keep the slot forever: the
// agents it forked get their turn. Otherwise, with --max-parallel 1, a parent
// that polls for its workers' results loops for ever.
func TestMaxParallelOneDoesNotStarveForks(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "W.md": "Work.", "LOOP.md": "Check."})
	w.create(t, "r1", state.Options{MaxParallel: 1}, 0)
	r := replies(t, `
replies:
  START: ['<fork next="LOOP.md">W.md</fork>']
  LOOP: [{text: "<goto>LOOP</goto>", times: 3}, "<result>done</result>"]
  W: ["<result>worked</result>"]
`)
	var mu sync.Mutex
	var order []string
	d := w.driver(stepHook{Runner: r, before: func(req step.Request) {
		mu.Lock()
		defer mu.Unlock()
		order = append(order, req.Agent+":"+req.Step.State)
	}})
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	worker := slices.Index(order, "main_w1:W.md")
	require.GreaterOrEqual(t, worker, 0, "%v", order)
	assert.Less(t, worker, 3, "the worker waited for the parent's whole chain: %v", order)
}

// An agent that fails as its step is prepared (its state no longer loads)
// is saved as failed with the next write, so that raymond status shows it
// while the other agents go on.
func TestFailureBeforeStartIsSaved(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "W.md": "Work.", "JOIN.md": "Join.", "END.md": "End."})
	w.create(t, "r1", state.Options{MaxParallel: 2}, 0)
	r := replies(t, `
replies:
  START: ['<fork next="JOIN.md">W.md</fork>']
  W: [{outcome: crash}]
  JOIN: ["<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	failed := make(chan struct{})
	var onDisk *state.Run
	d := w.driver(stepHook{Runner: r, before: func(req step.Request) {
		switch req.Step.State {
		case "W.md":
			// W.md breaks while the worker's first try runs: its retry
			// cannot load the state and fails the worker before it starts.
			breakState(t, w, "W.md")
		case "JOIN.md":
			// main goes on only once the worker has failed, so that END
			// starts, and its launch is saved, after the failure.
			select {
			case <-failed:
			case <-time.After(time.Minute):
				t.Error("the worker did not fail")
			}
		case "END.md":
			var err error
			if onDisk, err = w.store.Read("r1"); err != nil {
				t.Error(err)
			}
		}
	}})
	d.Progress = &lineSignal{w: d.Progress, text: "[main_w1] failed: workflow wf: W.md:2: invalid frontmatter", ch: failed}
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusFailed, run.Status)
	require.NotNil(t, onDisk)
	worker := onDisk.Agent("main_w1")
	require.NotNil(t, worker)
	assert.Equal(t, state.AgentFailed, worker.Status, "the state file says the failed worker is %s", worker.Status)
	assert.Contains(t, worker.LastError, "workflow wf: W.md:2: invalid frontmatter")
}

// lineSignal passes writes on to w and closes ch the first time one contains
// text.
type lineSignal struct {
	w    io.Writer
	text string
	ch   chan struct{}
	once sync.Once
}

func (l *lineSignal) Write(p []byte) (int, error) {
	if strings.Contains(string(p), l.text) {
		l.once.Do(func() { close(l.ch) })
	}
	return l.w.Write(p)
}

// runnerFunc is a step.Runner made of a function.
type runnerFunc func(ctx context.Context, req step.Request) *claude.Result

// Its results are put in the orchestrator's terms as the claude runner puts
// a real claude's.
func (f runnerFunc) Run(ctx context.Context, req step.Request, _ step.Handler) step.Result {
	return claude.Neutral(f(ctx, req), req)
}

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// frozenClock is a clock on which time does not pass: its After never fires.
type frozenClock struct{}

func (frozenClock) Now() time.Time                       { return t0 }
func (frozenClock) After(time.Duration) <-chan time.Time { return nil }

// breakState rewrites a state of w's workflow with frontmatter that does not
// parse: the state still exists (a transition to it is accepted) but cannot
// be loaded.
func breakState(t *testing.T, w *world, name string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(w.wf, name), []byte("---\nallowed_transitions: [\n---\nbroken\n"), 0o644); err != nil {
		t.Error(err) // called from a step's goroutine: no FailNow
	}
}

// endSink checks, when the end of the run is announced, what a process
// killed at that moment would leave on disk: the snapshot alone, with no
// journal to replay.
type endSink struct {
	t     *testing.T
	store *state.Store
	id    string
	seen  []string
}

func (s *endSink) Event(e transcript.Event) {
	if e.Type != transcript.EventRunEnded && e.Type != transcript.EventSummary {
		return
	}
	s.seen = append(s.seen, e.Type)
	data, err := os.ReadFile(s.store.Path(s.id))
	if err != nil {
		s.t.Errorf("read the state file at %s: %v", e.Type, err)
		return
	}
	var r state.Run
	if err := json.Unmarshal(data, &r); err != nil {
		s.t.Errorf("decode the state file at %s: %v", e.Type, err)
		return
	}
	assert.Equal(s.t, state.StatusCompleted, r.Status, "the snapshot on disk when %s is published", e.Type)
	assert.NotNil(s.t, r.Result, "the result on disk when %s is published", e.Type)
	_, err = os.Stat(strings.TrimSuffix(s.store.Path(s.id), ".json") + ".journal")
	assert.True(s.t, os.IsNotExist(err), "no journal is left to replay when %s is published", e.Type)
}

// Issue 9, item 1: the end of a run is durable before it is announced. A
// run killed after it said "completed" read as interrupted, because the
// final status reached disk only in the snapshot written after the summary.
func TestRunEndIsDurableBeforeItIsAnnounced(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	r := replies(t, `
replies:
  START: ["<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	d := w.driver(r)
	sink := &endSink{t: t, store: w.store, id: "r1"}
	d.Sinks = []Sink{sink}
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	assert.Equal(t, []string{transcript.EventRunEnded, transcript.EventSummary}, sink.seen)
}

// Issue 9 item 3: a step that ended inside claude but whose end was not
// saved when raymond died is run again on resume, and what its first
// attempt cost (its result line is in the transcript) is counted.
func TestCostOfALostStepEndIsCounted(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	// The run as a driver killed mid-step leaves it: main running its
	// first step, whose output already holds the result line.
	run, err := w.store.Read("r1")
	require.NoError(t, err)
	a := &run.Agents[0]
	a.Status, a.Steps = state.AgentRunning, 1
	a.Pending.SessionID = "11111111-2222-4333-8444-555555555555"
	run.Status = state.StatusRunning
	require.NoError(t, w.store.Write(run))
	dir := filepath.Join(w.dir, ".raymond", "debug", "r1")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	lost := `{"type":"system","subtype":"init","session_id":"11111111-2222-4333-8444-555555555555"}
{"type":"result","subtype":"success","is_error":false,"result":"<goto>END</goto>","session_id":"11111111-2222-4333-8444-555555555555","total_cost_usd":0.25,"num_turns":1}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main_START_001.jsonl"), []byte(lost), 0o600))

	r := replies(t, `
replies:
  START: [{text: "<goto>END</goto>", cost: 0.01}]
  END: [{text: "<result>ok</result>", cost: 0.02}]
`)
	got, err := w.driver(r).Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, got.Status)
	assert.InDelta(t, 0.28, got.TotalCostUSD, 1e-9, "the lost attempt, the re-run and END")
	assert.Contains(t, w.out.String(), "had ended and cost $0.2500; that is counted")
	// The re-run is a new step file, not the lost one rewritten.
	_, err = os.Stat(filepath.Join(dir, "main_START_002.jsonl"))
	assert.NoError(t, err)

	// Its budget counts it too: with a budget of 0.25, nothing more runs.
	w2 := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w2.create(t, "r2", state.Options{}, 0.25)
	run, err = w2.store.Read("r2")
	require.NoError(t, err)
	run.Agents[0].Status, run.Agents[0].Steps = state.AgentRunning, 1
	run.Status = state.StatusRunning
	require.NoError(t, w2.store.Write(run))
	dir = filepath.Join(w2.dir, ".raymond", "debug", "r2")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main_START_001.jsonl"), []byte(lost), 0o600))
	got, err = w2.driver(replies(t, "replies:\n  START: [\"<goto>END</goto>\"]\n")).Drive(context.Background(), "r2", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusBudgetExceeded, got.Status)
	assert.InDelta(t, 0.25, got.TotalCostUSD, 1e-9)
}

// salvaging is a runner whose steps, cut short with their driver, are found
// to have spent $0.20 elsewhere (as claude's session file tells): it logs
// when it is asked to sweep and to salvage.
type salvaging struct {
	step.Runner
	log *[]string
}

func (s salvaging) Sweep(marker string) ([]int, error) {
	*s.log = append(*s.log, "sweep")
	return nil, nil
}

func (s salvaging) Salvage(req step.Request, lines []byte) (step.Result, bool) {
	*s.log = append(*s.log, fmt.Sprintf("salvage %s, transcript lines: %v", req.Name(), lines != nil))
	return step.Result{Billed: true, Unreported: true, CostUSD: 0.2, SessionCostUSD: 0.2, SessionID: req.Step.SessionID}, true
}

// Issue 20 defect 3: a step cut short with its driver, whose spend only the
// runner can find (claude's session file), is counted on resume: without a
// transcript too, and only once the sweep has ended what the step left
// running, which may still be spending.
func TestCostOfACutShortStepIsCounted(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	_, err := Create(w.store, NewRun{Workflow: w.wf, ID: "r1"}) // no transcript
	require.NoError(t, err)
	run, err := w.store.Read("r1")
	require.NoError(t, err)
	a := &run.Agents[0]
	a.Status, a.Steps = state.AgentRunning, 1
	a.Pending.SessionID = "11111111-2222-4333-8444-555555555555"
	run.Status = state.StatusRunning
	require.NoError(t, w.store.Write(run))

	var log []string
	r := salvaging{Runner: replies(t, `
replies:
  START: [{text: "<goto>END</goto>", cost: 0.01}]
  END: [{text: "<result>ok</result>", cost: 0.02}]
`), log: &log}
	got, err := w.driver(r).Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, got.Status)
	assert.Equal(t, []string{"sweep", "salvage main_START_001, transcript lines: false"}, log)
	assert.InDelta(t, 0.23, got.TotalCostUSD, 1e-9, "the cut-short attempt, the re-run and END")
	assert.Contains(t, w.out.String(), "was cut short after spending $0.2000 (from claude's session file); that is counted")
}
