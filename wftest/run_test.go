package wftest

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runFiles writes files under a new folder and runs the test files among
// them (given relative to it).
func runFiles(t *testing.T, files map[string]string, o Options, tests ...string) *Report {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, files)
	var paths []string
	for _, p := range tests {
		paths = append(paths, filepath.Join(dir, p))
	}
	return Run(context.Background(), paths, o)
}

// failures returns the failures of every case, by case id.
func failures(r *Report) map[string][]string {
	out := make(map[string][]string)
	for _, f := range r.Files {
		for _, c := range f.Cases {
			out[c.ID] = c.Failures
		}
	}
	return out
}

const loopCases = `
cases:
  - name: fixes twice
    input: the parser
    replies:
      START: ["Two fail in {{input}}. <goto>FIX.md</goto>"]
      FIX:
        - {text: "One left. <goto>FIX.md</goto>", cost: 0.01}
        - {text: "Done. <goto>SUMMARY.md</goto>", cost: 0.02}
      SUMMARY: ["<result>Fixed both.</result>"]
    expect:
      result: Fixed both.
      result_matches: "^Fixed"
      path:
        main: [START, FIX, FIX, SUMMARY]
      steps: 4
      cost: 0.03
      unvisited: [GIVE_UP]
  - name: gives up
    replies:
      START: ["<goto>FIX.md</goto>"]
      FIX: ["<goto>GIVE_UP.md</goto>"]
      GIVE_UP: ["<result>Stuck.</result>"]
    expect:
      path:
        main: [START, FIX, SUMMARY]
  - name: runs out of replies
    replies:
      START: ["<goto>FIX.md</goto>"]
      FIX: ["<goto>FIX.md</goto>"]
      SUMMARY: ["<result>never</result>"]
  - name: a crash is retried
    replies:
      START:
        - outcome: crash
        - {outcome: api_error, cost: 0.5}
        - "<goto>SUMMARY.md</goto>"
      SUMMARY: ["<result>ok</result>"]
    expect:
      path:
        main: [START, SUMMARY]
      steps: 4
      cost: 0.5
`

func TestRunCases(t *testing.T) {
	rep := runFiles(t, map[string]string{
		"wf/loop.test.yaml": loopCases,
		"wf/START.md":       loopWorkflow["wf/START.md"],
		"wf/FIX.md":         loopWorkflow["wf/FIX.md"],
		"wf/SUMMARY.md":     loopWorkflow["wf/SUMMARY.md"],
		"wf/GIVE_UP.md":     loopWorkflow["wf/GIVE_UP.md"],
	}, Options{}, "wf/loop.test.yaml")
	require.Len(t, rep.Files, 1)
	require.NoError(t, rep.Files[0].Err)
	got := failures(rep)
	assert.Empty(t, got["loop/fixes twice"])
	assert.Empty(t, got["loop/a crash is retried"])
	assert.Equal(t, []string{
		"path of main (- expected, + actual):\n  START\n  goto FIX\n- SUMMARY\n+ goto GIVE_UP",
	}, got["loop/gives up"])
	assert.Equal(t, []string{
		"replies for FIX.md ran out: step main_FIX_003 found none left",
		"status: got failed, want completed (main failed: workflow wf: FIX.md: the step could not run: no scripted reply left for FIX.md: loop/runs out of replies gives 1 and all were used)",
		`1 reply never used: SUMMARY #1 "<result>never</result>"`,
	}, got["loop/runs out of replies"])
	assert.Equal(t, 2, rep.Failed())
	assert.Equal(t, 4, rep.CaseCount())

	c := rep.Files[0].Cases[0]
	assert.Equal(t, "completed", c.Status)
	assert.Equal(t, 4, c.Steps)
	assert.InDelta(t, 0.03, c.CostUSD, 1e-9)
	assert.Equal(t, []Path{{Agent: "main", Visits: []Visit{{State: "START.md", Via: ""}, {State: "FIX.md", Via: "goto"}, {State: "FIX.md", Via: "goto"}, {State: "SUMMARY.md", Via: "goto"}}}}, c.Paths)
}

