package project

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"raymond/state"
)

func TestExitFor(t *testing.T) {
	tests := map[state.Status]int{
		state.StatusCompleted:      ExitOK,
		state.StatusFailed:         ExitFailed,
		state.StatusPaused:         ExitPaused,
		state.StatusWaiting:        ExitPaused,
		state.StatusBudgetExceeded: ExitBudget, // was ExitPaused before issue 9 item 16
		state.StatusRunning:        ExitPaused,
		state.StatusCreated:        ExitPaused,
	}
	for s, want := range tests {
		assert.Equal(t, want, ExitFor(s), s)
	}
}

func TestWorkflowName(t *testing.T) {
	for dir, want := range map[string]string{
		"/w/review":                 "review",
		"/w/vendor-approval/states": "vendor-approval",
		"/w/wf.yaml":                "wf.yaml",
	} {
		if got := WorkflowName(&state.Run{ScopeDir: dir}); got != want {
			t.Errorf("WorkflowName(%s) = %q, want %q", dir, got, want)
		}
	}
}
