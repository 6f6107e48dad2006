package wftest

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/analysis"
	"raymond/scripted"
)

func TestListed(t *testing.T) {
	tests := []struct {
		items []string
		max   int
		want  string
	}{
		{nil, 3, ""},
		{[]string{"a"}, 3, "a"},
		{[]string{"a", "b", "c"}, 3, "a, b, c"},
		{[]string{"a", "b", "c", "d", "e"}, 3, "a, b, c, … and 2 more"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, listed(tt.items, tt.max), "%v", tt.items)
	}
}

func TestClip(t *testing.T) {
	assert.Equal(t, "short", clip("short", 5))
	assert.Equal(t, "shor…", clip("shorter", 5))
	assert.Equal(t, "日本…", clip("日本語です", 3), "cut by characters, not bytes")
}

func TestClipMessage(t *testing.T) {
	assert.Equal(t, "short", clipMessage("short"))

	long := strings.Repeat("é", maxFailure) // 2 bytes each
	got := clipMessage(long)
	require.True(t, utf8.ValidString(got), "not cut inside a character")
	assert.Less(t, len(got), maxFailure+100)
	assert.True(t, strings.HasSuffix(got, fmt.Sprintf("\n… %d more characters of this message not shown", maxFailure/2)), got[len(got)-80:])

	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("line %04d", i)) // 10 bytes with its newline
	}
	got = clipMessage(strings.Join(lines, "\n"))
	assert.True(t, strings.HasSuffix(got, "\nline 0399\n… 6000 more characters of this message not shown"), "cut at a line end: %q", got[len(got)-80:])
}

func TestExhaustedMessagesGroupSteps(t *testing.T) {
	var xs []scripted.Exhausted
	for i := 1; i <= 25; i++ {
		xs = append(xs, scripted.Exhausted{State: "WORKER.md", Step: fmt.Sprintf("main_worker%d_WORKER_001", i), Listed: true})
	}
	xs = append(xs, scripted.Exhausted{State: "JOIN.md", Step: "main_JOIN_003"})
	got, _ := exhaustedMessages(xs, nil)
	require.Len(t, got, 2)
	assert.Equal(t, "replies for WORKER.md ran out: 25 steps (main_worker1_WORKER_001, main_worker2_WORKER_001, main_worker3_WORKER_001, "+
		"main_worker4_WORKER_001, main_worker5_WORKER_001, main_worker6_WORKER_001, main_worker7_WORKER_001, main_worker8_WORKER_001, "+
		"main_worker9_WORKER_001, main_worker10_WORKER_001, … and 15 more) found none left", got[0])
	assert.Equal(t, "no replies for JOIN.md: step main_JOIN_003 found none; add JOIN.md to the case's replies", got[1])
	got, explained := exhaustedMessages(nil, nil)
	assert.Nil(t, got)
	assert.Empty(t, explained)
}

// failedFanOut is a run whose n workers all failed, the first three with
// an error of their own and the others with the same one.
func failedFanOut(n int) *analysis.Run {
	run := &analysis.Run{Status: "failed", Agents: []*analysis.Agent{{ID: "main", Status: "completed",
		Path: []*analysis.Visit{{State: "START.md"}}}}}
	for i := 1; i <= n; i++ {
		err := "WORKER.md: claude crashed " + strings.Repeat("and said a lot ", 50)
		if i <= 3 {
			err = fmt.Sprintf("WORKER.md: error %d", i)
		}
		run.Agents = append(run.Agents, &analysis.Agent{ID: fmt.Sprintf("main_worker%d", i), Status: "failed", Error: err,
			Path: []*analysis.Visit{{State: "WORKER.md", Via: "fork"}}})
	}
	return run
}

func TestWhyGroupsAndCapsErrors(t *testing.T) {
	got := why(failedFanOut(1))
	assert.Equal(t, " (main_worker1 failed: WORKER.md: error 1)", got)

	run := failedFanOut(200)
	run.Error = "200 agents failed: main_worker1, main_worker2, main_worker3 and 197 more"
	got = why(run)
	assert.Equal(t, " (main_worker1 failed: WORKER.md: error 1; main_worker2 failed: WORKER.md: error 2; "+
		"main_worker3 failed: WORKER.md: error 3; 197 more agents failed otherwise)", got)

	run = failedFanOut(200)
	for _, a := range run.Agents[1:4] {
		a.Status = "completed"
	}
	got = why(run)
	assert.Less(t, len(got), 2*maxReason+300, got)
	assert.Contains(t, got, "main_worker4, main_worker5, ")
	assert.Contains(t, got, "main_worker13, … and 187 more failed: WORKER.md: claude crashed and said")
	assert.Contains(t, got, "…)")

	run = &analysis.Run{Status: "failed", Error: "the workflow folder is gone"}
	assert.Equal(t, " (the workflow folder is gone)", why(run), "the run's own error when no agent says more")
}

func TestDiffIsCapped(t *testing.T) {
	a := make([]string, 500)
	b := make([]string, 500)
	for i := range a {
		a[i], b[i] = fmt.Sprint("a", i), fmt.Sprint("b", i)
	}
	show := func(e edit) string {
		if e.kind == '+' {
			return b[e.i]
		}
		return a[e.i]
	}
	got := strings.Split(formatDiff(diff(a, b), show, "states"), "\n")
	require.Len(t, got, maxDiffLines+1)
	assert.Equal(t, "  … 940 more lines of the diff not shown …", got[maxDiffLines])
}

// TestFailuresOfAHugeFanOutStayShort runs 60 workers that all crash, in a
// case that expects none of them, and checks that its report stays short.
func TestFailuresOfAHugeFanOutStayShort(t *testing.T) {
	var forks strings.Builder
	for i := range 60 {
		fmt.Fprintf(&forks, `<fork item="i%d">WORKER.md</fork>`, i)
	}
	files := map[string]string{"fan/crash.test.yaml": fmt.Sprintf(`
cases:
  - name: all crash
    max_parallel: 8
    replies:
      START: [%q]
      WORKER: [{outcome: crash, repeat: true}]
      JOIN: ["<result>joined</result>"]
    expect:
      path:
        main: [START, JOIN]
        main_worker99: [WORKER]
`, forks.String()+"<goto>JOIN.md</goto>")}
	for name, body := range fanWorkflow {
		files[name] = body
	}
	rep := runFiles(t, files, Options{}, "fan/crash.test.yaml")
	require.NoError(t, rep.Files[0].Err)
	fails := rep.Files[0].Cases[0].Failures
	require.Len(t, fails, 2, "%q", fails)
	assert.Regexp(t, `^status: got failed, want completed \(main_worker1, main_worker2, .*, … and 50 more failed: workflow fan: WORKER\.md: .*\)$`, fails[0])
	assert.Regexp(t, `^path of main_worker99: the run has no agent main_worker99 \(it has main, main_worker1, .*, … and 51 more\)$`, fails[1])
	for _, f := range fails {
		assert.Less(t, len(f), 1000, f)
	}
}
