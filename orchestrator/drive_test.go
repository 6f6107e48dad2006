package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
)

// world is a project folder with a workflow and a store.
type world struct {
	dir   string
	wf    string
	store *state.Store
	out   strings.Builder
}

func newWorld(t *testing.T, files map[string]string) *world {
	t.Helper()
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf")
	require.NoError(t, os.MkdirAll(wf, 0o755))
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(wf, name), []byte(body), 0o644))
	}
	store, err := state.Open(filepath.Join(dir, ".raymond", "state"))
	require.NoError(t, err)
	return &world{dir: dir, wf: wf, store: store}
}

func (w *world) driver(runner step.Runner) *Driver {
	return &Driver{Store: w.store, Runner: runner, DebugDir: filepath.Join(w.dir, ".raymond", "debug"),
		Progress: syncWriter(&w.out), Clock: &InstantClock{}}
}

func (w *world) create(t *testing.T, id string, opts state.Options, budget float64) {
	t.Helper()
	opts.Debug = true
	_, err := Create(w.store, NewRun{Workflow: w.wf, ID: id, Options: opts, BudgetUSD: budget})
	require.NoError(t, err)
}

func replies(t *testing.T, yaml string) *scripted.Runner {
	t.Helper()
	r, err := scripted.Parse("replies.yaml", []byte(yaml))
	require.NoError(t, err)
	return r
}

// syncWriter makes a strings.Builder safe for the printer's concurrent use.
func syncWriter(b *strings.Builder) *lockedWriter { return &lockedWriter{b: b} }

type lockedWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func TestDriveFanOutCompletes(t *testing.T) {
	w := newWorld(t, map[string]string{
		"START.md":  "Fan out.",
		"WORKER.md": "Work on {{item}}.",
		"JOIN.md":   "Join.",
	})
	w.create(t, "r1", state.Options{MaxParallel: 2}, 0)
	r := replies(t, `
replies:
  START: ['<fork item="a">WORKER</fork><fork item="b">WORKER</fork><fork item="c">WORKER</fork><goto>JOIN</goto>']
  WORKER: [{text: "<result>{{item}} done</result>", times: 3, cost: 0.01}]
  JOIN: [{text: "<result>all done</result>", cost: 0.02}]
`)
	run, err := w.driver(r).Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	assert.Equal(t, "all done", *run.Result)
	assert.InDelta(t, 0.05, run.TotalCostUSD, 1e-9)
	require.Len(t, run.Agents, 4)
	results := map[string]bool{}
	for _, a := range run.Agents[1:] {
		assert.Equal(t, state.AgentCompleted, a.Status)
		results[*a.Result] = true
	}
	assert.Equal(t, map[string]bool{"a done": true, "b done": true, "c done": true}, results)
	assert.Empty(t, r.Unused())

	// What is on disk is what Drive returned, as one plain file.
	disk, err := w.store.Read("r1")
	require.NoError(t, err)
	assert.Equal(t, run.Agents, disk.Agents)
	assert.Equal(t, state.StatusCompleted, disk.Status)
	_, err = os.Stat(filepath.Join(w.dir, ".raymond", "state", "r1.journal"))
	assert.True(t, os.IsNotExist(err), "an ended run leaves no journal")

	// The transcript has every step and the transitions.
	debug := filepath.Join(w.dir, ".raymond", "debug", "r1")
	for _, name := range []string{"main_START_001", "main_JOIN_002", "main_worker1_WORKER_001"} {
		for _, ext := range []string{".prompt.md", ".jsonl", ".meta.json"} {
			assert.FileExists(t, filepath.Join(debug, name+ext))
		}
	}
	log, err := os.ReadFile(filepath.Join(debug, "transitions.log"))
	require.NoError(t, err)
	assert.Contains(t, string(log), "[main] START.md -> JOIN.md (fork)")
	assert.Contains(t, string(log), "[main] JOIN.md -> (result, terminated)")
	meta, err := os.ReadFile(filepath.Join(debug, "main_START_001.meta.json"))
	require.NoError(t, err)
	assert.Contains(t, string(meta), `"runner": "scripted"`)
	prompt, err := os.ReadFile(filepath.Join(debug, "main_worker2_WORKER_001.prompt.md"))
	require.NoError(t, err)
	assert.Equal(t, "Work on b.", string(prompt))
}

