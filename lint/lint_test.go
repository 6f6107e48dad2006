package lint_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/lint"
	"raymond/workflow"
)

// check writes files into a new folder and lints it.
func check(t *testing.T, files map[string]string) lint.Report {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	ss := workflow.NewScopes(nil)
	t.Cleanup(func() { ss.Close() })
	r, err := lint.Check(ss, dir)
	require.NoError(t, err)
	return r
}

// find returns the findings of the check id.
func find(r lint.Report, id string) []lint.Finding {
	var out []lint.Finding
	for _, f := range r.Findings {
		if f.Check == id {
			out = append(out, f)
		}
	}
	return out
}

func TestBytes(t *testing.T) {
	const done = "<result>done</result>"
	tests := []struct {
		id, text string
		line     int
	}{
		{"nul-byte", "line one\n<goto>X</goto>\x00\n", 2},
		{"invalid-utf8", "ok\n\xff\xfe\n", 2},
		{"empty-state", "  \n", 0},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			bad := check(t, map[string]string{"START.md": "<goto>NEXT</goto>", "NEXT.md": tt.text})
			got := find(bad, tt.id)
			require.Len(t, got, 1, "%+v", bad.Findings)
			assert.Equal(t, lint.Error, got[0].Severity)
			assert.Equal(t, tt.line, got[0].Line)
			assert.True(t, bad.HasErrors())
			good := check(t, map[string]string{"START.md": "<goto>NEXT</goto>", "NEXT.md": done})
			assert.Empty(t, good.Findings)
		})
	}
}

func TestUnknownKeyDidYouMean(t *testing.T) {
	r := check(t, map[string]string{"START.md": "---\nmodel: sonnet\nmodle: opus\n---\n<result>x</result>\n"})
	got := find(r, "unknown-key")
	require.Len(t, got, 1)
	assert.Equal(t, `did you mean "model"? rename the key`, got[0].Fix)
	assert.Equal(t, 3, got[0].Line)
	assert.Equal(t, 1, got[0].Column)
	assert.False(t, r.HasErrors())
}

// A misspelt manifest key leaves the workflow's setting at its default;
// the run says so as it starts, and lint says it too, where its file is.
func TestUnknownManifestKey(t *testing.T) {
	r := check(t, map[string]string{"START.md": "<result>x</result>\n",
		"workflow.yaml": "name: Review\ndefualt_budget: 2\ninput:\n  mdoe: required\n"})
	got := find(r, "unknown-key")
	require.Len(t, got, 2, "%+v", r.Findings)
	assert.Equal(t, "workflow.yaml", filepath.Base(got[0].File))
	assert.Equal(t, 2, got[0].Line)
	assert.Equal(t, `unknown manifest key "defualt_budget" ignored`, got[0].Message)
	assert.Equal(t, `did you mean "default_budget"? rename the key`, got[0].Fix)
	assert.Equal(t, 4, got[1].Line)
	assert.False(t, r.HasErrors())

	dir := t.TempDir()
	p := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(p, []byte("stats: {}\nstates:\n  START:\n    prompt: \"<result>x</result>\"\n"), 0o644))
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	y, err := lint.Check(ss, p)
	require.NoError(t, err)
	got = find(y, "unknown-key")
	require.Len(t, got, 1, "%+v", y.Findings)
	assert.Equal(t, p, got[0].File)
	assert.Equal(t, 1, got[0].Line)
	assert.Equal(t, `did you mean "states"? rename the key`, got[0].Fix)
}

func TestYAMLWorkflow(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(p, []byte("states:\n  START:\n    prompt: \"<goto>NEXTT</goto>\"\n  NEXT:\n    prompt: \"<result>x</result>\"\n"), 0o644))
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	r, err := lint.Check(ss, p)
	require.NoError(t, err)
	got := find(r, "missing-target")
	require.Len(t, got, 1, "%+v", r.Findings)
	assert.Equal(t, p, got[0].File)
	assert.Equal(t, 2, got[0].Line)
	assert.Equal(t, "did you mean NEXT?", got[0].Fix)
}

func TestCleanWorkflowsHaveNoErrors(t *testing.T) {
	r := check(t, map[string]string{
		"START.md":  "<fork next=\"JOIN\" item=\"a\">WORKER</fork>",
		"WORKER.md": "Do {{item}} for {{agent_id}}. <result>ok</result>",
		"JOIN.md":   "<call return=\"END\">SUB</call>",
		"SUB.md":    "<ask next=\"SUB2\">Go?</ask>",
		"SUB2.md":   "You said {{input}}. <result>yes</result>",
		"END.md":    "It returned {{result}}. <result>done</result>",
	})
	assert.Empty(t, r.Findings)
}

func TestSARIF(t *testing.T) {
	r := check(t, map[string]string{"START.md": "<goto>NOPE</goto>"})
	log := lint.SARIF([]lint.Report{r}, "v1")
	assert.Equal(t, "2.1.0", log.Version)
	require.Len(t, log.Runs, 1)
	assert.Equal(t, "raymond", log.Runs[0].Tool.Driver.Name)
	ids := []string{}
	for _, rule := range log.Runs[0].Tool.Driver.Rules {
		ids = append(ids, rule.ID)
	}
	assert.True(t, slices.Contains(ids, "missing-target"))
	require.NotEmpty(t, log.Runs[0].Results)
	assert.Equal(t, "error", log.Runs[0].Results[0].Level)
}

