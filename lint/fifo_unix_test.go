//go:build unix

package lint_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/lint"
	"raymond/workflow"
)

// A FIFO named like a state is not read: lint used to block on it for
// ever (without the fix this test never returns). It is reported as a
// state that cannot be read.
func TestFIFOStateIsNotRead(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "START.md"), []byte("Go on: <goto>X</goto>\n"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "X.md"), 0o644))
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	r, err := lint.Check(ss, dir)
	require.NoError(t, err)
	got := find(r, "unreadable-state")
	if assert.Len(t, got, 1) {
		assert.Equal(t, filepath.Join(dir, "X.md"), got[0].File)
		assert.Equal(t, "X.md is not a state: X.md is not a regular file", got[0].Message)
	}
	assert.Empty(t, find(r, "frontmatter-parse-error"))
}
