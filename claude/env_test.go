package claude

import (
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/state"
	"raymond/step"
)

func TestRunOptionsEnvReachesClaude(t *testing.T) {
	req := step.Request{Step: state.Step{Mode: state.SessionNew}, Options: state.Options{Env: map[string]string{"TEAM": "ops"}}}
	r := Runner{Env: []string{"TEAM=dev", "HOME=/home/ada"}}.Request(req)
	require.Equal(t, []string{"HOME=/home/ada", "TEAM=ops"}, r.Env)
	r = Runner{Env: []string{"HOME=/home/ada"}}.Request(step.Request{Step: state.Step{Mode: state.SessionNew}})
	require.Equal(t, []string{"HOME=/home/ada"}, r.Env, "no run variables: the runner's environment as it is")
}

func TestTraceContextReachesClaude(t *testing.T) {
	parent := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	req := step.Request{Step: state.Step{Mode: state.SessionNew}, TraceParent: parent}
	r := Runner{Env: []string{"HOME=/home/ada", "TRACEPARENT=00-outer"}}.Request(req)
	require.Equal(t, []string{"HOME=/home/ada", "TRACEPARENT=" + parent}, r.Env, "the step's own context replaces one raymond inherited")
}