func TestTemplatedTargetsAreNotChecked(t *testing.T) {
	r := check(t, map[string]string{
		"START.md":  "<fork next=\"JOIN\" step=\"CHECK\">WORKER</fork>",
		"WORKER.md": "Then <goto>{{step}}</goto>.",
		"CHECK.md":  "<result>ok</result>",
		"JOIN.md":   "<result>done</result>",
	})
	assert.Empty(t, find(r, "missing-target"), "%+v", r.Findings)
	assert.Empty(t, find(r, "unreachable-state"), "%+v", r.Findings)
	assert.NotNil(t, r.Findings)
}

// A state file whose name holds a control character is named quoted, with
// a fix that says to rename it, not as a frontmatter error.
func TestControlCharacterInStateName(t *testing.T) {
	r := check(t, map[string]string{"START.md": "<result>x</result>", "A\nB.md": "<result>y</result>"})
	got := find(r, "unreadable-state")
	if assert.Len(t, got, 1) {
		assert.Equal(t, `the file name "A\nB.md" contains the control character U+000A; a target is the name of a file in the workflow folder`, got[0].Message)
		assert.Contains(t, got[0].Fix, "rename the file")
	}
	assert.Empty(t, find(r, "frontmatter-parse-error"))
}

// Claude Code's Bash refuses a standalone `sleep N`, so a prompt that asks
// the model to wait that way makes a loop of paid steps; a script may sleep.
func TestPromptSleep(t *testing.T) {
	r := check(t, map[string]string{
		"START.md": "<goto>WAIT.md</goto>",
		"WAIT.md": "---\nallowed_transitions:\n  - { tag: goto, target: WAIT.md }\n  - { tag: result }\n---\n" +
			"List the folder.\nIf files are missing, run `sleep 30`, then answer <goto>WAIT.md</goto>.\n" +
			"Otherwise <result>done</result>\n",
		"POLL.sh": "sleep 30\necho '<result>polled</result>'\n",
	})
	got := find(r, "prompt-sleep")
	require.Len(t, got, 1, "%+v", r.Findings)
	assert.Equal(t, lint.Warning, got[0].Severity)
	assert.Equal(t, "WAIT.md", filepath.Base(got[0].File))
	assert.Equal(t, 7, got[0].Line)
	assert.Equal(t, 28, got[0].Column)
	assert.Contains(t, got[0].Message, "`sleep 30`")
	assert.Contains(t, got[0].Fix, "script state")

	for _, text := range []string{"Sleep on it, then answer <result>x</result>", "The sleep command is not for you. <result>x</result>"} {
		r := check(t, map[string]string{"START.md": text})
		assert.Empty(t, find(r, "prompt-sleep"), text)
	}
}

// A manifest's schedule the daemon could not fire is an error at its
// line, in a workflow.yaml and at a YAML workflow's top level alike.
func TestBadSchedule(t *testing.T) {
	r := check(t, map[string]string{"START.md": "<result>x</result>\n",
		"workflow.yaml": "name: Nightly\nschedule:\n  cron: \"0 3 * *\"\n"})
	got := find(r, "bad-schedule")
	require.Len(t, got, 1, "%+v", r.Findings)
	assert.Equal(t, lint.Error, got[0].Severity)
	assert.Equal(t, "workflow.yaml", filepath.Base(got[0].File))
	assert.Equal(t, 2, got[0].Line)
	assert.Contains(t, got[0].Message, `schedule.cron "0 3 * *"`)

	r = check(t, map[string]string{"START.md": "<result>x</result>\n",
		"workflow.yaml": "schedule:\n  cron: \"@daily\"\n  timezone: Mars/Base\n  mised: once\n"})
	got = find(r, "bad-schedule")
	require.Len(t, got, 1, "%+v", r.Findings)
	assert.Contains(t, got[0].Message, `timezone "Mars/Base"`)
	assert.Equal(t, "correct schedule.timezone (docs/writing-workflows.md, \"Schedules\")", got[0].Fix)
	unknown := find(r, "unknown-key")
	require.Len(t, unknown, 1, "%+v", r.Findings)
	assert.Equal(t, `did you mean "missed"? rename the key`, unknown[0].Fix)

	good := check(t, map[string]string{"START.md": "<result>x</result>\n",
		"workflow.yaml": "schedule:\n  cron: \"*/10 * * * *\"\n  timezone: UTC\n  missed: once\n  overlap: allow\n  input: the night\n  budget: 2\n"})
	assert.Empty(t, good.Findings)

	dir := t.TempDir()
	p := filepath.Join(dir, "wf.yaml")
	require.NoError(t, os.WriteFile(p, []byte("schedule:\n  cron: \"@dialy\"\nstates:\n  START:\n    prompt: \"<result>x</result>\"\n"), 0o644))
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	y, err := lint.Check(ss, p)
	require.NoError(t, err)
	got = find(y, "bad-schedule")
	require.Len(t, got, 1, "%+v", y.Findings)
	assert.Equal(t, p, got[0].File)
	assert.Equal(t, 1, got[0].Line)
}
