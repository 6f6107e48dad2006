//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRmFinishedAsksAtTerminal: rm --finished at a terminal lists the runs
// and removes them only on yes; --yes skips the question.
func TestRmFinishedAsksAtTerminal(t *testing.T) {
	bin, err := exec.LookPath("raymond")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "wf"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wf", "START.md"), []byte("Go.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "r.yaml"), []byte("replies:\n  START.md:\n    - text: '<result>ok</result>'\n      repeat: true\n"), 0o644))
	for _, id := range []string{"f1", "f2"} {
		cmd := exec.Command(bin, "run", "--id", id, "wf", "--replies", "r.yaml")
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	stateFile := func(id string) string { return filepath.Join(dir, ".raymond", "state", id+".json") }

	tm := onTerminal(t, bin, dir, "rm", "--finished")
	tm.waitFor("remove these 2 run(s) with their transcripts and task folders? [y/N] ", 1)
	tm.typeText("n\n")
	require.Equal(t, 1, tm.wait(), "the terminal:\n%s", tm.screenText())
	assert.Contains(t, tm.screenText(), "  f1  completed  ")
	assert.Contains(t, tm.screenText(), "nothing removed")
	assert.FileExists(t, stateFile("f1"))
	assert.FileExists(t, stateFile("f2"))

	tm = onTerminal(t, bin, dir, "rm", "--finished")
	tm.waitFor("[y/N] ", 1)
	tm.typeText("y\n")
	require.Equal(t, 0, tm.wait(), "the terminal:\n%s", tm.screenText())
	assert.Equal(t, "f2\nf1\n", tm.stdout.String())
	assert.NoFileExists(t, stateFile("f1"))

	cmd := exec.Command(bin, "run", "--id", "f3", "wf", "--replies", "r.yaml")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	tm = onTerminal(t, bin, dir, "rm", "--finished", "--yes")
	require.Equal(t, 0, tm.wait(), "the terminal:\n%s", tm.screenText())
	assert.NotContains(t, tm.screenText(), "[y/N]")
	assert.NoFileExists(t, stateFile("f3"))
}
