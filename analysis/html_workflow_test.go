package analysis

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

// tabWorkflow is a workflow with a call, a fork, a loop and a call into
// another workflow; tabRun is a run of it.
var tabWorkflow = map[string]string{
	"START.md":     `<call return="PLAN">SURVEY</call>`,
	"SURVEY.md":    "<result>s</result>",
	"PLAN.md":      `<fork next="WAIT" item="x">WORK</fork>`,
	"WORK.md":      "<result>w</result>",
	"WAIT.md":      `<goto>WAIT</goto> <call-workflow return="REPORT">sub</call-workflow>`,
	"REPORT.md":    "<result>r</result>",
	"LATER.md":     "<goto>REPORT</goto>",
	"sub/START.md": "<goto>CHECK</goto>",
	"sub/CHECK.md": "<result>ok</result>",
}

func workflowFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return dir
}

func tabRun(dir string) *Run {
	main := &Agent{ID: "main", Status: "completed", Path: []*Visit{
		{State: "START.md"},
		{State: "SURVEY.md", Via: "call", Depth: 1},
		{State: "PLAN.md", Via: "result", Spawned: []string{"main_w1"}},
		{State: "WAIT.md", Via: "fork"},
		{State: "WAIT.md", Via: "goto"},
		{State: "sub/START.md", Via: "call-workflow", Depth: 1},
		{State: "CHECK.md", Via: "goto", Depth: 1},
		{State: "REPORT.md", Via: "result", Exit: "result"},
	}}
	w1 := &Agent{ID: "main_w1", Parent: "main", Status: "completed", Path: []*Visit{
		{State: "WORK.md", Via: "fork", Exit: "result"},
	}}
	return &Run{Schema: SchemaVersion, ID: "tab", Dir: "/tmp/tab", Status: "completed", Workflow: dir, ScopeDir: dir,
		Agents: []*Agent{main, w1}}
}

func TestOverlayOfARun(t *testing.T) {
	dir := workflowFolder(t, tabWorkflow)
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	g, err := lint.BuildGraph(ss, dir)
	require.NoError(t, err)
	require.Len(t, g.Workflows, 2)
	top, sub := g.Workflows[0].Dir, g.Workflows[1].Dir
	at := func(wf, name string) diagram.State { return diagram.State{Workflow: wf, Name: name} }

	o, missing := overlayOf(tabRun(dir), g)
	assert.Empty(t, missing)
	assert.Equal(t, map[diagram.State]int{
		at(top, "START.md"): 1, at(top, "SURVEY.md"): 1, at(top, "PLAN.md"): 1, at(top, "WAIT.md"): 2,
		at(sub, "START.md"): 1, at(sub, "CHECK.md"): 1, at(top, "REPORT.md"): 1, at(top, "WORK.md"): 1,
	}, o.Visits)
	move := func(from, to diagram.State, via string) diagram.Move {
		return diagram.Move{From: from, To: to, Via: via}
	}
	assert.Equal(t, map[diagram.Move]int{
		move(at(top, "START.md"), at(top, "SURVEY.md"), "call"):        1,
		move(at(top, "SURVEY.md"), at(top, ""), "result"):              1,
		move(at(top, "START.md"), at(top, "PLAN.md"), "return"):        1,
		move(at(top, "PLAN.md"), at(top, "WAIT.md"), "fork"):           1,
		move(at(top, "PLAN.md"), at(top, "WORK.md"), "fork"):           1,
		move(at(top, "WAIT.md"), at(top, "WAIT.md"), "goto"):           1,
		move(at(top, "WAIT.md"), at(sub, "START.md"), "call-workflow"): 1,
		move(at(sub, "START.md"), at(sub, "CHECK.md"), "goto"):         1,
		move(at(sub, "CHECK.md"), at(sub, ""), "result"):               1,
		move(at(top, "WAIT.md"), at(top, "REPORT.md"), "return"):       1,
		move(at(top, "REPORT.md"), at(top, ""), "result"):              1,
		move(at(top, "WORK.md"), at(top, ""), "result"):                1,
	}, o.Moves)
}

// workflowSection returns the workflow tab of a report.
func workflowSection(t *testing.T, page string) string {
	t.Helper()
	i := strings.Index(page, `<section id="workflow">`)
	require.GreaterOrEqual(t, i, 0, "no workflow tab")
	j := strings.Index(page[i:], "</section>")
	require.Greater(t, j, 0)
	return page[i : i+j]
}

func TestHTMLWorkflowTab(t *testing.T) {
	dir := workflowFolder(t, tabWorkflow)
	page := htmlReport(t, tabRun(dir), nil)
	tab := workflowSection(t, page)
	htmlHas(t, tab,
		`<svg class="diagram run"`,
		"<title>WAIT.md: visited 2 times</title>",
		"<title>LATER.md: never visited</title>",
		">×2</text>",
		">call ×1</text>",
		`<g class="edge goto idle">`, // LATER → REPORT
	)
	htmlLacks(t, tab, "<a ", "href", `class="note"`)
	htmlLacks(t, page, "http")
	assert.Contains(t, page, `<a href="#workflow">Workflow</a>`)
}

func TestHTMLWorkflowTabWithoutTheWorkflow(t *testing.T) {
	gone := filepath.Join(t.TempDir(), "gone")
	for _, tc := range []struct {
		name, scope, files, want string
	}{
		{"gone", gone, "", "The workflow is not drawn: " + gone + " is no longer there."},
		{"unknown", "", "", "The workflow is not drawn: the transcript does not say where it is."},
		{"changed", "", "REPORT.md", "The workflow has changed since the run: it no longer has REPORT.md, which the run visited."},
		{"empty", "", "*", "cannot be read now"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tabRun("")
			r.ScopeDir = tc.scope
			switch tc.files {
			case "REPORT.md":
				files := map[string]string{}
				for k, v := range tabWorkflow {
					if k != "REPORT.md" {
						files[k] = v
					}
				}
				r.ScopeDir = workflowFolder(t, files)
			case "*":
				r.ScopeDir = t.TempDir()
			}
			page := htmlReport(t, r, nil)
			tab := workflowSection(t, page)
			assert.Contains(t, tab, tc.want)
			assert.Equal(t, 1, strings.Count(tab, `<p class="note">`), "one sentence")
			assert.Contains(t, page, `<section id="steps">`, "the rest of the report is there")
			if tc.name == "changed" {
				assert.Contains(t, tab, `<svg class="diagram run"`, "what is left is drawn")
			} else {
				assert.NotContains(t, tab, "<svg")
			}
		})
	}
}

func TestScopeDirWithoutAStateFile(t *testing.T) {
	b := newBuilder()
	b.r.Workflow = "/home/ada/wf"
	b.fromState(nil)
	assert.Equal(t, "/home/ada/wf", b.r.ScopeDir)
	b = newBuilder()
	b.r.Workflow = "https://example.com/wf.zip"
	b.fromState(nil)
	assert.Empty(t, b.r.ScopeDir, "a URL is no folder")
}
