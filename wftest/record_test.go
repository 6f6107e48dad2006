package wftest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/analysis"
	"raymond/orchestrator"
	"raymond/scripted"
	"raymond/state"
)

// realRun runs the workflow wf (a folder under dir) with replies, as
// `raymond run --replies` would, and returns the analysed run.
func realRun(t *testing.T, dir, wf, replies string, input *string) *analysis.Run {
	t.Helper()
	return runWith(t, dir, orchestrator.NewRun{Workflow: filepath.Join(dir, wf), Options: state.Options{Input: input}}, replies)
}

// runWith creates the run n (in the project dir, with a transcript and up
// to four steps at once) and drives it with replies.
func runWith(t *testing.T, dir string, n orchestrator.NewRun, replies string) *analysis.Run {
	t.Helper()
	store, err := state.Open(filepath.Join(dir, ".raymond", "state"))
	require.NoError(t, err)
	n.Options.MaxParallel, n.Options.Debug, n.Cwd = 4, true, dir
	r, err := orchestrator.Create(store, n)
	require.NoError(t, err)
	return drive(t, dir, r.WorkflowID, replies)
}

// drive drives (or resumes) the run id of the project dir with replies,
// as `raymond resume --replies` would, and returns the analysed run.
func drive(t *testing.T, dir, id, replies string) *analysis.Run {
	t.Helper()
	store, err := state.Open(filepath.Join(dir, ".raymond", "state"))
	require.NoError(t, err)
	runner, err := scripted.Parse("replies.yaml", []byte(replies))
	require.NoError(t, err)
	debug := filepath.Join(dir, ".raymond", "debug")
	d := &orchestrator.Driver{Store: store, Runner: runner, DebugDir: debug, Clock: &orchestrator.InstantClock{}}
	final, err := d.Drive(context.Background(), id, nil)
	require.NoError(t, err)
	run, err := analysis.Load(analysis.Source{Dir: filepath.Join(debug, id), State: final})
	require.NoError(t, err)
	return run
}

// loopReplies answer loopWorkflow with a retry, a verbatim answer holding
// a placeholder, and a multi-line one.
const loopReplies = `
replies:
  START:
    - outcome: crash
    - {text: "Looking at {{input}}. <goto>FIX.md</goto>", cost: 0.25}
  FIX:
    - {text: "The template {{item}} stays. <goto>FIX.md</goto>", template: false, cost: 0.125}
    - "<goto>SUMMARY.md</goto>"
  SUMMARY:
    - "  Indented first line.\n<result>\n  Done:\n\tall {{input}}.\n</result>\n"
`

func TestRecordReplays(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	in := "the parser"
	run := realRun(t, dir, "wf", loopReplies, &in)
	require.Equal(t, "completed", run.Status)

	path := filepath.Join(dir, "wf", "recorded.test.yaml")
	require.NoError(t, WriteRecorded(nil, path, run, RecordOptions{Input: &in}))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	assert.Contains(t, text, "workflow: .\ncwd: ..\ncases:\n  - name: recorded "+run.ID+"\n    input: the parser\n")
	assert.Contains(t, text, "        - outcome: crash\n")
	assert.Contains(t, text, "template: false")
	assert.Contains(t, text, "      path:\n        main: [START, goto FIX, goto FIX, goto SUMMARY]\n      steps: 5\n      retries: 1\n      cost: 0.375\n")

	rep := Run(context.Background(), []string{path}, Options{})
	require.NoError(t, rep.Files[0].Err, text)
	assert.Empty(t, rep.Files[0].Cases[0].Failures, text)

	// A second recording goes after the first; a name taken is refused.
	require.NoError(t, WriteRecorded(nil, path, run, RecordOptions{Input: &in, Name: "again"}))
	err = WriteRecorded(nil, path, run, RecordOptions{Input: &in, Name: "again"})
	assert.EqualError(t, err, path+` already has a case named "again"; give this one another name with --case-name NAME`)
	rep = Run(context.Background(), []string{path}, Options{})
	require.NoError(t, rep.Files[0].Err)
	require.Len(t, rep.Files[0].Cases, 2)
	assert.Empty(t, rep.Files[0].Cases[1].Failures)

	// The workflow changes: FIX may no longer loop. The recorded answers
	// now take another path, and the replay says where.
	changed := filepath.Join(dir, "changed")
	require.NoError(t, os.CopyFS(changed, os.DirFS(filepath.Join(dir, "wf"))))
	write(t, changed, map[string]string{"FIX.md": "---\nallowed_transitions:\n  - { tag: goto, target: SUMMARY.md }\n---\nFix one."})
	rep = Run(context.Background(), []string{filepath.Join(changed, "recorded.test.yaml")}, Options{})
	require.NoError(t, rep.Files[0].Err)
	fails := rep.Files[0].Cases[0].Failures
	require.NotEmpty(t, fails)
	assert.Contains(t, strings.Join(fails, "\n"), "path of main (- expected, + actual):\n  START\n  goto FIX\n- goto FIX\n  goto SUMMARY")
}

