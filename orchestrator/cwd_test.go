package orchestrator

import (
	"os"
	"path/filepath"
	projects "raymond/project"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/parsing"
)

func TestInside(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "p")
	for _, d := range []string{"p/sub", "p2", "out"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.Symlink(filepath.Join(dir, "out"), filepath.Join(proj, "link")))
	assert.True(t, projects.Within(proj, proj))
	assert.True(t, projects.Within(filepath.Join(proj, "sub"), proj))
	assert.False(t, projects.Within(filepath.Join(dir, "p2"), proj), "a sibling whose name starts alike")
	assert.False(t, projects.Within(dir, proj))
	assert.False(t, projects.Within("/", proj))
	assert.False(t, projects.Within(filepath.Join(proj, "link"), proj), "a link inside that leads outside")
}

func TestResolveCwdsOutside(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "p")
	require.NoError(t, os.MkdirAll(filepath.Join(proj, "sub"), 0o755))
	tr, err := parsing.Parse(`<fork cd="sub">W</fork><fork cd="/">W</fork><fork cd="..">W</fork><goto>A</goto>`)
	require.NoError(t, err)

	cwds, warnings, err := resolveCwds(proj, tr, proj, false)
	require.NoError(t, err)
	assert.Equal(t, []string{"", filepath.Join(proj, "sub"), "/", dir}, cwds)
	assert.Len(t, warnings, 2)
	assert.Contains(t, warnings[0], `cd="/" takes the agent outside the project folder`)

	_, _, err = resolveCwds(proj, tr, proj, true)
	assert.ErrorContains(t, err, "which is outside the project folder")

	_, warnings, err = resolveCwds(proj, tr, "", true)
	require.NoError(t, err, "no project known: nothing to confine to")
	assert.Empty(t, warnings)
}
