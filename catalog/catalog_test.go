package catalog_test

import (
	"archive/zip"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/catalog"
)

const done = "<result>done</result>"

// write writes files (slash paths relative to dir, to their content),
// making folders as needed.
func write(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
}

// makeZip writes a zip archive at path holding files.
func makeZip(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, content := range files {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(content))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

// ids returns the IDs of the catalog's list, in order.
func ids(c *catalog.Catalog) []string {
	var out []string
	for _, wf := range c.List() {
		out = append(out, wf.ID)
	}
	return out
}

// get returns the workflow id, failing the test when it is not listed.
func get(t *testing.T, c *catalog.Catalog, id string) catalog.Workflow {
	t.Helper()
	wf, ok := c.Get(id)
	require.True(t, ok, "%s not listed; the list: %v", id, ids(c))
	return wf
}

func TestDiscovery(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"review/START.md": done,
		"review/workflow.yaml": "name: Code review\ndescription: Reviews a change\n" +
			"input:\n  mode: required\n  label: Ticket\n  description: The ticket to review\n" +
			"default_budget: 2.5\nrequires_human_input: false\n",
		"review/sub/START.md":       "<goto>NOPE</goto>", // inside a workflow: not listed
		"tools/triage.yaml":         "states:\n  START:\n    prompt: \"" + done + "\"\n",
		"tools/triage.test.yaml":    "states: {}\n",
		"tools/notes.yaml":          "title: not a workflow\n",
		"layout/workflow.yaml":      "name: Split\n",
		"layout/states/1_START.md":  done,
		"script/START.sh":           "#!/bin/sh\necho '" + done + "'\n",
		"broken/START.md":           "<goto>NOPE</goto>",
		"noentry/workflow.yaml":     "description: states to come\n",
		"badmanifest/START.md":      done,
		"badmanifest/workflow.yaml": "input: [1, 2]\n",
		"badzip.zip":                "not a zip",
		"notes/readme.md":           "# not a workflow",
		".hidden/START.md":          done,
		"node_modules/x/START.md":   done,
		"vendor/y/START.md":         done,
		"testdata/z/START.md":       done,
	})
	makeZip(t, filepath.Join(root, "packed.zip"), map[string]string{"START.md": done})

	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"badmanifest", "badzip", "broken", "layout", "noentry", "packed", "review", "script", "tools/triage"}, ids(c))

	review := get(t, c, "review")
	assert.Equal(t, catalog.Workflow{
		ID: "review", Path: filepath.Join(root, "review"), Kind: "folder",
		Name: "Code review", Description: "Reviews a change", Entry: "START.md",
		Input:         catalog.Input{Mode: "required", Label: "Ticket", Description: "The ticket to review"},
		DefaultBudget: 2.5, RequiresHumanInput: "false", Usable: true, Errors: review.Errors,
	}, review)
	assert.Empty(t, review.Errors)

	triage := get(t, c, "tools/triage")
	assert.Equal(t, "yaml", triage.Kind)
	assert.Equal(t, "triage", triage.Name, "the name falls back to the file's")
	assert.Equal(t, catalog.Input{Mode: "optional"}, triage.Input)
	assert.Equal(t, "auto", triage.RequiresHumanInput)
	assert.True(t, triage.Usable)

	packed := get(t, c, "packed")
	assert.Equal(t, "zip", packed.Kind)
	assert.Equal(t, "START.md", packed.Entry)
	assert.True(t, packed.Usable)

	layout := get(t, c, "layout")
	assert.Equal(t, "Split", layout.Name)
	assert.Equal(t, "1_START.md", layout.Entry)
	assert.True(t, layout.Usable, "%+v", layout.Errors)

	assert.Equal(t, "START.sh", get(t, c, "script").Entry)

	for id, check := range map[string]string{
		"broken": "missing-target", "badzip": "workflow-parse-error",
		"noentry": "no-entry-point", "badmanifest": "workflow-parse-error",
	} {
		wf := get(t, c, id)
		assert.False(t, wf.Usable, id)
		require.NotEmpty(t, wf.Errors, id)
		assert.Equal(t, check, wf.Errors[0].Check, "%s: %+v", id, wf.Errors)
	}
	assert.Equal(t, "noentry", get(t, c, "noentry").Name)
	assert.Equal(t, "states to come", get(t, c, "noentry").Description)
}

func TestWorkflowJSON(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"review/START.md": done, "bad/START.md": "<goto>NOPE</goto>"})
	c, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	data, err := json.Marshal(get(t, c, "review"))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for _, key := range []string{"id", "path", "kind", "name", "description", "entry", "input",
		"default_budget", "requires_human_input", "usable", "errors", "warnings"} {
		assert.Contains(t, m, key)
	}
	assert.Equal(t, []any{}, m["errors"], "no errors is an empty list, not null")
	assert.Equal(t, map[string]any{"mode": "optional", "label": "", "description": ""}, m["input"])

	data, err = json.Marshal(get(t, c, "bad"))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"severity":"error"`)
}

func TestIDs(t *testing.T) {
	base := t.TempDir()
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	write(t, one, map[string]string{
		"review/START.md": done, "solo/START.md": done,
		"x/START.md": done, "x.yaml": "states:\n  START:\n    prompt: \"" + done + "\"\n",
		"a..b/START.md": done,
	})
	write(t, two, map[string]string{"review/START.md": done, "deep/tri/START.md": done})
	c, err := catalog.New([]string{one, two}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a._b", "deep/tri", "one/review", "solo", "two/review", "x", "x.yaml"}, ids(c))
	assert.Equal(t, filepath.Join(two, "review"), get(t, c, "two/review").Path)
	assert.Equal(t, "yaml", get(t, c, "x.yaml").Kind)

	// Roots of one base name are told apart; a root that is a workflow is
	// listed under its own name.
	p, q := filepath.Join(base, "p", "wf"), filepath.Join(base, "q", "wf")
	write(t, p, map[string]string{"review/START.md": done})
	write(t, q, map[string]string{"review/START.md": done})
	single := filepath.Join(base, "single")
	write(t, single, map[string]string{"START.md": done})
	c, err = catalog.New([]string{p, q, single}, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"single", "wf-2/review", "wf/review"}, ids(c))
}

func TestUnreadableRoot(t *testing.T) {
	_, err := catalog.New([]string{filepath.Join(t.TempDir(), "nosuch")}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nosuch")
	assert.Contains(t, err.Error(), "cannot be read")
}
