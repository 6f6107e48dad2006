package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
)

func TestWorse(t *testing.T) {
	tests := []struct{ a, b, want int }{
		{exitOK, exitOK, exitOK},
		{exitOK, exitPaused, exitPaused},
		{exitPaused, exitFailed, exitFailed},
		{exitFailed, exitPaused, exitFailed},
		{exitFailed, exitUsage, exitUsage},
		{exitUsage, exitOK, exitUsage},
		{exitNotDriven, exitOK, exitNotDriven},
		{exitPaused, exitNotDriven, exitPaused},
		{exitBudget, exitPaused, exitBudget},
		{exitNoClaude, exitBudget, exitNoClaude},
		{exitNoClaude, exitFailed, exitFailed},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, worse(tt.a, tt.b), "worse(%d, %d)", tt.a, tt.b)
	}
}

func TestAge(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{0, "0s"},
		{59 * time.Second, "59s"},
		{time.Minute, "1m"},
		{59*time.Minute + 59*time.Second, "59m"},
		{2 * time.Hour, "2h"},
		{47 * time.Hour, "1d"},
		{5 * 24 * time.Hour, "5d"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, age(tt.d), tt.d.String())
	}
}

func TestReport(t *testing.T) {
	result := "done"
	withNewline := "two\nlines\n"
	tests := []struct {
		name       string
		run        state.Run
		asJSON     bool
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name:       "completed",
			run:        state.Run{WorkflowID: "a", Status: state.StatusCompleted, Result: &result},
			wantStdout: "done\n",
		},
		{
			name:       "completed with a newline",
			run:        state.Run{WorkflowID: "a", Status: state.StatusCompleted, Result: &withNewline},
			wantStdout: "two\nlines\n",
		},
		{
			name: "failed",
			run: state.Run{WorkflowID: "a", Status: state.StatusFailed, Agents: []state.Agent{
				{ID: "main", Status: state.AgentFailed, CurrentState: "S.md", LastError: "no tag\nmore"},
			}},
			wantCode:   exitFailed,
			wantStderr: "raymond: 'raymond resume a' retries the failed agents\n",
		},
		{
			name:       "paused",
			run:        state.Run{WorkflowID: "a", Status: state.StatusPaused},
			wantCode:   exitPaused,
			wantStderr: "raymond: run a paused; resume it with: raymond resume a\n",
		},
		{
			name:       "paused, driven with replies",
			run:        state.Run{WorkflowID: "a", Status: state.StatusPaused, Options: state.Options{Scripted: true}},
			wantCode:   exitPaused,
			wantStderr: "raymond: run a paused; resume it with: raymond resume a --replies FILE\n",
		},
		{
			name: "failed, driven with replies",
			run: state.Run{WorkflowID: "a", Status: state.StatusFailed, Options: state.Options{Scripted: true}, Agents: []state.Agent{
				{ID: "main", Status: state.AgentFailed, CurrentState: "S.md", LastError: "no tag"},
			}},
			wantCode:   exitFailed,
			wantStderr: "raymond: 'raymond resume a --replies FILE' retries the failed agents\n",
		},
		{
			name:       "over budget",
			run:        state.Run{WorkflowID: "a", Status: state.StatusBudgetExceeded, TotalCostUSD: 0.5, BudgetUSD: 0.25},
			wantCode:   exitBudget, // exitPaused before issue 9 item 16
			wantStderr: "raymond: run a reached its budget ($0.5000 of $0.2500); resume it with: raymond resume a --budget USD\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := report(&stdout, &stderr, &tt.run, "/p", tt.asJSON)
			assert.Equal(t, tt.wantCode, code)
			assert.Equal(t, tt.wantStdout, stdout.String())
			assert.Equal(t, tt.wantStderr, stderr.String())
		})
	}
}

func TestSummaryJSON(t *testing.T) {
	result, errText := "ok", "boom"
	r := &state.Run{
		WorkflowID: "a", Status: state.StatusFailed, Result: &result, TotalCostUSD: 0.25, BudgetUSD: 1,
		Options: state.Options{Debug: true},
		Agents: []state.Agent{
			{ID: "main", Status: state.AgentCompleted, CurrentState: "S.md", Result: &result},
			{ID: "main_w1", Status: state.AgentFailed, CurrentState: "W.md", LastError: errText},
		},
	}
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitFailed, report(&stdout, &stderr, r, "/p", true))
	// Issue 9 item 5: main's result stands even though a worker failed.
	want := `{"run_id":"a","status":"failed","result":"ok","total_cost_usd":0.25,"budget_usd":1,` +
		`"agents":[{"id":"main","status":"completed","state":"S.md","result":"ok","error":null},` +
		`{"id":"main_w1","status":"failed","state":"W.md","result":null,"error":"boom"}],` +
		`"project":"/p","transcript":"/p/.raymond/debug/a","exit_code":1}`
	assert.JSONEq(t, want, stdout.String())
	assert.True(t, json.Valid(stdout.Bytes()))
	assert.Contains(t, stderr.String(), "raymond resume a")
}

func TestColorOK(t *testing.T) {
	env := func(noColor string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return ""
		}
	}
	dumb := func(k string) string {
		if k == "TERM" {
			return "dumb"
		}
		return ""
	}
	assert.False(t, colorWanted(dumb), "TERM=dumb")
	assert.False(t, colorWanted(env("1")), "NO_COLOR")
	assert.True(t, colorWanted(env("")))
	assert.False(t, colorOK(&bytes.Buffer{}, env("")), "not a file")
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	assert.False(t, colorOK(f, env("")), "a regular file is not a terminal")
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		assert.True(t, colorOK(tty, env("")))
		assert.False(t, colorOK(tty, env("1")), "NO_COLOR")
		assert.False(t, colorOK(tty, dumb), "TERM=dumb")
	}
}
