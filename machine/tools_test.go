package machine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
)

// A state's tool limits go onto the step it starts; a script state has
// none; a state cannot skip permissions in a run that does not.
func TestPreparedToolLimits(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	start := func(m *Machine, p PreparedStep) (*Start, []Effect) {
		p.Agent, p.SessionID = "main", "s9"
		var st *Start
		effects := m.Apply(Prepared{Now: t0, Steps: []PreparedStep{p}})
		for _, e := range effects {
			if s, ok := e.(Start); ok {
				st = &s
			}
		}
		return st, effects
	}
	limits := PreparedStep{AllowedTools: []string{"Read"}, DisallowedTools: []string{"Write"}, PermissionMode: "plan"}

	st, _ := start(oneAgent(state.SessionNew), limits)
	require.NotNil(t, st)
	s := st.Request.Step
	assert.Equal(t, []string{"Read"}, s.AllowedTools)
	assert.Equal(t, []string{"Write"}, s.DisallowedTools)
	assert.Equal(t, "plan", s.PermissionMode)

	script := limits
	script.Script = true
	st, _ = start(oneAgent(state.SessionNew), script)
	require.NotNil(t, st)
	assert.Empty(t, st.Request.Step.AllowedTools)
	assert.Empty(t, st.Request.Step.PermissionMode)

	bypass := PreparedStep{PermissionMode: "bypassPermissions"}
	m := oneAgent(state.SessionNew)
	m.run.Options.PermissionMode = "acceptEdits"
	st, _ = start(m, bypass)
	assert.Nil(t, st, "a state may not skip permissions the run does not skip")
	a := m.agent("main")
	assert.Equal(t, state.AgentFailed, a.Status)
	assert.Contains(t, a.LastError, "A.md asks for permission_mode bypassPermissions")

	m = oneAgent(state.SessionNew)
	m.run.Options.SkipPermissions = true
	st, _ = start(m, bypass)
	require.NotNil(t, st, "the run skips permissions: the state may too")
	assert.Equal(t, "bypassPermissions", st.Request.Step.PermissionMode)
}
