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
