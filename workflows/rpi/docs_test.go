package rpi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/diagram"
	"raymond/lint"
	"raymond/workflow"
)

// TestLintClean requires raymond lint to find nothing in the workflow: no
// error, no warning (an unknown key, an unreachable state) and no info (a
// script whose tags lint cannot read).
func TestLintClean(t *testing.T) {
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	r, err := lint.Check(ss, ".")
	require.NoError(t, err)
	assert.Empty(t, r.Findings)
}

// TestGuideHasTheDiagram requires the Mermaid block of docs/workflows/rpi.md
// to be what raymond diagram --mermaid draws now: edit a transition and
// the guide must be redrawn with it.
func TestGuideHasTheDiagram(t *testing.T) {
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	g, err := lint.BuildGraph(ss, ".")
	require.NoError(t, err)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "workflows", "rpi.md"))
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(doc), "```mermaid\n")
	require.True(t, ok, "the guide has no mermaid block")
	block, _, _ = strings.Cut(block, "```")
	assert.Equal(t, diagram.Mermaid(g), block, "redraw it with: raymond diagram --mermaid workflows/rpi")
}
