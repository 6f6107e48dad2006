package analysis

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A failed run that has a result still says why it failed: which agents
// failed, and the reason of each.
func TestSummaryFailedAgents(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "WORKER.md": "Work on {{item}}.", "JOIN.md": "Join."}, `
replies:
  START: ['<fork next="JOIN" item="a">WORKER</fork><fork next="JOIN" item="b">WORKER</fork><fork next="JOIN" item="c">WORKER</fork>']
  main_worker1/WORKER: ["no tag"]
  main_worker2/WORKER: [{outcome: crash, times: 4}]
  WORKER: ["<result>done</result>"]
  JOIN: ["<result>joined</result>"]
`, options{}).load(t)
	assert.Equal(t, "failed", r.Status)
	require.NotNil(t, r.Result)
	assert.Equal(t, "2 agents failed: main_worker1, main_worker2", r.Error)

	out := textOf(t, r, 80)
	assert.Contains(t, out, "\n  result    joined\n  error     2 agents failed: main_worker1, main_worker2\n"+
		"            main_worker1: workflow wf: WORKER.md: the answer has no transition")
	assert.Contains(t, out, "\n            main_worker2: workflow wf: WORKER.md: claude exited with status 1")
}

func TestFailedAgentsText(t *testing.T) {
	one := &Run{Agents: []*Agent{{ID: "main", Status: "completed"}, {ID: "w1", Status: "failed", Error: "W.md: boom"}}}
	assert.Equal(t, "agent w1 failed: W.md: boom", failedAgents(one))
	many := &Run{}
	for _, id := range []string{"w1", "w2", "w3", "w4", "w5"} {
		many.Agents = append(many.Agents, &Agent{ID: id, Status: "failed"})
	}
	assert.Equal(t, "5 agents failed: w1, w2, w3 and 2 more", failedAgents(many))
	assert.Empty(t, failedAgents(&Run{}))
}

// flakyRun loops one state through a crash, an API error and a usage
// limit before it succeeds: four steps in a row of one agent in one
// state, the usage-limit wait the gap before the last.
func flakyRun(t *testing.T) *Run {
	return runWorkflow(t, map[string]string{"START.md": "Go.", "FLAKY.md": "Try.", "END.md": "End."}, `
replies:
  START: ["<goto>FLAKY</goto>"]
  FLAKY: [{outcome: crash}, {outcome: api_error}, {outcome: usage_limit, reset: 2h}, "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`, options{}).load(t)
}

// A folded line of the critical path keeps the reason of its largest gap,
// in full, at any width.
func TestCriticalPathReasons(t *testing.T) {
	r := flakyRun(t)
	out := textOf(t, r, 80)
	assert.Regexp(t, `\n  \+\S+ +main_FLAKY_002 ×4 +\S+  2h00m usage-limit wait\n`, out)

	out = textOf(t, r, 50)
	assert.Regexp(t, `\n  \+\S+ +main\S*_002 ×4 +\S+  2h00m\n {11}\(gap: usage-limit wait\)\n`, out)
}

// The lines that matter are folded, not cut, at the width: the status, the
// summary's fields, the titles.
func TestTextWrapsImportantLines(t *testing.T) {
	rn := forkRun(t)
	cutEvents(t, rn.dir, 12)
	removeStepFiles(t, rn.dir, []string{metaSuffix}, "main_worker1_WORKER_001", "main_worker2_WORKER_001", "main_WAIT_003")
	removeStepFiles(t, rn.dir, []string{promptSuffix, linesSuffix, metaSuffix}, "main_JOIN_004")
	st := *rn.state
	st.Status = "running"
	st.Result = nil
	r, err := Load(Source{Dir: rn.dir, State: &st})
	require.NoError(t, err)
	out := textOf(t, r, 50)
	for line := range strings.Lines(out) {
		assert.LessOrEqual(t, width(strings.TrimRight(line, "\n")), 50, "%q", line)
	}
	flat := strings.Join(strings.Fields(out), " ")
	assert.Contains(t, flat, "Run r1: running according to its state file, but no process drives it workflow ")
	assert.Contains(t, flat, "time 3.00s wall, from ")
	assert.Contains(t, flat, "Critical path: 3 steps, 3.00s in steps + 0s between, of 3.00s wall AT")
	assert.NotContains(t, out, "…\n", "nothing is cut")
}

// Wide runes take two columns: a line of CJK text is laid out in as many
// screen columns as asked, no more.
func TestTextScreenColumns(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "WORKER.md": "W."}, `
replies:
  START: ['<fork next="WORKER" item="a">WORKER</fork>']
  WORKER: ["<result>w ünï `+strings.Repeat("日本語", 20)+`</result>", "<result>結果 `+strings.Repeat("データ ", 30)+`</result>"]
`, options{}).load(t)
	for _, w := range []int{MinWidth, 80, 132} {
		out := textOf(t, r, w)
		for line := range strings.Lines(out) {
			assert.LessOrEqual(t, width(strings.TrimRight(line, "\n")), w, "%q", line)
		}
		assert.Contains(t, out, "result: w ünï 日本語")
	}
}
