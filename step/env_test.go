package step

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWithEnv(t *testing.T) {
	base := []string{"A=1", "B=2", "PATH=/bin"}
	require.Equal(t, base, WithEnv(base, nil))
	got := WithEnv(base, map[string]string{"B": "two", "C": "3"})
	require.Equal(t, []string{"A=1", "PATH=/bin", "B=two", "C=3"}, got)
	require.Equal(t, []string{"A=1", "B=2", "PATH=/bin"}, base, "base is left as it was")
}

func TestRequestEnvCarriesTraceContext(t *testing.T) {
	run := map[string]string{"TEAM": "ops"}
	req := Request{}
	req.Options.Env = run
	require.Equal(t, run, req.Env(), "an untraced step: the run's variables alone")
	req.TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	require.Equal(t, map[string]string{"TEAM": "ops", TraceParentEnv: req.TraceParent}, req.Env())
	req.TraceState = "vendor=1"
	require.Equal(t, map[string]string{"TEAM": "ops", TraceParentEnv: req.TraceParent, TraceStateEnv: "vendor=1"}, req.Env())
	require.Equal(t, map[string]string{"TEAM": "ops"}, run, "the run's variables are left as they were")
}
