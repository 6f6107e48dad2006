package wftest

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleReport has a passing file, a failing one and an invalid one.
func sampleReport() *Report {
	pass := &CaseResult{Name: "happy", ID: "loop/happy", Line: 3, Duration: 10 * time.Millisecond,
		Status: "completed", Result: ptr("ok"), Steps: 2, CostUSD: 0.03,
		Paths: []Path{{Agent: "main", Visits: []Visit{{State: "START.md", Via: ""}, {State: "FIX.md", Via: "goto"}}}}}
	fail := &CaseResult{Name: "sad", ID: "fan/sad", Duration: 20 * time.Millisecond, Status: "failed",
		Failures: []string{"status: got failed, want completed", "path of main (- expected, + actual):\n  START\n- JOIN"}}
	return &Report{Duration: 410 * time.Millisecond, Files: []*FileResult{
		{Path: "wf/loop.test.yaml", Duration: 10 * time.Millisecond, Cases: []*CaseResult{pass}},
		{Path: "fan/fan.test.yaml", Duration: 20 * time.Millisecond, Cases: []*CaseResult{fail}},
		{Path: "bad.test.yaml", Err: errors.New("bad.test.yaml:4: case \"a\": unknown key \"inptu\"")},
		{Path: "none.test.yaml"},
	}}
}

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, sampleReport(), false))
	assert.Equal(t, `--- PASS: loop/happy (0.01s)
ok    wf/loop.test.yaml  1 case  0.01s
--- FAIL: fan/sad (0.02s)
    status: got failed, want completed
    path of main (- expected, + actual):
      START
    - JOIN
FAIL  fan/fan.test.yaml  1 of 1 case failed  0.02s
# bad.test.yaml
bad.test.yaml:4: case "a": unknown key "inptu"
FAIL  bad.test.yaml  [invalid test file]
FAIL: 1 of 2 cases failed, 1 test file invalid, in 4 files (0.41s)
`, b.String())

	b.Reset()
	require.NoError(t, WriteText(&b, sampleReport(), true))
	assert.Contains(t, b.String(), "--- PASS: loop/happy (0.01s)\n    path:\n      main: [START, goto FIX]\n    completed, 2 steps, 0.03 USD\nok ")
}

func TestSummary(t *testing.T) {
	r := &Report{Duration: time.Second, Files: []*FileResult{{Cases: []*CaseResult{{}, {}}}}}
	assert.Equal(t, "PASS: 2 cases in 1 file (1.00s)", Summary(r))
	r.Files[0].Cases[1].Failures = []string{"x"}
	assert.Equal(t, "FAIL: 1 of 2 cases failed in 1 file (1.00s)", Summary(r))

	none := &Report{Duration: time.Second, Unselected: 12, Files: []*FileResult{{}, {}}}
	assert.Equal(t, "NO CASES RUN: 0 of 12 cases selected in 2 files (1.00s)", Summary(none), "nothing run is not a pass")
	none.Files[1].Err = errors.New("bad")
	assert.Equal(t, "FAIL: 1 test file invalid, no case run, in 2 files (1.00s)", Summary(none))
}