func TestRunSelectsAndSurvivesBadFiles(t *testing.T) {
	files := map[string]string{"bad.test.yaml": "workflow: wf\ncases:\n  - name: a\n    inptu: x\n"}
	for name, body := range loopWorkflow {
		files[name] = body
	}
	files["loop.test.yaml"] = "workflow: wf\n" + loopCases
	rep := runFiles(t, files, Options{Run: regexp.MustCompile("loop/.*(twice|crash)")}, "bad.test.yaml", "loop.test.yaml")
	require.Len(t, rep.Files, 2)
	require.Error(t, rep.Files[0].Err)
	assert.Contains(t, rep.Files[0].Err.Error(), `bad.test.yaml:4: case "a": unknown key "inptu"`)
	var ids []string
	for _, c := range rep.Files[1].Cases {
		ids = append(ids, c.ID)
		assert.True(t, c.Passed(), "%s: %v", c.ID, c.Failures)
	}
	assert.Equal(t, []string{"loop/fixes twice", "loop/a crash is retried"}, ids)
	assert.Equal(t, 1, rep.Failed(), "the bad file counts as a failure")
}

func TestRunFanOutWithAgentReplies(t *testing.T) {
	files := map[string]string{"fan/fan.test.yaml": `
cwd: ..
cases:
  - name: each worker answers for itself
    max_parallel: 4
    replies:
      START:
        - |
          <fork item="a" cd="fan">WORKER.md</fork>
          <fork item="b">WORKER.md</fork>
          <goto>JOIN.md</goto>
      main_worker1/WORKER: ["<result>first {{item}}</result>"]
      main_worker2/WORKER: ["<result>second {{item}}</result>"]
      JOIN: ["<result>joined</result>"]
    expect:
      result: joined
      path:
        main: [START, JOIN]
        main_worker1: [WORKER]
        main_worker2: [WORKER]
      steps: 4
`}
	for name, body := range fanWorkflow {
		files[name] = body
	}
	rep := runFiles(t, files, Options{}, "fan/fan.test.yaml")
	require.NoError(t, rep.Files[0].Err)
	c := rep.Files[0].Cases[0]
	assert.Empty(t, c.Failures)
	assert.Equal(t, []Visit{{State: "WORKER.md", Via: "fork"}}, c.Paths[1].Visits)
}

func TestRunTimeout(t *testing.T) {
	files := map[string]string{"wf/slow.test.yaml": `
cases:
  - name: hangs
    replies:
      START: [{text: "<goto>FIX.md</goto>", delay: 1h}]
`}
	for name, body := range loopWorkflow {
		files[name] = body
	}
	start := time.Now()
	rep := runFiles(t, files, Options{Timeout: 500 * time.Millisecond}, "wf/slow.test.yaml")
	assert.Less(t, time.Since(start), time.Minute, "the case is stopped, not waited for")
	fails := rep.Files[0].Cases[0].Failures
	require.Len(t, fails, 1)
	assert.Regexp(t, `^timed out after 500ms with the run still going \(1 step so far\); step main_START_001 was still running after \d+ms: a reply with a long delay\? \(--timeout sets the limit\)$`, fails[0])
}

func TestRunTimeoutInALoop(t *testing.T) {
	files := map[string]string{"wf/loop.test.yaml": `
cases:
  - name: loops
    replies:
      START: ["<goto>FIX.md</goto>"]
      FIX: [{text: "<goto>FIX.md</goto>", repeat: true}]
`}
	for name, body := range loopWorkflow {
		files[name] = body
	}
	// FIX.md answering alike would be stopped as a cycle (below) before
	// the timeout: it opts out here.
	files["wf/FIX.md"] = "---\ncycle_check: false\n---\n" + loopWorkflow["wf/FIX.md"]
	rep := runFiles(t, files, Options{Timeout: 100 * time.Millisecond}, "wf/loop.test.yaml")
	fails := rep.Files[0].Cases[0].Failures
	require.Len(t, fails, 1)
	assert.Regexp(t, `^timed out after 100ms with the run still going \(\d+ steps so far\); a reply with repeat: true in a loop\? `, fails[0])
}

