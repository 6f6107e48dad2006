package wftest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/analysis"
)

// joinWorkflow is a workflow whose JOIN state no longer allows going round
// again: an answer that does is refused, and a reminder follows.
var joinWorkflow = map[string]string{
	"wf/START.md": "Start. <goto>JOIN.md</goto>",
	"wf/JOIN.md":  "---\nallowed_transitions:\n  - { tag: result }\n---\nJoin.",
	"wf/LOOP.md":  "Loop. <goto>LOOP.md</goto>",
}

const joinCases = `
cases:
  - name: recovered
    replies:
      START: ["<goto>JOIN.md</goto>"]
      JOIN: ["Waiting. <goto>JOIN.md</goto>", "<result>joined</result>"]
    expect:
      path:
        main: [START, JOIN, JOIN]
  - name: passes with its reminder
    replies:
      START: ["<goto>JOIN.md</goto>"]
      JOIN: ["Waiting. <goto>JOIN.md</goto>", "<result>joined</result>"]
    expect:
      path:
        main: [START, goto JOIN]
      reminders: 1
      retries: 0
  - name: counts
    replies:
      START: [{outcome: crash}, "<goto>JOIN.md</goto>"]
      JOIN: ["Waiting. <goto>JOIN.md</goto>", "<result>joined</result>"]
    expect:
      reminders: 0
      retries: 2
  - name: budget
    budget: 0.5
    replies:
      START: [{text: "<goto>LOOP.md</goto>", cost: 0.2}]
      LOOP: [{text: "<goto>LOOP.md</goto>", cost: 0.3, repeat: true}]
    expect:
      status: budget_exceeded
      path:
        main: [START, LOOP]
`

// A case that fails says which answers the run refused: a reminder the
// workflow recovered from changes nothing but the path. A case that
// passes says nothing of them.
func TestRefusedAnswersExplainFailures(t *testing.T) {
	files := map[string]string{"wf/join.test.yaml": joinCases}
	for k, v := range joinWorkflow {
		files[k] = v
	}
	rep := runFiles(t, files, Options{}, "wf/join.test.yaml")
	require.NoError(t, rep.Files[0].Err)
	got := failures(rep)
	assert.Equal(t, []string{
		"1 answer refused (a reminder followed): main_JOIN_002: <goto>JOIN.md</goto> is not one of the transitions JOIN.md allows",
		"path of main (- expected, + actual):\n  START\n  goto JOIN\n- JOIN",
	}, got["join/recovered"])
	assert.Empty(t, got["join/passes with its reminder"])
	assert.Equal(t, []string{
		"1 answer refused (a reminder followed): main_JOIN_003: <goto>JOIN.md</goto> is not one of the transitions JOIN.md allows",
		"reminders: got 1, want 0",
		"retries: got 1, want 2",
	}, got["join/counts"])
	assert.Equal(t, []string{
		"path of main (- expected, + actual):\n  START\n  goto LOOP\n+ goto LOOP (not run: budget reached)",
	}, got["join/budget"])

	c := rep.Files[0].Cases[1]
	assert.Equal(t, 1, c.Reminders)
	var b strings.Builder
	require.NoError(t, WriteText(&b, rep, true))
	// The case's time is printed, but how long it takes is not this test's
	// business: a loaded machine takes longer (timings live in benchmarks).
	assert.Regexp(t, `--- PASS: join/passes with its reminder \(\d+\.\d\ds\)`, b.String())
	assert.Contains(t, b.String(), "    path:\n      main: [START, goto JOIN]\n    completed, 3 steps, 1 reminder, 0 USD\n")
}

// The not-run mark of -v is a YAML comment, so that the line can still be
// pasted into a case.
func TestVerboseMarksVisitsNotRun(t *testing.T) {
	c := &CaseResult{Status: "budget_exceeded", Steps: 3, Retries: 2, CostUSD: 0.9, Paths: []Path{{Agent: "main", Visits: []Visit{
		{State: "START.md"}, {State: "LOOP.md", Via: "goto"}, {State: "LOOP.md", Via: "goto", NotRun: "budget reached"},
	}}}}
	assert.Equal(t, "path:\n  main: [START, goto LOOP, goto LOOP]  # goto LOOP (not run: budget reached)\n"+
		"budget_exceeded, 3 steps, 2 retries, 0.9 USD", what(c))
}

// The list of refused answers is capped, and leaves out the steps another
// message explains already.
func TestRefusedMessage(t *testing.T) {
	run := &analysis.Run{}
	for i := 1; i <= 14; i++ {
		run.Steps = append(run.Steps, &analysis.Step{Name: fmt.Sprintf("main_FIX_%03d", i), Reminded: i%2 == 0 || i > 4, Refused: "no transition tag"})
	}
	run.Steps[1].Refused = ""
	tests := []struct {
		name string
		skip map[string]bool
		want string
	}{
		{"capped", nil, "12 answers refused (a reminder followed each): main_FIX_002: no reason recorded; " +
			"main_FIX_004: no transition tag; main_FIX_005: no transition tag; main_FIX_006: no transition tag; " +
			"main_FIX_007: no transition tag; main_FIX_008: no transition tag; main_FIX_009: no transition tag; " +
			"main_FIX_010: no transition tag; main_FIX_011: no transition tag; main_FIX_012: no transition tag; … and 2 more"},
		{"all explained", map[string]bool{
			"main_FIX_002": true, "main_FIX_004": true, "main_FIX_005": true, "main_FIX_006": true, "main_FIX_007": true, "main_FIX_008": true,
			"main_FIX_009": true, "main_FIX_010": true, "main_FIX_011": true, "main_FIX_012": true, "main_FIX_013": true,
		}, "1 answer refused (a reminder followed): main_FIX_014: no transition tag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, refusedMessage(run, tt.skip))
		})
	}
	assert.Empty(t, refusedMessage(&analysis.Run{}, nil))
	assert.Empty(t, refusedMessage(nil, nil))
}