func TestReportPassed(t *testing.T) {
	assert.False(t, (&Report{Unselected: 3, Files: []*FileResult{{}}}).Passed(), "no case run")
	assert.True(t, (&Report{Files: []*FileResult{{Cases: []*CaseResult{{}}}}}).Passed())
	assert.False(t, (&Report{Files: []*FileResult{{Cases: []*CaseResult{{Failures: []string{"x"}}}}}}).Passed())
	assert.False(t, (&Report{Files: []*FileResult{{Cases: []*CaseResult{{}}}, {Err: errors.New("bad")}}}).Passed())

	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, &Report{Unselected: 3, Files: []*FileResult{{Path: "a.test.yaml"}}}))
	var got map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, false, got["passed"], "a run of no case did not pass")
	assert.Equal(t, 3.0, got["unselected"])
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, sampleReport()))
	var got map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &got))
	assert.Equal(t, 1.0, got["schema"])
	assert.Equal(t, false, got["passed"])
	assert.Equal(t, 4.0, got["files"])
	assert.Equal(t, 1.0, got["invalid_files"])
	assert.Equal(t, 2.0, got["cases"])
	assert.Equal(t, 1.0, got["failed"])
	results := got["results"].([]any)
	require.Len(t, results, 4)
	first := results[0].(map[string]any)
	assert.Equal(t, true, first["passed"])
	c := first["cases"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{
		"id": "loop/happy", "name": "happy", "line": 3.0, "passed": true, "failures": []any{}, "duration_ms": 10.0,
		"status": "completed", "result": "ok", "steps": 2.0, "reminders": 0.0, "retries": 0.0, "cost_usd": 0.03,
		"paths": []any{map[string]any{"agent": "main", "visits": []any{
			map[string]any{"state": "START.md", "via": ""}, map[string]any{"state": "FIX.md", "via": "goto"},
		}}},
	}, c)
	assert.Equal(t, "bad.test.yaml:4: case \"a\": unknown key \"inptu\"", results[2].(map[string]any)["error"])
	assert.Equal(t, []any{}, results[3].(map[string]any)["cases"])
}

func TestWriteJUnit(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteJUnit(&b, sampleReport()))
	var got junitSuites
	require.NoError(t, xml.Unmarshal(b.Bytes(), &got), b.String())
	assert.Equal(t, 3, got.Tests)
	assert.Equal(t, 1, got.Failures)
	assert.Equal(t, 1, got.Errors)
	assert.Equal(t, "0.410", got.Time)
	require.Len(t, got.Suites, 4)
	assert.Equal(t, junitCase{Name: "happy", Classname: "loop", Time: "0.010"}, got.Suites[0].Cases[0])
	assert.Equal(t, "fan", got.Suites[1].Cases[0].Classname)

	r := sampleReport()
	r.Files[0].Prefix = "wf/loop"
	b.Reset()
	require.NoError(t, WriteJUnit(&b, r))
	assert.Contains(t, b.String(), `<testcase name="happy" classname="wf/loop" `, "the classname is the prefix of the case ids")
	failed := got.Suites[1].Cases[0]
	require.NotNil(t, failed.Failure)
	assert.Equal(t, "status: got failed, want completed; path of main (- expected, + actual):", failed.Failure.Message)
	assert.Equal(t, "status: got failed, want completed\npath of main (- expected, + actual):\n  START\n- JOIN", failed.Failure.Text)
	bad := got.Suites[2]
	assert.Equal(t, 1, bad.Errors)
	require.NotNil(t, bad.Cases[0].Error)
	assert.Contains(t, b.String(), "<![CDATA[status: got failed, want completed\npath of main", "failure texts keep their lines")
}

func TestDiscover(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"a.test.yaml":                   "",
		"wf/b.test.yaml":                "",
		"wf/sub/c.test.yaml":            "",
		"wf/replies.yaml":               "",
		"wf/d.test.yml":                 "",
		".git/e.test.yaml":              "",
		"wf/.raymond/f.test.yaml":       "",
		"node_modules/x/g.test.yaml":    "",
		"other/explicit.yaml":           "",
		"other/h.test.yaml/not-a-file/": "",
	})
	t.Chdir(dir)
	files, err := Discover(nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.test.yaml", "wf/b.test.yaml", "wf/sub/c.test.yaml"}, files)

	files, err = Discover([]string{"wf", "other/explicit.yaml", "wf/sub/c.test.yaml", "."})
	require.NoError(t, err)
	assert.Equal(t, []string{"wf/b.test.yaml", "wf/sub/c.test.yaml", "other/explicit.yaml", "a.test.yaml"}, files,
		"a file given is taken whatever its name; each file once")

	_, err = Discover([]string{"missing"})
	require.ErrorIs(t, err, os.ErrNotExist)

	files, err = Discover([]string{filepath.Join(dir, "wf", ".raymond")})
	require.NoError(t, err)
	assert.Len(t, files, 1, "a skipped folder given by name is searched")
}
