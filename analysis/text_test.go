package analysis

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteTextSections(t *testing.T) {
	r := forkRun(t).load(t)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	out := b.String()
	for _, want := range []string{
		"Run r1: completed\n",
		"  result    all done\n",
		"  cost      $0.1020 (no budget)\n",
		"  steps     6 in 3 agents: 0 failed, 0 retries, 0 reminders\n",
		"\nPath\n",
		"  main: completed, 4 steps, $0.0520\n",
		"      forked main_worker1, main_worker2\n",
		"    fork WAIT.md ",
		"    goto WAIT.md ",
		"  main_worker1: completed, 1 step, $0.0250\n    forked by main at START.md\n",
		"\nStates, by cost\n",
		"\nTimeline: 6.00s wall",
		"\nCritical path: 4 steps, 6.00s in steps + 0s between, of 6.00s wall\n",
	} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "Notes")
	assert.NotContains(t, out, "\x1b[", "no colour unless asked")
	// Two workers are too few to fold into one line.
	assert.NotContains(t, out, "same way")

	// The timeline: main runs all along, a worker from 1s to 5s.
	assert.Regexp(t, `\n  main         #{65}\n`, out)
	assert.Regexp(t, `\n  main_worker1 {11}#{45}\n`, out)
	assert.Regexp(t, `\n  running      1{10}3{45}1{10}\n`, out)
}

func TestWriteTextFitsTheWidth(t *testing.T) {
	long := strings.Repeat("VERY_LONG_STATE_NAME_", 4)
	r := runWorkflow(t, map[string]string{
		"START.md":      "Fan out.",
		long + ".md":    "Work.",
		"BORING_END.md": "End.",
	}, fmt.Sprintf(`
replies:
  START: [{text: '<fork next="BORING_END" item="a">%[1]s</fork><fork next="BORING_END" item="b">%[1]s</fork><fork next="BORING_END" item="c">%[1]s</fork>', delay: 1s}]
  %[1]s: [{text: "<result>{{item}}</result>", delay: 2s, times: 3}]
  BORING_END: [{text: "<result>end</result>", delay: 5s}]
`, long), options{}).load(t)
	for _, w := range []int{60, 80, 132} {
		var b bytes.Buffer
		require.NoError(t, WriteText(&b, r, TextOptions{Width: w, Sort: "time"}))
		for line := range strings.Lines(b.String()) {
			assert.LessOrEqual(t, width(strings.TrimRight(line, "\n")), w, "%q", line)
		}
		out := b.String()
		assert.Contains(t, out, "each forked by main at START.md", "width %d", w)
		assert.Contains(t, out, "3 agents", "three siblings on one path fold into one")
		assert.Contains(t, out, "States, by time")
	}
}

func TestWriteTextColor(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go."}, `
replies:
  START: ["no tag"]
`, options{}).load(t)
	var plain, color bytes.Buffer
	require.NoError(t, WriteText(&plain, r, TextOptions{}))
	require.NoError(t, WriteText(&color, r, TextOptions{Color: true}))
	assert.Contains(t, plain.String(), "Run r1: failed\n")
	assert.Contains(t, plain.String(), "    failed: workflow wf: START.md: ")
	assert.Contains(t, color.String(), "\x1b[31mfailed\x1b[0m")
}

func TestWriteTextFoldsLoops(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "WAIT.md": "Wait."}, `
replies:
  START: ["<goto>WAIT</goto>"]
  WAIT: [{text: "<goto>WAIT</goto>", times: 11}, "<result>done</result>"]
`, options{}).load(t)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	assert.Contains(t, b.String(), "    goto WAIT.md ×12 ")
	assert.Contains(t, b.String(), "  +0s      main_WAIT_002 ×12")
}

func TestWriteTextNotes(t *testing.T) {
	rn := forkRun(t)
	appendFile(t, rn.dir+"/events.jsonl", `{"type":`)
	r := rn.load(t)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{Width: 60}))
	assert.Contains(t, b.String(), "\nNotes\n  - events.jsonl ends in a torn line (8 bytes), dropped: the\n    process was killed while writing it\n")
}

func TestWriteJSON(t *testing.T) {
	r := forkRun(t).load(t)
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, r))
	var back map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &back))
	assert.EqualValues(t, SchemaVersion, back["schema"])
	assert.Equal(t, "completed", back["status"])
	assert.Contains(t, b.String(), "\n  \"steps_detail\": [\n", "indented")

	var round Run
	require.NoError(t, json.Unmarshal(b.Bytes(), &round))
	assert.Equal(t, r.CriticalPath, round.CriticalPath)
	assert.Equal(t, len(r.Steps), len(round.Steps))
	want := *r.Steps[0]
	want.Duration = 0 // kept in full in memory only; duration_ms carries it
	assert.Equal(t, want, *round.Steps[0])
}

func TestWriteTextEmptyRun(t *testing.T) {
	r := &Run{ID: "x", Status: "unknown"}
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	assert.Equal(t, "Run x: unknown\n", strings.SplitAfter(b.String(), "\n")[0])
	assert.NotContains(t, b.String(), "Timeline")
}
