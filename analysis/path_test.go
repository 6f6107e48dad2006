package analysis

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// textOf writes the text report of r in width columns.
func textOf(t *testing.T, r *Run, width int) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{Width: width}))
	return b.String()
}

// Every step that failed counts as failed, whether it was retried or not;
// the retries are said apart.
func TestPathCountsFailedSteps(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go."}, `
replies:
  START: [{outcome: crash, times: 4}]
`, options{}).load(t)
	assert.Equal(t, "failed", r.Status)
	st := stateNamed(r, "START.md")
	assert.Equal(t, 4, st.Failures)
	out := textOf(t, r, 80)
	assert.Contains(t, out, "\n    START.md (4 failed steps, 3 retried) ")
}

// A loop stopped at the budget entered its state once more than it ran
// it: the path and the States table count that entry as a visit, and say
// it did not run.
func TestPathVisitNotRun(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "LOOP.md": "Loop."}, `
replies:
  START: [{text: "<goto>LOOP</goto>", cost: 0.3}]
  LOOP: [{text: "<goto>LOOP</goto>", cost: 0.3, repeat: true}]
`, options{budget: 1.2}).load(t)
	assert.Equal(t, "budget_exceeded", r.Status)
	main := r.Agent("main")
	assert.Equal(t, ":START.md:s>goto goto:LOOP.md:s>goto goto:LOOP.md:s>goto goto:LOOP.md:s>goto goto:LOOP.md:>", visits(main))
	for i, v := range main.Path {
		want := ""
		if i == len(main.Path)-1 {
			want = "budget reached"
		}
		assert.Equal(t, want, v.NotRun, "visit %d", i)
	}
	loop := stateNamed(r, "LOOP.md")
	assert.Equal(t, 4, loop.Visits)
	assert.Equal(t, 1, loop.NotRun)
	assert.Equal(t, 3, loop.Steps)
	assert.Equal(t, loop.Duration/3, loop.Mean, "per visit that ran")

	out := textOf(t, r, 100)
	assert.Regexp(t, `\n    goto LOOP\.md ×4 \(the last not run: budget reached\) +3 steps `, out)
	assert.Regexp(t, `\n  LOOP\.md  +4 +3 `, out)
	htmlHas(t, htmlReport(t, r, nil), `<span class="exit">not run: budget reached</span>`)
}

// A state whose only visit ran nothing has no mean time: the table says
// "-" rather than 0s.
func TestStatesMeanOfAStateNotRun(t *testing.T) {
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "A.md": "A", "B.md": "B"}, `
replies:
  START: [{text: "<goto>A</goto>", cost: 0.01}]
  A: [{text: "<goto>B</goto>", cost: 0.01}]
  B: [{text: "<result>x</result>", cost: 0.01}]
`, options{budget: 0.02}).load(t)
	b := stateNamed(r, "B.md")
	require.NotNil(t, b)
	require.Equal(t, 1, b.NotRun)
	out := textOf(t, r, 100)
	assert.Regexp(t, `\n  B\.md +1 +0 +0s +- +\$0\.0000 `, out)
	assert.Regexp(t, `\n  A\.md +1 +1 +0s +0s +\$0\.0100 `, out)
}

func TestPathNotRunReasons(t *testing.T) {
	for _, tc := range []struct {
		status, agent string
		budget        bool
		want          string
	}{
		{"paused", "stopped", false, "paused"},
		{"budget_exceeded", "stopped", true, "budget reached"},
		{"waiting", "running", false, "not started yet"},
		{"waiting", "stopped", false, "waiting for the usage limit"},
		{"failed", "stopped", false, "the run failed"},
		{"running", "stopped", false, "the run stopped"},
		// The status, from the last process, wins over a budget stop
		// that an earlier process reached.
		{"paused", "stopped", true, "paused"},
		{"unknown", "stopped", true, "budget reached"},
	} {
		r := &Run{Status: tc.status, BudgetExceeded: tc.budget}
		assert.Equal(t, tc.want, notRunReason(r, &Agent{Status: tc.agent}), "%+v", tc)
	}
}

// Siblings that went the same way are one group; the others of the same
// fork listed apart are named, and the group's different results shown.
func TestPathGroups(t *testing.T) {
	var forks strings.Builder
	for i := range 6 {
		fmt.Fprintf(&forks, `<fork next="JOIN" item="i%d">WORKER</fork>`, i)
	}
	r := runWorkflow(t, map[string]string{"START.md": "Go.", "WORKER.md": "Work on {{item}}.", "JOIN.md": "Join."}, fmt.Sprintf(`
replies:
  START: ['%s']
  main_worker3/WORKER: ["no tag"]
  WORKER: [{text: "<result>done {{item}}</result>", repeat: true}]
  JOIN: ["<result>joined</result>"]
`, forks.String()), options{}).load(t)
	assert.Equal(t, "failed", r.Status)
	out := textOf(t, r, 100)
	assert.Contains(t, out, "\n  main_worker1 … main_worker6 but main_worker3 (5 agents): completed, 5 steps, ")
	assert.Contains(t, out, "\n    results, 5 different: done i0; done i1; done i3; done i4; done i5\n")
	assert.Contains(t, out, "\n  main_worker3: failed, 1 step, ")
}

func TestGroupName(t *testing.T) {
	var agents []*Agent
	for i := 1; i <= 9; i++ {
		agents = append(agents, &Agent{ID: fmt.Sprintf("w%d", i), Parent: "main", SpawnStep: "s1"})
	}
	other := &Agent{ID: "x1", Parent: "main", SpawnStep: "s2"}
	agents = append(agents[:4], append([]*Agent{other}, agents[4:]...)...)
	pick := func(ids ...int) []*Agent {
		var g []*Agent
		for _, i := range ids {
			for _, a := range agents {
				if a.ID == fmt.Sprintf("w%d", i) {
					g = append(g, a)
				}
			}
		}
		return g
	}
	for _, tc := range []struct {
		group []*Agent
		want  string
	}{
		{pick(1, 2, 3, 4, 5, 6, 7, 8, 9), "w1 … w9 (9 agents)"},
		{pick(1, 2, 4, 5, 6, 7, 8, 9), "w1 … w9 but w3 (8 agents)"},
		{pick(1, 2, 3, 4, 5, 6, 7), "w1 … w7 (7 agents)"},
		{pick(2, 4, 6, 8), "w2 … w8 but w3, w5, w7 (4 agents)"},
		{pick(1, 5, 9), "w1 … w9 but w2, w3, w4 and 3 more (3 agents)"},
	} {
		assert.Equal(t, tc.want, groupName(tc.group, agents))
	}
}
