// Tests of the agentd workflows that their test files cannot make: that
// raymond lint finds nothing to fix in them, that the guide's diagrams are
// the ones raymond diagram draws now, and the shell helpers of lib/agentd.sh
// on inputs the workflows' cases do not reach.
package agentd_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/diagram"
	"raymond/lint"
	"raymond/workflow"
)

// workflows are the three workflows, in the order the guide draws them.
var workflows = []string{"plan", "impl", "archive"}

// TestLintClean requires raymond lint to find nothing in each workflow: no
// error, no warning, and no note of a script whose tags it cannot read.
func TestLintClean(t *testing.T) {
	for _, wf := range workflows {
		t.Run(wf, func(t *testing.T) {
			ss := workflow.NewScopes(nil)
			defer ss.Close()
			r, err := lint.Check(ss, wf)
			require.NoError(t, err)
			for _, f := range r.Findings {
				t.Errorf("%s:%d: %s: %s [%s]", f.File, f.Line, f.Severity, f.Message, f.Check)
			}
		})
	}
}

// TestGuideHasTheDiagrams requires the Mermaid blocks of
// docs/workflows/agentd.md to be what raymond diagram --mermaid draws now,
// one per workflow in order: edit a transition and the guide must be
// redrawn with it.
func TestGuideHasTheDiagrams(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "workflows", "agentd.md"))
	require.NoError(t, err)
	blocks := strings.Split(string(doc), "```mermaid\n")[1:]
	require.Len(t, blocks, len(workflows), "the guide draws each workflow once")
	for i, wf := range workflows {
		ss := workflow.NewScopes(nil)
		g, err := lint.BuildGraph(ss, wf)
		require.NoError(t, err)
		block, _, _ := strings.Cut(blocks[i], "```")
		assert.Equal(t, diagram.Mermaid(g), block, "redraw it with: raymond diagram --mermaid workflows/agentd/%s", wf)
		ss.Close()
	}
}

// sh runs a bash snippet with lib/agentd.sh sourced, in dir, and returns
// its stdout, its stderr and whether it succeeded.
func sh(t *testing.T, dir, script string) (stdout, stderr string, ok bool) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	lib, err := filepath.Abs(filepath.Join("lib", "agentd.sh"))
	require.NoError(t, err)
	cmd := exec.Command("bash", "-c", "set -euo pipefail; . \"$LIB\"; "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LIB="+lib, "RAYMOND_TASK_FOLDER="+dir)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err == nil
}

func TestVerdicts(t *testing.T) {
	dir := t.TempDir()
	text := strings.Join([]string{
		"# Review",
		"The verdict line below matters; this one does not: the verdict is good.",
		"Verdict: APPROVED",
		"**Verdict:** NEEDS_REVISION",
		"- **Verdict**: `needs fix`",
		"### Verdict: Major-Issues\r",
		"> verdict:REJECTED  ",
		"    Verdict: APPROVED",
		"Overall verdict: APPROVED",
	}, "\n")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "REVIEW.md"), []byte(text), 0o644))
	out, stderr, ok := sh(t, dir, "verdicts REVIEW.md; verdicts missing.md")
	require.True(t, ok, stderr)
	assert.Equal(t, "APPROVED\nNEEDS_REVISION\nNEEDS_FIX\nMAJOR_ISSUES\nREJECTED\nAPPROVED\n", out,
		"emphasis, a list dash, a heading or quote mark, case, - or space for _ and CRLF do not matter; "+
			"a line that does not start with Verdict: is not a verdict; a missing file has none")
}

