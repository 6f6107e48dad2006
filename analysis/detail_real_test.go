package analysis

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadDetailRealCaptures reads streams the real Claude Code CLI wrote
// (testdata/claude at the repository root) as step transcripts: every one
// gives a Detail without error, and what each shows is what the capture
// holds.
func TestLoadDetailRealCaptures(t *testing.T) {
	captures, err := filepath.Glob(filepath.Join("..", "testdata", "claude", "*.stream.jsonl"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(captures), 15)

	details := map[string]*Detail{}
	for _, c := range captures {
		data, err := os.ReadFile(c)
		require.NoError(t, err)
		dir := t.TempDir()
		s := &Step{Name: "main_START_001", Agent: "main", Seq: 1, State: "START.md"}
		require.NoError(t, os.WriteFile(filepath.Join(dir, s.Name+".prompt.md"), []byte("Go."), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, s.Name+".jsonl"), data, 0o644))
		d, err := LoadDetail(dir, s)
		require.NoError(t, err, c)
		assert.Equal(t, "Go.", d.Prompt, c)
		details[strings.TrimSuffix(filepath.Base(c), ".stream.jsonl")] = d
	}

	kinds := func(d *Detail) map[string]int {
		n := map[string]int{}
		for _, it := range d.Items {
			n[it.Kind]++
		}
		return n
	}
	// A tool-using step shows its calls, with their names, and their results.
	tu := details["tool-use"]
	require.NotNil(t, tu)
	assert.Positive(t, kinds(tu)["tool"], "tool calls of tool-use: %+v", tu.Items)
	assert.Positive(t, kinds(tu)["tool_result"], "tool results of tool-use: %+v", tu.Items)
	for _, it := range tu.Items {
		if it.Kind == "tool" {
			assert.NotEmpty(t, it.Tool)
		}
	}
	assert.NotEmpty(t, tu.Answer)

	// A plain success has its answer.
	require.NotNil(t, details["success"])
	assert.NotEmpty(t, details["success"].Answer)

	// Streams that end in an error say so: an API error and a refused
	// login show an error item or an answer holding the CLI's text.
	for _, name := range []string{"api-500", "auth-failure", "max-turns"} {
		d := details[name]
		require.NotNil(t, d, name)
		shown := kinds(d)["error"] > 0 || d.Answer != "" || len(d.Notes) > 0
		assert.True(t, shown, "%s shows nothing of how it ended: %+v", name, d)
	}
}

// TestLoadDetailErrorOnce: the CLI writes an API error as a synthetic
// assistant message and again as the result; the step shows it once.
func TestLoadDetailErrorOnce(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "claude", "api-500.stream.jsonl"))
	require.NoError(t, err)
	dir := t.TempDir()
	s := &Step{Name: "main_START_001", Agent: "main", Seq: 1, State: "START.md"}
	require.NoError(t, os.WriteFile(filepath.Join(dir, s.Name+".jsonl"), data, 0o644))
	d, err := LoadDetail(dir, s)
	require.NoError(t, err)
	var errs []string
	for _, it := range d.Items {
		if it.Kind == "error" {
			errs = append(errs, it.Text)
		}
	}
	require.Len(t, errs, 1, "%q", errs)
	assert.Contains(t, errs[0], "API Error: 500")
}
