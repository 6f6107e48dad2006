package orchestrator

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
)

// A value with a NUL byte that reaches a prompt (a run saved so by an older
// raymond, a state file edited by hand, a test case's input) fails its agent
// naming the placeholder; the step never reaches a runner, which could not
// pass the prompt on. A value the prompt does not use does no harm.
func TestDriveRefusesNULInAPromptValue(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go {{ input }}.", "QUIET.md": "Go."})
	in := "a\x00b"
	w.create(t, "r1", state.Options{Input: &in}, 0)
	r := replies(t, `
replies:
  START: ["<result>ok</result>"]
  QUIET: ["<result>quiet</result>"]
`)
	run, err := w.driver(r).Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusFailed, run.Status)
	assert.Equal(t, "workflow wf: START.md: the value of {{input}} holds a NUL byte, which cannot be sent in a prompt", run.Agents[0].LastError)
	assert.Equal(t, 0, run.Agents[0].Steps, "no step started")

	_, err = Create(w.store, NewRun{Workflow: w.wf + "/QUIET.md", ID: "r2", Options: state.Options{Input: &in}})
	require.NoError(t, err)
	run, err = w.driver(r).Drive(context.Background(), "r2", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
}
