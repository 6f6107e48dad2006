package workflow_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/workflow"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a/START.md":               "x",
		"a/sub/START.md":           "x", // inside a workflow
		"deep/b/1_START.sh":        "x",
		"manifest/workflow.yaml":   "name: m\n",
		"split/states/START.md":    "x",
		"wf.yaml":                  "states:\n  START:\n    prompt: x\n",
		"wf.test.yaml":             "states: {}\n",
		"other.yml":                "name: not a workflow\n",
		"packed.zip":               "PK",
		"notes/readme.md":          "x",
		".hidden/START.md":         "x",
		".git/START.md":            "x",
		"node_modules/n/START.md":  "x",
		"vendor/v/START.md":        "x",
		"testdata/broken/START.md": "x",
		".swap.yaml":               "states:\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	got, err := workflow.Find(dir)
	require.NoError(t, err)
	var rel []string
	for _, p := range got {
		r, err := filepath.Rel(dir, p)
		require.NoError(t, err)
		rel = append(rel, filepath.ToSlash(r))
	}
	assert.Equal(t, []string{"a", "deep/b", "manifest", "packed.zip", "split", "wf.yaml"}, rel)

	// A workflow, folder or file, is its own one result; other files none.
	for _, name := range []string{"a", "split", "wf.yaml", "packed.zip"} {
		got, err := workflow.Find(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, []string{filepath.Join(dir, name)}, got, name)
	}
	got, err = workflow.Find(filepath.Join(dir, "other.yml"))
	require.NoError(t, err)
	assert.Empty(t, got)

	// A link to a folder is walked, and the paths stay under the link.
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(filepath.Join(dir, "deep"), link))
	got, err = workflow.Find(link)
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(link, "b")}, got)

	_, err = workflow.Find(filepath.Join(dir, "nosuch"))
	assert.ErrorIs(t, err, os.ErrNotExist)
}
