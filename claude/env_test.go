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
