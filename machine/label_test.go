package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"raymond/state"
	"raymond/step"
)

// A failed agent's error names the workflow of the state it failed at as
// well as the state: the run's own, another scope, or a pinned URL.
func TestFailNamesTheWorkflow(t *testing.T) {
	crash := func(m *Machine) string {
		m.Apply(StepEnded{Agent: "main", Seq: 1, Name: "main_A_001", Now: time.Unix(0, 0),
			Result: step.Result{Outcome: step.Failed, Class: "crash", Reason: "claude exited with status 1"}})
		return m.run.Agents[0].LastError
	}
	m := oneAgent(state.SessionNew)
	assert.Equal(t, "workflow wf: A.md: claude exited with status 1", crash(m))

	m = oneAgent(state.SessionNew)
	m.run.Agents[0].Pending.Ref.Scope = "/lib/review.yaml"
	assert.Equal(t, "workflow review.yaml: A.md: claude exited with status 1", crash(m))

	m = oneAgent(state.SessionNew)
	m.run.ScopeURL = "https://example.com/wf.zip"
	assert.Equal(t, "workflow https://example.com/wf.zip: A.md: claude exited with status 1", crash(m))

	// An error that names its workflow already is not named twice.
	m = oneAgent(state.SessionNew)
	m.Apply(Prepared{Now: time.Unix(0, 0), Steps: []PreparedStep{{Agent: "main", Err: errString("workflow wf: A.md:2: invalid frontmatter")}}})
	assert.Equal(t, "workflow wf: A.md:2: invalid frontmatter", m.run.Agents[0].LastError)
}

func TestWorkflowLabel(t *testing.T) {
	for _, c := range []struct{ dir, url, want string }{
		{"/p/review", "", "review"},
		{"/p/review/", "", "review"},
		{"/p/review/states", "", "review/states"},
		{"/p/lib/one.yaml", "", "one.yaml"},
		{"/p/.raymond/registry/abc.zip", "https://example.com/x.zip", "https://example.com/x.zip"},
	} {
		assert.Equal(t, c.want, WorkflowLabel(c.dir, c.url), c.dir)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// A step canceled before its process started is deferred like any canceled
// step, not failed, and its step_ended event says it never started.
func TestCanceledBeforeStart(t *testing.T) {
	m := oneAgent(state.SessionNew)
	effects := m.Apply(StepEnded{Agent: "main", Seq: 1, Name: "main_A_001", Now: time.Unix(0, 0),
		Result: step.Result{Outcome: step.Canceled, Class: "canceled", NotStarted: true}})
	a := m.run.Agents[0]
	assert.NotEqual(t, state.AgentFailed, a.Status)
	assert.NotNil(t, a.Pending, "it runs again on resume")
	var ended, deferred bool
	for _, e := range effects {
		if em, ok := e.(Emit); ok {
			switch em.Event.Type {
			case "step_ended":
				ended = true
				assert.True(t, em.Event.NotStarted)
				assert.Equal(t, "canceled", em.Event.Outcome)
			case "step_deferred":
				deferred = true
			}
		}
	}
	assert.True(t, ended && deferred, "effects: %+v", effects)
}