// TestVerdictWithAFullStop reads a verdict line ended as a sentence, as a
// model (or a person adding the line by hand) often writes it: the stop is
// not part of the verdict, which would otherwise be none of the three words
// and fail the run.
func TestVerdictWithAFullStop(t *testing.T) {
	dir := t.TempDir()
	text := "## Challenge 1\nVerdict: Approved.\n\n## Challenge 2\n**Verdict:** NEEDS_REVISION.\r\nVerdict: major issues!\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "proposal.md"), []byte(text), 0o644))
	out, stderr, ok := sh(t, dir, "verdicts proposal.md")
	require.True(t, ok, stderr)
	assert.Equal(t, "APPROVED\nNEEDS_REVISION\nMAJOR_ISSUES\n", out)
}

func TestPhaseKeepsOtherLines(t *testing.T) {
	dir := t.TempDir()
	state := "# owner: ana\nchange_id: \"x\"\nphase: 'proposed'   # set by plan\nphases_seen: 2\nnotes:\n  - phase: not this one\n"
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "changes", "x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "changes", "x", "STATE.yaml"), []byte(state), 0o644))
	require.NoError(t, os.Chmod(filepath.Join(dir, "changes", "x", "STATE.yaml"), 0o644), "whatever the umask")

	out, stderr, ok := sh(t, dir, "phase changes/x; yaml_get changes/x/STATE.yaml change_id; set_phase changes/x challenged")
	require.True(t, ok, stderr)
	assert.Equal(t, "proposed\nx\n", out, "quotes and a comment are not part of the value")
	got, err := os.ReadFile(filepath.Join(dir, "changes", "x", "STATE.yaml"))
	require.NoError(t, err)
	info, err := os.Stat(filepath.Join(dir, "changes", "x", "STATE.yaml"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm(), "the file keeps its mode")
	assert.Regexp(t, `^# owner: ana\nchange_id: "x"\nphase: challenged\nphases_seen: 2\nnotes:\n  - phase: not this one\nupdated: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`, string(got),
		"the phase: line is replaced in place, updated: added at the end, every other line kept")

	out, _, ok = sh(t, dir, "phase changes/none")
	assert.True(t, ok)
	assert.Equal(t, "none\n", out, "a folder without STATE.yaml has no phase yet")
	_, stderr, ok = sh(t, dir, "yaml_set changes/x/STATE.yaml phase shipped; phase changes/x")
	assert.False(t, ok)
	assert.Contains(t, stderr, `agentd: changes/x/STATE.yaml has phase "shipped", which is not one of: proposed challenged rejected implementing complete archived`)
}

// TestPhaseOfAWindowsFile reads and sets the phase of a STATE.yaml saved by
// a Windows editor: CRLF line ends and a byte order mark are not part of the
// phase (which would otherwise read as "challenged\r", unknown), a space
// before the colon is YAML too, and the file keeps its line ends when set.
func TestPhaseOfAWindowsFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "changes", "x"), 0o755))
	write := func(content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "changes", "x", "STATE.yaml"), []byte(content), 0o644))
	}
	read := func() string {
		got, err := os.ReadFile(filepath.Join(dir, "changes", "x", "STATE.yaml"))
		require.NoError(t, err)
		return string(got)
	}

	write("change_id: x\r\nphase: challenged\r\nowner: ana\r\n")
	out, stderr, ok := sh(t, dir, "phase changes/x; set_phase changes/x implementing; phase changes/x")
	require.True(t, ok, stderr)
	assert.Equal(t, "challenged\nimplementing\n", out)
	assert.Regexp(t, `^change_id: x\r\nphase: implementing\r\nowner: ana\r\nupdated: [0-9T:-]+Z\r\n$`, read(),
		"the lines set keep the file's CRLF ends")

	write("\ufeffphase : 'complete'")
	out, stderr, ok = sh(t, dir, "phase changes/x; set_phase changes/x archived")
	require.True(t, ok, stderr)
	assert.Equal(t, "complete\n", out, "a byte order mark, a space before the colon and no final newline")
	assert.Regexp(t, "^\ufeffphase: archived\nupdated: [0-9T:-]+Z\n$", read(),
		"the phase: line is replaced, not added a second time, and the mark is kept")
}

