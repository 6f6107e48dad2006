package analysis

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/require"

	"raymond/orchestrator"
	"raymond/scripted"
	"raymond/state"
)

// run is a run of a workflow, done, and where it left its files.
type run struct {
	project string
	dir     string // the transcript folder
	state   *state.Run
}

// source is the run as Load is given it by the command line.
func (r *run) source() Source { return Source{Dir: r.dir, State: r.state} }

// load analyses the run.
func (r *run) load(t testing.TB) *Run {
	t.Helper()
	got, err := Load(r.source())
	require.NoError(t, err)
	return got
}

// options adjust the run that runWorkflow creates.
type options struct {
	budget float64
	input  string
}

// runWorkflow writes the workflow files (name: content) into a temporary
// project, runs it with the scripted replies to its end, and returns where
// its transcript and state are. It runs in a synctest bubble: the replies'
// delays, retry back-offs and usage-limit waits take no real time, and all
// the times of the transcript are exact.
func runWorkflow(t testing.TB, files map[string]string, replies string, o options) *run {
	t.Helper()
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf")
	require.NoError(t, os.MkdirAll(wf, 0o755))
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(wf, name), []byte(body), 0o644))
	}
	store, err := state.Open(filepath.Join(dir, ".raymond", "state"))
	require.NoError(t, err)
	opts := state.Options{Debug: true}
	if o.input != "" {
		opts.Input = &o.input
	}
	_, err = orchestrator.Create(store, orchestrator.NewRun{Workflow: wf, ID: "r1", Options: opts, BudgetUSD: o.budget})
	require.NoError(t, err)
	runner, err := scripted.Parse("replies.yaml", []byte(replies))
	require.NoError(t, err)
	drive := func() {
		d := &orchestrator.Driver{Store: store, Runner: runner, DebugDir: filepath.Join(dir, ".raymond", "debug"),
			Clock: orchestrator.RealClock{}}
		_, err := d.Drive(context.Background(), "r1", nil)
		require.NoError(t, err)
	}
	if tt, ok := t.(*testing.T); ok {
		synctest.Test(tt, func(*testing.T) { drive() })
	} else {
		drive() // a benchmark: no bubble, and no delays in its replies
	}
	st, err := store.Read("r1")
	require.NoError(t, err)
	return &run{project: dir, dir: filepath.Join(dir, ".raymond", "debug", "r1"), state: st}
}

// appendFile appends text to the file at path.
func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// cutEvents keeps the first n lines of the run's events file.
func cutEvents(t *testing.T, dir string, n int) {
	t.Helper()
	path := filepath.Join(dir, "events.jsonl")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.Greater(t, len(lines), n)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:n], "")), 0o644))
}

// visits writes an agent's path briefly: via:STATE:steps>exit, … .
func visits(a *Agent) string {
	var parts []string
	for _, v := range a.Path {
		s := v.Via + ":" + v.State + ":" + strings.Repeat("s", len(v.Steps)) + ">" + v.Exit
		if v.Depth > 0 {
			s = strings.Repeat("+", v.Depth) + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}
