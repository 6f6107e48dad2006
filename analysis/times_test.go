package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/transcript"
)

// Steps far shorter than a millisecond add up to what they took: nothing
// is rounded before the sums, and the mean is not 0s.
func TestTimesKeepPrecision(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "LOOP.md": "Loop."}, `
replies:
  START: [{text: "<goto>LOOP</goto>", delay: 400us}]
  LOOP: [{text: "<goto>LOOP</goto>", delay: 400us, times: 9}, {text: "<result>done</result>", delay: 400us}]
`, options{}).load(t)
	require.Len(t, r.Steps, 11)
	loop := stateNamed(r, "LOOP.md")
	assert.Equal(t, 4*time.Millisecond, loop.Duration)
	assert.Equal(t, int64(4), loop.DurationMS)
	assert.Equal(t, 400*time.Microsecond, loop.Mean)
	assert.Equal(t, 4400*time.Microsecond, r.Wall)

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	out := b.String()
	assert.Contains(t, out, "\n  LOOP.md      10    10     4ms   400µs ")
	assert.Contains(t, out, "\nCritical path: 11 steps, 4.4ms in steps + 0s between, of 4.4ms wall\n")
	assert.Contains(t, out, "\nTimeline: 4.4ms wall, one column is 63µs\n", "4.4ms over 70 columns")
}

// The AT of a step on the critical path is the AT of the one before, plus
// what it took, plus the gap before this one: all from the events.
func TestTimesAddUp(t *testing.T) {
	r := forkRun(t).load(t)
	links := CriticalPath(r)
	require.Len(t, links, 4)
	at := r.Started.Add(links[0].Gap)
	for i, l := range links {
		if i > 0 {
			at = at.Add(links[i-1].Step.Duration + l.Gap)
		}
		assert.Equal(t, at, l.Step.Started, l.Step.Name)
		assert.Equal(t, l.Step.Ended.Sub(l.Step.Started), l.Step.Duration, l.Step.Name)
	}
}

// A run killed during a worker's step: the step ran from its start until
// the process stopped, as far as the transcript can tell, and is drawn so.
func TestTimesCutShort(t *testing.T) {
	rn := forkRun(t)
	// Killed at 3s, when main_WAIT_003 started: both workers run since 1s.
	cutEvents(t, rn.dir, 12)
	removeStepFiles(t, rn.dir, []string{metaSuffix}, "main_worker1_WORKER_001", "main_worker2_WORKER_001", "main_WAIT_003")
	removeStepFiles(t, rn.dir, []string{promptSuffix, linesSuffix, metaSuffix}, "main_JOIN_004")
	r, err := Load(Source{Dir: rn.dir})
	require.NoError(t, err)

	w := r.Step("main_worker1_WORKER_001")
	require.NotNil(t, w)
	assert.True(t, w.CutShort)
	assert.True(t, w.Ended.IsZero())
	assert.Equal(t, 2*time.Second, w.Duration, "from its start at 1s to the last event at 3s")

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	out := b.String()
	assert.Contains(t, out, "\n  - main_worker1_WORKER_001: cut short: ")
	assert.Regexp(t, `\n  main_worker1 {22}\?{44}\n`, out, "drawn from 1s to 3s, not one column")
	assert.Regexp(t, `\n  running      1{21}3{44}\n`, out, "counted while it ran")
	assert.Contains(t, out, "? a step cut short")
	assert.Contains(t, out, "  +3.00s   main_WAIT_003                                 ≥0s\n")
}

// A run a process drives now, waiting for the usage limit: its status
// says until when, and its wall time and its open wait run until now.
func TestTimesLiveWait(t *testing.T) {
	rn := runWorkflow(t, map[string]string{"START.md": "Go."}, `
replies:
  START: [{outcome: usage_limit, reset: 1h}, "<result>ok</result>"]
`, options{})
	cutEvents(t, rn.dir, 4) // run_started, step_started, step_ended, wait
	events := readEvents(t, rn.dir)
	wait := events[3]
	require.Equal(t, "wait", wait.Type)
	removeStepFiles(t, rn.dir, []string{promptSuffix, linesSuffix, metaSuffix}, "main_START_002")
	now := wait.Time.Add(10 * time.Minute)
	r, err := Load(Source{Dir: rn.dir, Running: true, PID: 42, Now: now})
	require.NoError(t, err)

	assert.Equal(t, "waiting", r.Status)
	assert.Equal(t, now.UTC(), r.Ended)
	assert.Equal(t, now.Sub(events[0].Time), r.Wall)
	assert.Equal(t, 10*time.Minute, r.WaitTime)
	assert.Equal(t, *wait.Until, r.Step("main_START_001").WaitUntil)

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{Width: 120}))
	out := b.String()
	until := clock(*wait.Until, now)
	assert.Contains(t, out, "Run r1: waiting for the usage limit until "+until+" (in 50m30s)\n")
	assert.Contains(t, out, "  waits     1 wait for usage limits, 10m00s in all; waiting until "+until+"\n")
	assert.Contains(t, out, " wall so far, from ")
	assert.Contains(t, out, "\n  +10m00s  now, still running\n")
	assert.NotContains(t, out, "run ended")
}

// readEvents decodes the events file of a transcript folder.
func readEvents(t *testing.T, dir string) []transcript.Event {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "events.jsonl"))
	require.NoError(t, err)
	events, torn, bad := decodeEvents(data)
	require.Zero(t, torn)
	require.Empty(t, bad)
	return events
}

// removeStepFiles removes the given files of steps: as if the run had
// been killed before it wrote them.
func removeStepFiles(t *testing.T, dir string, suffixes []string, names ...string) {
	t.Helper()
	for _, name := range names {
		for _, suffix := range suffixes {
			require.NoError(t, os.Remove(filepath.Join(dir, name+suffix)))
		}
	}
}

// A step of a run a process drives now runs until now.
func TestTimesRunningStep(t *testing.T) {
	rn := forkRun(t)
	cutEvents(t, rn.dir, 9) // main_WAIT_002 started at 1s
	removeStepFiles(t, rn.dir, []string{metaSuffix}, "main_WAIT_002", "main_worker1_WORKER_001", "main_worker2_WORKER_001")
	removeStepFiles(t, rn.dir, []string{promptSuffix, linesSuffix, metaSuffix}, "main_WAIT_003", "main_JOIN_004")
	events := readEvents(t, rn.dir)
	now := events[len(events)-1].Time.Add(time.Second)
	r, err := Load(Source{Dir: rn.dir, Running: true, Now: now})
	require.NoError(t, err)
	s := r.Step("main_WAIT_002")
	require.NotNil(t, s)
	assert.False(t, s.CutShort)
	assert.Equal(t, now.Sub(s.Started), s.Duration)

	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, &Detail{Step: s}, TextOptions{}))
	assert.Contains(t, b.String(), "\n  outcome   running, for 1.00s so far\n")
	assert.False(t, strings.Contains(b.String(), "not ended"))
}