func TestDriveUsageLimitWaitsThenContinues(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	r := replies(t, `
replies:
  START: [{outcome: usage_limit, reset: 2h}, "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	run, err := w.driver(r).Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	assert.Nil(t, run.Wait)
	assert.Contains(t, w.out.String(), "usage limit reached")
	assert.Contains(t, w.out.String(), "wait over")
}

func TestDriveNoWaitPausesThenResumes(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{NoWait: true}, 0)
	r := replies(t, `
replies:
  START: [{outcome: usage_limit, reset: 2h}, "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	d := w.driver(r)
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusPaused, run.Status)
	require.NotNil(t, run.Wait)

	// Resumed after the reset (the instant clock moves on), it completes.
	clock := &InstantClock{}
	clock.After(3 * 60 * 60 * 1e9)
	d.Clock = clock
	run, err = d.Drive(context.Background(), "r1", func(r *state.Run) error { r.Options.NoWait = false; return nil })
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
}

func TestDriveBudgetStopsNewSteps(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "A.md": "A", "B.md": "B"})
	w.create(t, "r1", state.Options{}, 0.015)
	r := replies(t, `
replies:
  START: [{text: "<goto>A</goto>", cost: 0.01}]
  A: [{text: "<goto>B</goto>", cost: 0.01}, {text: "<goto>B</goto>", cost: 0.01}]
  B: [{text: "<result>x</result>", cost: 0.01}]
`)
	// START leaves 0.005; A, resuming START's session, gets that as its
	// cap, not that plus what the session cost (claude compares the cap
	// with the call's own spend: issue 20), goes past it and stops there;
	// the run has spent 0.02 and B does not start. Resumed, A runs again.
	d := w.driver(r)
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusBudgetExceeded, run.Status)
	assert.InDelta(t, 0.02, run.TotalCostUSD, 1e-9)
	assert.Equal(t, "A.md", run.Agents[0].CurrentState)
	assert.Equal(t, state.AgentReady, run.Agents[0].Status)

	run, err = d.Drive(context.Background(), "r1", func(r *state.Run) error { r.BudgetUSD = 1; return nil })
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	assert.InDelta(t, 0.04, run.TotalCostUSD, 1e-9)
}

func TestDriveStepStoppedAtTheBudgetWaits(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "B.md": "B"})
	w.create(t, "r1", state.Options{}, 0.015)
	r := replies(t, `
replies:
  START: [{text: "<reset>B</reset>", cost: 0.01}, ]
  B: [{text: "<result>x</result>", cost: 0.01}, {text: "<result>x</result>", cost: 0.01}]
`)
	// B starts a new session with 0.005 left: its cap, and it goes past
	// it, as claude --max-budget-usd stops it. The run stops there and B
	// runs again once the budget is raised.
	d := w.driver(r)
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusBudgetExceeded, run.Status)
	assert.Equal(t, "B.md", run.Agents[0].CurrentState)
	assert.Equal(t, state.AgentReady, run.Agents[0].Status)

	run, err = d.Drive(context.Background(), "r1", func(r *state.Run) error { r.BudgetUSD = 1; return nil })
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
}

