package scripted

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const blocks = `
replies:
  greet:
    START.md: ["greet start"]
    main_worker1/W.md: ["greet w1"]
  examples/other:
    START: ["other start"]
  START.md: ["any start", "any start 2"]
  W.md: ["any w"]
`

// A workflow's block answers its own steps first; a step of another
// workflow, or one its block has no reply left for, takes the shared ones.
func TestWorkflowBlocks(t *testing.T) {
	r := parse(t, blocks)
	r.InWorkflow("/p/workflows/greet")
	assert.Equal(t, "greet start", answer(t, r, "START.md"))
	assert.Equal(t, "any start", answer(t, r, "START.md"), "the block's reply is used up")

	w := request("W.md", nil)
	w.Agent = "main_worker1"
	res, _ := run(t, r, w)
	assert.Equal(t, "greet w1", res.Text)

	other := request("START.md", nil)
	other.Step.Scope = "/p/workflows/examples/other" // a workflow the run calls
	res, _ = run(t, r, other)
	assert.Equal(t, "other start", res.Text)

	r2 := parse(t, blocks)
	r2.InWorkflow("/p/workflows/hello.yaml")
	assert.Equal(t, "any start", answer(t, r2, "START.md"), "no block names hello")
}

func TestWorkflowBlockErrors(t *testing.T) {
	for yaml, want := range map[string]string{
		"replies:\n  /greet:\n    START.md: [x]\n":                `without a leading or trailing /`,
		"replies:\n  greet:\n    START.md: {text: x}\n":           `greet: START.md holds a mapping`,
		"replies:\n  greet:\n    START.md: [{outcome: nope}]\n":   `greet: START.md reply 1: outcome: unknown outcome`,
		"replies:\n  greet:\n    START: [x]\n    START.md: [y]\n": `"greet: START" and "greet: START.md" name the same state`,
	} {
		_, err := Parse("r.yaml", []byte(yaml))
		if assert.Error(t, err, yaml) {
			assert.Contains(t, err.Error(), want, yaml)
		}
	}
}

// Check judges a block's states against the workflow it names, and refuses
// a block that names no workflow the run reaches.
func TestCheckWorkflowBlocks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "greet")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "START.md"), []byte("<result>x</result>"), 0o644))
	r := parse(t, "replies:\n  greet:\n    START.md: [a]\n    CHEK.md: [b]\n  nosuch:\n    START.md: [c]\n")
	err := r.Check(openScope(t, dir))
	require.Error(t, err)
	msg := err.Error()
	assert.Contains(t, msg, `replies for "greet: CHEK.md" name no state of the workflow`)
	assert.Contains(t, msg, `replies for "nosuch: START.md" name no workflow of the run`)
	assert.NotContains(t, msg, `"greet: START.md"`)
	assert.Equal(t, 2, strings.Count(msg, "\n")+1)
}