func TestChangePaths(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"changes/add-login", "agentd/changes/v1.2_fix", "/srv/repo/changes/x", "../other/changes/x"} {
		_, stderr, ok := sh(t, dir, "check_change_path '"+p+"'")
		assert.True(t, ok, "%s: %s", p, stderr)
	}
	for _, p := range []string{"", "changes/a b", "changes/\"x", "changes/<x>", "-rf", ".", "changes/./x", "changes/x&y"} {
		_, stderr, ok := sh(t, dir, "check_change_path '"+p+"'")
		assert.False(t, ok, "%q is refused", p)
		assert.True(t, strings.HasPrefix(stderr, "agentd: "), "%q: %s", p, stderr)
		assert.NotContains(t, stderr, "<", "the message never carries a tag")
	}
}

// TestNextLayerRunTwice runs impl's NEXT_LAYER.sh twice on the same input,
// as a resume does after the process driving the run died in the step: it
// hands out the same layer both times, since the layer done comes from its
// input, not from a counter the first run already moved.
func TestNextLayerRunTwice(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "change"), []byte("changes/x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "layers"), []byte("Data\nLogic\n"), 0o644))
	script, err := filepath.Abs(filepath.Join("impl", "NEXT_LAYER.sh"))
	require.NoError(t, err)
	run := func(input string) string {
		out, stderr, ok := sh(t, dir, "RAYMOND_INPUT='"+input+"' bash "+script)
		require.True(t, ok, stderr)
		return out
	}
	want := "<print>impl changes/x: layer 2 of 2: Logic</print>\n" +
		"<goto input=\"layer 2 of 2 (Logic) of changes/x/tasks.md\">IMPLEMENT</goto>\n"
	for range 2 {
		assert.Equal(t, want, run("layer 1 of 2 (Data) of changes/x/tasks.md"))
	}
	assert.Equal(t, "<goto>SUBMIT</goto>\n", run("layer 2 of 2 (Logic) of changes/x/tasks.md"))
	assert.Contains(t, run(""), `<reset input="layer 1 of 2 (Data) of changes/x/tasks.md">IMPLEMENT</reset>`)
}

// TestNoVerdictGoesOnOnceWritten runs the scripts a second forgotten verdict
// line leads to, as raymond resume does after a person added the line: they
// go on to read it, and fail again while it is missing.
func TestNoVerdictGoesOnOnceWritten(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "changes", "x"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "change"), []byte("changes/x\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "verdicts"), []byte("1\n"), 0o644))
	write := func(name, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "changes", "x", name), []byte(content), 0o644))
	}
	run := func(script string) (string, string, bool) {
		path, err := filepath.Abs(script)
		require.NoError(t, err)
		return sh(t, dir, "bash "+path)
	}

	write("proposal.md", "Verdict: NEEDS_REVISION\n## Challenge 2\n")
	_, stderr, ok := run("plan/NO_VERDICT.sh")
	assert.False(t, ok)
	assert.Contains(t, stderr, "agentd: the challenge wrote no verdict line into changes/x/proposal.md, even when asked again")
	write("proposal.md", "Verdict: NEEDS_REVISION\n## Challenge 2\nVerdict: APPROVED\n")
	out, stderr, ok := run("plan/NO_VERDICT.sh")
	require.True(t, ok, stderr)
	assert.Equal(t, "<goto>VERDICT</goto>\n", out)

	write("REVIEW.md", "# Review\n")
	_, stderr, ok = run("impl/NO_VERDICT.sh")
	assert.False(t, ok)
	assert.Contains(t, stderr, "agentd: the review left no verdict line in changes/x/REVIEW.md, even when asked again")
	write("REVIEW.md", "# Review\nVerdict: NEEDS_FIX\n")
	out, stderr, ok = run("impl/NO_VERDICT.sh")
	require.True(t, ok, stderr)
	assert.Equal(t, "<goto>REVIEWED</goto>\n", out)
}