func TestRecordFanOut(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, fanWorkflow)
	run := realRun(t, dir, "fan", `
replies:
  START: ["<fork item=\"a\">WORKER.md</fork><fork item=\"b\">WORKER.md</fork><goto>JOIN.md</goto>"]
  WORKER: [{text: "<result>{{item}} done</result>", cost: 0.5}, "<result>{{item}} done</result>"]
  JOIN: ["<result>joined</result>"]
`, nil)
	require.Equal(t, "completed", run.Status)
	var out bytes.Buffer
	require.NoError(t, WriteRecorded(&out, "-", run, RecordOptions{Name: "fan"}))
	text := out.String()
	assert.True(t, strings.HasPrefix(text, "# A case recorded from run "+run.ID+" of "+filepath.Join(dir, "fan")+".\n- name: fan\n"), text)
	for _, w := range []string{"main_worker1", "main_worker2"} {
		assert.Contains(t, text, "    "+w+"/WORKER.md:\n", "each worker's answers are its own")
	}

	path := filepath.Join(dir, "fan", "fan.test.yaml")
	write(t, dir, map[string]string{"fan/fan.test.yaml": "workflow: .\ncases:\n" + text})
	rep := Run(context.Background(), []string{path}, Options{})
	require.NoError(t, rep.Files[0].Err, text)
	assert.Empty(t, rep.Files[0].Cases[0].Failures, text)
}

func TestRecordIntoFileRefused(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	write(t, dir, fanWorkflow)
	run := realRun(t, dir, "wf", loopReplies, nil)
	tests := []struct {
		name, file, want string
	}{
		{"cases not last", "cases:\n  - name: a\nworkflow: .\n", "cannot append to PATH: cases is not its last top-level key; move cases: to the end of the file, or record into a new file"},
		{"flow cases", "workflow: .\ncases: [{name: a}]\n", `cannot append to PATH: its cases are written on one line ([...]); write them as a list of "- name: …" items, or record into a new file`},
		{"not yaml", "cases: [\n", "PATH is not valid YAML (yaml: line 1: did not find expected node content); fix it, or record into a new file"},
		{"another workflow", "workflow: ../fan\ncases:\n- name: a\n", "PATH tests the workflow " + filepath.Join(dir, "fan") + ", but run " + run.ID + " ran " + filepath.Join(dir, "wf") + "; record into a test file of that workflow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "wf", "x.test.yaml")
			write(t, dir, map[string]string{"wf/x.test.yaml": tt.file})
			err := WriteRecorded(nil, path, run, RecordOptions{})
			require.Error(t, err)
			assert.Equal(t, strings.ReplaceAll(tt.want, "PATH", path), err.Error())
			data, _ := os.ReadFile(path)
			assert.Equal(t, tt.file, string(data), "the file is left as it was")
		})
	}
}

func TestRecordAppendsAtTheFilesIndent(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	run := realRun(t, dir, "wf", loopReplies, nil)
	path := filepath.Join(dir, "wf", "flush.test.yaml")
	write(t, dir, map[string]string{"wf/flush.test.yaml": "workflow: .\ncwd: ..\ncases:\n- name: first\n  replies: {}\n  expect: {status: failed}"})
	require.NoError(t, WriteRecorded(nil, path, run, RecordOptions{}))
	f, err := Load(path)
	require.NoError(t, err)
	require.Len(t, f.Cases, 2)
	data, _ := os.ReadFile(path)
	assert.Contains(t, string(data), "{status: failed}\n- name: recorded ")
}

func TestScalarRoundTrips(t *testing.T) {
	for _, s := range []string{
		"plain", "a: b", "line1\nline2", "  lead\nx", "trail \nx", "x\n", "x\n\n", "\tTab\nx", "{{item}} <goto>X</goto>",
		"yes", "1e-05", "- item", "", "é\u2028x", "a\r\nb", "# not a comment", "\"quoted\"\n'single'", "\x01\x7f\u0085\ufeff",
	} {
		rc := &recording{run: &analysis.Run{ID: "r1"}}
		rc.b.WriteString("- replies:\n    S:\n      - text: " + rc.scalar(s, 8, true) + "\n        cost: 1\n")
		assert.NoError(t, rc.verify(), "%q as\n%s", s, rc.b.String())
	}
}

func TestRecordFailedRunKeepsItsResult(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, fanWorkflow)
	run := realRun(t, dir, "fan", `
replies:
  START: ["<fork item=\"a\">WORKER.md</fork><goto>JOIN.md</goto>"]
  WORKER: [{outcome: max_turns}]
  JOIN: ["<result>joined without a</result>"]
`, nil)
	require.Equal(t, "failed", run.Status)
	require.NotNil(t, run.Result)
	var out bytes.Buffer
	require.NoError(t, WriteRecorded(&out, "-", run, RecordOptions{Name: "failed"}))
	text := out.String()
	assert.Contains(t, text, "  expect:\n    status: failed\n    result: joined without a\n")

	path := filepath.Join(dir, "fan", "failed.test.yaml")
	write(t, dir, map[string]string{"fan/failed.test.yaml": "workflow: .\ncases:\n" + text})
	rep := Run(context.Background(), []string{path}, Options{})
	require.NoError(t, rep.Files[0].Err, text)
	assert.Empty(t, rep.Files[0].Cases[0].Failures, text)
}

func TestRecordNamesStepsNotReplayed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	run := realRun(t, dir, "wf", loopReplies, nil)
	// Two steps that a replay cannot repeat, as a run interrupted by a
	// second Ctrl-C and one whose process was killed leave them.
	run.Steps = append(run.Steps,
		&analysis.Step{Name: "main_FIX_008", Agent: "main", State: "FIX.md", Outcome: "canceled"},
		&analysis.Step{Name: "main_FIX_009", Agent: "main", State: "FIX.md"},
		&analysis.Step{Name: "main_FIX_010", Agent: "main", State: "FIX.md", Outcome: "authentication error"},
	)
	got, err := Record(run, RecordOptions{}, 0)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(got, "# Not replayed (each ran again later): main_FIX_008 (canceled), "+
		"main_FIX_009 (cut short: the process driving the run was killed), main_FIX_010 (authentication error).\n- name: "), got)
}
