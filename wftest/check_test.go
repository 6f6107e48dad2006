package wftest

import (
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/analysis"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
)

// analysed builds an analysed run: main's path as "STATE/via" pairs.
func analysed(status string, result *string, steps int, cost float64, paths map[string][]string) *analysis.Run {
	run := &analysis.Run{Status: status, Result: result, StepCount: steps, CostUSD: cost}
	for _, id := range []string{"main", "main_worker1", "main_worker2"} {
		visits, ok := paths[id]
		if !ok {
			continue
		}
		a := &analysis.Agent{ID: id, Status: "completed"}
		for i := 0; i < len(visits); i += 2 {
			a.Path = append(a.Path, &analysis.Visit{State: visits[i], Via: visits[i+1], Steps: []string{id + "_" + visits[i] + "_00" + string(rune('1'+i/2))}})
		}
		run.Agents = append(run.Agents, a)
	}
	return run
}

func ptr[T any](v T) *T { return &v }

// emptyRunner is a runner whose every reply was used.
func emptyRunner(t *testing.T) *scripted.Runner {
	t.Helper()
	r, err := scripted.ParseValue("x", nil)
	require.NoError(t, err)
	return r
}

func TestCheck(t *testing.T) {
	run := analysed("completed", ptr("  Fixed both.\n"), 4, 0.03, map[string][]string{
		"main": {"START.md", "", "FIX.md", "goto", "FIX.md", "goto", "SUMMARY.md", "goto"},
	})
	tests := []struct {
		name   string
		expect Expect
		want   []string
	}{
		{"all hold", Expect{
			Status: "completed", Result: ptr("Fixed both."), ResultMatches: regexp.MustCompile("^Fixed"),
			Paths: []AgentStates{{Agent: "main", States: []string{"START", "FIX.md", "FIX", "SUMMARY"}}}, Steps: ptr(4), CostUSD: ptr(0.0300004),
			Unvisited: []string{"GIVE_UP"},
		}, nil},
		{"status", Expect{Status: "failed"}, []string{"status: got completed, want failed"}},
		{"result", Expect{Status: "completed", Result: ptr("Fixed one.")}, []string{`result: got "Fixed both.", want "Fixed one."`}},
		{"result regexp", Expect{Status: "completed", ResultMatches: regexp.MustCompile("^Broke")},
			[]string{`result: got "Fixed both.", which does not match /^Broke/`}},
		{"steps and cost", Expect{Status: "completed", Steps: ptr(5), CostUSD: ptr(0.04)},
			[]string{"steps: got 4, want 5", "cost: got 0.03 USD, want 0.04"}},
		{"unvisited", Expect{Status: "completed", Unvisited: []string{"FIX.md", "GIVE_UP"}},
			[]string{"unvisited: FIX.md was entered by main at step main_FIX.md_002"}},
		{"path", Expect{Status: "completed", Paths: []AgentStates{{Agent: "main", States: []string{"START", "FIX", "SUMMARY"}}}},
			[]string{"path of main (- expected, + actual):\n  START\n  goto FIX\n+ goto FIX\n  goto SUMMARY"}},
		{"path with tags", Expect{Status: "completed", Paths: []AgentStates{{Agent: "main",
			States: []string{"START", "FIX", "FIX", "SUMMARY"}, Tags: []string{"", "goto", "reset", ""}}}},
			[]string{"path of main (- expected, + actual):\n  START\n  goto FIX\n- reset FIX\n+ goto FIX\n  goto SUMMARY"}},
		{"agent missing", Expect{Status: "completed", Paths: []AgentStates{
			{Agent: "main", States: []string{"START", "FIX", "FIX", "SUMMARY"}}, {Agent: "main_worker1", States: []string{"WORKER"}},
		}}, []string{"path of main_worker1: the run has no agent main_worker1 (it has main)"}},
		{"an agent the case does not list is not checked", Expect{Status: "completed", Paths: []AgentStates{{Agent: "main_worker1", States: []string{"WORKER"}}}},
			[]string{"path of main_worker1: the run has no agent main_worker1 (it has main)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, check(&Case{Expect: tt.expect}, run, emptyRunner(t), nil))
		})
	}
}

func TestCheckWithoutResult(t *testing.T) {
	run := analysed("failed", nil, 2, 0, map[string][]string{"main": {"START.md", ""}})
	run.Agents[0].Status, run.Agents[0].Error = "failed", "START.md: crash (gave up after 3 retries)"
	got := check(&Case{Expect: Expect{Status: "completed", Result: ptr("x"), ResultMatches: regexp.MustCompile("x")}}, run, emptyRunner(t), nil)
	assert.Equal(t, []string{
		"status: got failed, want completed (main failed: START.md: crash (gave up after 3 retries))",
		`result: the run has no result (status failed), want "x"`,
		"result: the run has no result (status failed), want one matching /x/",
	}, got)
}

func TestCheckLongResult(t *testing.T) {
	run := analysed("completed", ptr("Title\nline one\nline two\n"), 1, 0, nil)
	got := check(&Case{Expect: Expect{Status: "completed", Result: ptr("Title\nline 1\nline two")}}, run, emptyRunner(t), nil)
	assert.Equal(t, []string{"result (- expected, + actual):\n  Title\n- line 1\n+ line one\n  line two"}, got)
}

func TestCheckReplies(t *testing.T) {
	r, err := scripted.Parse("replies", []byte(`
replies:
  WORKER.md: ["<result>a</result>"]
  JOIN.md:
    - "Waiting. <goto>JOIN.md</goto>"
    - "Still waiting. <goto>JOIN.md</goto>"
    - {text: "All in: every worker reported, and the overview is long enough to be cut", times: 3}
    - {text: "forever", repeat: true}
`))
	require.NoError(t, err)
	for seq, agent := range []string{"main_worker1", "main_worker2"} {
		req := step.Request{Agent: agent, Seq: seq + 1, Step: state.Step{Ref: state.Ref{State: "WORKER.md"}, Mode: state.SessionNew}}
		res := r.Run(context.Background(), req, step.Handler{})
		require.False(t, res.NotStarted, res.Reason)
	}
	for range 3 {
		res := r.Run(context.Background(), step.Request{Agent: "main", Seq: 1, Step: state.Step{Ref: state.Ref{State: "JOIN.md"}, Mode: state.SessionNew}}, step.Handler{})
		require.False(t, res.NotStarted, res.Reason)
	}
	got := check(&Case{Expect: Expect{Status: "completed"}}, analysed("completed", nil, 0, 0, nil), r, nil)
	assert.Equal(t, []string{
		"replies for WORKER.md ran out: step main_worker2_WORKER_002 found none left",
		`2 replies never used: JOIN.md #3 "All in: every worker reported, and the overview is long eno…" (used 1 of 3 times), ` +
			`JOIN.md #4 "forever" (repeat: true)`,
	}, got)
}