// A case runs with a real run's runaway checks: a state answering alike
// round after round fails its agent, as it would with claude.
func TestRunStopsACycle(t *testing.T) {
	files := map[string]string{"wf/loop.test.yaml": `
cases:
  - name: loops
    replies:
      START: ["<goto>FIX.md</goto>"]
      FIX: [{text: "<goto>FIX.md</goto>", repeat: true}]
`}
	for name, body := range loopWorkflow {
		files[name] = body
	}
	rep := runFiles(t, files, Options{Timeout: time.Minute}, "wf/loop.test.yaml")
	fails := rep.Files[0].Cases[0].Failures
	require.Len(t, fails, 1)
	assert.Contains(t, fails[0], "FIX.md → FIX.md repeated 3 times with identical answers: stopped (cycle_stop 3)")
}

func TestRunWithoutTimeout(t *testing.T) {
	files := map[string]string{"wf/slow.test.yaml": `
cases:
  - name: takes its time
    replies:
      START: [{text: "<result>done</result>", delay: 20ms}]
    expect: {result: done}
`}
	for name, body := range loopWorkflow {
		files[name] = body
	}
	rep := runFiles(t, files, Options{Timeout: NoTimeout}, "wf/slow.test.yaml")
	assert.Empty(t, rep.Files[0].Cases[0].Failures)
}

func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	write(t, dir, map[string]string{"wf/slow.test.yaml": "cases:\n  - name: hangs\n    replies:\n      START: [{text: x, delay: 1h}]\n"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rep := Run(ctx, []string{filepath.Join(dir, "wf/slow.test.yaml")}, Options{})
	require.Len(t, rep.Files[0].Cases, 1)
	fails := rep.Files[0].Cases[0].Failures
	require.Len(t, fails, 1)
	assert.True(t, strings.HasPrefix(fails[0], "interrupted after "), fails[0])
}

// TestRunSaysWhyRepliesRanOut: when a state's replies run out because the
// answer before was refused (here: a target the policy no longer allows),
// the failure gives the refusal's reason, which is what the author must fix.
func TestRunSaysWhyRepliesRanOut(t *testing.T) {
	rep := runFiles(t, map[string]string{
		"wf/START.md": "---\nallowed_transitions:\n  - { tag: goto, target: END.md }\n---\nGo.",
		"wf/END.md":   "End.",
		"wf/GONE.md":  "Gone.",
		"wf/t.test.yaml": `
cases:
  - name: refused
    replies:
      START: ["<goto>GONE.md</goto>"]
`,
	}, Options{}, "wf/t.test.yaml")
	got := failures(rep)["t/refused"]
	require.NotEmpty(t, got)
	assert.Equal(t, "replies for START.md ran out: step main_START_002 found none left; "+
		"the answer of main_START_001 before it was refused: <goto>GONE.md</goto> is not one of the transitions START.md allows", got[0])
}

// TestRunBypassState: a case runs no claude, so a state that asks for
// permission_mode: bypassPermissions is tested like any other, where a run
// not started with --dangerously-skip-permissions refuses it and the case
// had no flag to give.
func TestRunBypassState(t *testing.T) {
	rep := runFiles(t, map[string]string{
		"wf/START.md": "---\nallowed_transitions:\n  - { tag: goto, target: FIX.md }\n---\nLook. <goto>FIX.md</goto>\n",
		"wf/FIX.md":   "---\npermission_mode: bypassPermissions\ndisallowed_tools: [WebFetch]\n---\nFix it. <result>ok</result>\n",
		"wf/wf.test.yaml": `
cases:
  - name: through the bypass state
    replies:
      START: ["<goto>FIX.md</goto>"]
      FIX: ["<result>fixed</result>"]
    expect:
      result: fixed
`,
	}, Options{}, "wf/wf.test.yaml")
	require.NoError(t, rep.Files[0].Err)
	assert.Empty(t, rep.Files[0].Cases[0].Failures)
}
