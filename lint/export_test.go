package lint_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/lint"
	"raymond/workflow"
)

// graphOf writes files into a new folder and returns its graph.
func graphOf(t *testing.T, files map[string]string) (string, lint.Graph) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	ss := workflow.NewScopes(nil)
	t.Cleanup(func() { ss.Close() })
	g, err := lint.BuildGraph(ss, dir)
	require.NoError(t, err)
	return dir, g
}

func TestBuildGraph(t *testing.T) {
	dir, g := graphOf(t, map[string]string{
		"START.md": `<call return="AFTER">SUB</call> <ask next="AFTER" timeout_next="RUN.sh">?</ask>
<fork next="AFTER" item="a">W</fork> <function-workflow return="AFTER">other</function-workflow>`,
		"SUB.md":         "<result>x</result>",
		"W.md":           "{{item}} <result>x</result>",
		"AFTER.md":       "<reset>START</reset>",
		"RUN.sh":         "#!/bin/sh\necho '<goto>AFTER.md</goto>'\n",
		"LOST.md":        "<goto>START</goto>",
		"other/START.md": "<result>o</result>",
	})
	require.Len(t, g.Workflows, 2)
	w := g.Workflows[0]
	assert.Equal(t, []string{"START.md"}, w.Starts)
	states := map[string]lint.GraphState{}
	for _, s := range w.States {
		states[s.Name] = s
	}
	assert.True(t, states["RUN.sh"].Script)
	assert.False(t, states["START.md"].Script)
	assert.True(t, states["LOST.md"].Unreachable)
	assert.False(t, states["SUB.md"].Unreachable)
	assert.True(t, states["SUB.md"].Result)
	assert.Contains(t, states["SUB.md"].Prompt, "<result>x</result>")
	edges := states["START.md"].Edges
	for _, want := range []lint.GraphEdge{
		{Tag: "call", Role: "target", To: "SUB.md"},
		{Tag: "call", Role: "return", To: "AFTER.md"},
		{Tag: "ask", Role: "next", To: "AFTER.md"},
		{Tag: "ask", Role: "timeout_next", To: "RUN.sh"},
		{Tag: "fork", Role: "target", To: "W.md"},
		{Tag: "fork", Role: "next", To: "AFTER.md"},
		{Tag: "function-workflow", Role: "target", To: "START.md", ToWorkflow: g.Workflows[1].Dir},
	} {
		assert.Contains(t, edges, want)
	}
	assert.Contains(t, states["AFTER.md"].Edges, lint.GraphEdge{Tag: "reset", Role: "target", To: "START.md"})
	assert.Equal(t, filepath.Join(dir, "other"), g.Workflows[1].Dir)
	assert.True(t, edges[len(edges)-1].CrossWorkflow())
}

func TestBuildGraphNoWorkflow(t *testing.T) {
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	_, err := lint.BuildGraph(ss, filepath.Join(t.TempDir(), "nosuch"))
	require.Error(t, err)
}