func TestDriveQuiesceLetsStepsFinish(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	quiesce := make(chan struct{})
	r := replies(t, `
replies:
  START: ["<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	d := w.driver(stepHook{Runner: r, before: func(req step.Request) {
		if req.Step.State == "START.md" {
			close(quiesce) // the signal arrives while START runs
		}
	}})
	d.Quiesce = quiesce
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusPaused, run.Status)
	assert.Equal(t, "END.md", run.Agents[0].CurrentState, "the step in flight finished and its transition was kept")

	d.Quiesce = nil
	d.Runner = r
	run, err = d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	assert.Empty(t, r.Unused())
}

func TestDriveKillRerunsTheStep(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	r := replies(t, `
replies:
  START: [{text: "<goto>END</goto>", delay: 1h}]
  END: ["<result>ok</result>"]
`)
	ctx, cancel := context.WithCancel(context.Background())
	d := w.driver(stepHook{Runner: r, before: func(step.Request) { cancel() }})
	run, err := d.Drive(ctx, "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusPaused, run.Status)
	assert.Equal(t, state.AgentReady, run.Agents[0].Status)
	assert.Equal(t, "START.md", run.Agents[0].CurrentState)

	r2 := replies(t, `
replies:
  START: ["<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	d = w.driver(r2)
	run, err = d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
	assert.Equal(t, 3, run.Agents[0].Steps, "the killed step counts, and ran again once")
}

func TestDriveRefusesSecondDriver(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go."})
	w.create(t, "r1", state.Options{}, 0)
	lock, err := w.store.Lock("r1")
	require.NoError(t, err)
	defer lock.Release()
	_, err = w.driver(replies(t, "replies: {}")).Drive(context.Background(), "r1", nil)
	var locked *state.LockedError
	require.ErrorAs(t, err, &locked)
	assert.Equal(t, os.Getpid(), locked.PID)
}

func TestDriveMissingClaudePausesTheRun(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go."})
	w.create(t, "r1", state.Options{ClaudePath: filepath.Join(t.TempDir(), "no-claude")}, 0)
	run, err := w.driver(claude.Runner{}).Drive(context.Background(), "r1", nil)
	require.ErrorIs(t, err, ErrClaudeUnusable)
	require.ErrorIs(t, err, claude.ErrNotFound)
	assert.Equal(t, state.StatusPaused, run.Status)
	assert.Equal(t, state.AgentReady, run.Agents[0].Status)
}

// stepHook calls before as each step starts.
type stepHook struct {
	step.Runner
	before func(step.Request)
}

func (h stepHook) Run(ctx context.Context, req step.Request, hd step.Handler) step.Result {
	h.before(req)
	return h.Runner.Run(ctx, req, hd)
}

// A run whose workflow was moved away is refused as a workflow error (exit
// 2 on the command line), saying to put it back.
func TestDriveMovedWorkflowIsAWorkflowError(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Start."})
	w.create(t, "r1", state.Options{}, 0)
	require.NoError(t, os.Rename(w.wf, w.wf+".moved"))
	_, err := w.driver(replies(t, "replies: {}\n")).Drive(context.Background(), "r1", nil)
	var we *WorkflowError
	require.ErrorAs(t, err, &we)
	assert.Contains(t, err.Error(), "put the workflow back")
}

// The starting scope's manifest warnings (unknown keys) are shown once
// when the run is driven.
func TestDriveShowsManifestWarnings(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Start.", "workflow.yaml": "id: x\nflavour: vanilla\n"})
	w.create(t, "r1", state.Options{}, 0)
	_, err := w.driver(replies(t, "replies:\n  START.md:\n    - text: <result>ok</result>\n")).Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(w.out.String(), `unknown manifest key "flavour" ignored`), w.out.String())
}

// A step that runs long is said to be still running, with the tool it
// used last; after the first interrupt, progress names the steps the run
// waits for.
func TestDriveSaysWhatRunsLong(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	r := replies(t, `
replies:
  START: ["<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	release, quiesce := make(chan struct{}), make(chan struct{})
	d := w.driver(stepHook{Runner: r, before: func(req step.Request) {
		if req.Step.State == "START.md" {
			<-release
		}
	}})
	d.Heartbeat = 10 * time.Millisecond
	d.Quiesce = quiesce
	var out strings.Builder
	progress := syncWriter(&out)
	d.Progress = progress
	output := func() string {
		progress.mu.Lock()
		defer progress.mu.Unlock()
		return out.String()
	}
	done := make(chan *state.Run)
	go func() {
		run, err := d.Drive(context.Background(), "r1", nil)
		assert.NoError(t, err)
		done <- run
	}()
	waitFor := func(line string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(output(), line) {
			if time.Now().After(deadline) {
				t.Fatalf("no %q in:\n%s", line, output())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("[main] START.md: still running after")
	close(quiesce)
	waitFor("waiting for main START.md (")
	close(release)
	run := <-done
	assert.Equal(t, state.StatusPaused, run.Status)
}
