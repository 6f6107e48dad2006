package analysis

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/orchestrator"
	"raymond/script"
	"raymond/scripted"
	"raymond/state"
)

// htmlDemo runs the bundled demo (workflows/demo with its replies, as
// `make demo` does) in a temporary project, in a synctest bubble so that
// its replies' delays take no time, and loads its transcript with every
// step's detail: a real transcript, as `raymond transcript` reads it.
func htmlDemo(t *testing.T) (*Run, map[string]*Detail) {
	t.Helper()
	wf, err := filepath.Abs(filepath.Join("..", "workflows", "demo"))
	require.NoError(t, err)
	replies, err := os.ReadFile(filepath.Join(wf, "replies.yaml"))
	require.NoError(t, err)
	runner, err := scripted.Parse("replies.yaml", replies)
	require.NoError(t, err)

	project := t.TempDir()
	store, err := state.Open(filepath.Join(project, ".raymond", "state"))
	require.NoError(t, err)
	_, err = orchestrator.Create(store, orchestrator.NewRun{Workflow: wf, ID: "demo", Options: state.Options{Debug: true}})
	require.NoError(t, err)
	debug := filepath.Join(project, ".raymond", "debug")
	synctest.Test(t, func(t *testing.T) {
		// The replies answer the script state WAIT.sh too, as `make demo`'s do.
		d := &orchestrator.Driver{Store: store, Runner: runner, Scripts: runner.Scripts(&script.Runner{}),
			DebugDir: debug, Clock: orchestrator.RealClock{}}
		run, err := d.Drive(context.Background(), "demo", nil)
		require.NoError(t, err)
		require.Equal(t, state.StatusCompleted, run.Status, run.Error)
	})
	st, err := store.Read("demo")
	require.NoError(t, err)
	dir := filepath.Join(debug, "demo")
	r, err := Load(Source{Dir: dir, State: st})
	require.NoError(t, err)
	details := map[string]*Detail{}
	for _, s := range r.Steps {
		details[s.Name], err = LoadDetail(dir, s)
		require.NoError(t, err)
	}
	return r, details
}

func TestHTMLOfTheDemo(t *testing.T) {
	r, details := htmlDemo(t)
	require.Len(t, r.Steps, 8)
	page := htmlReport(t, r, details)

	htmlHas(t, page,
		`<span class="badge ok">completed</span>`,
		"<dt>Cost</dt><dd>$0.0379 ($0.0047 per step)</dd>",
		"Review of raymond\n- tests: strong",
		`<span class="via">call</span> <span class="state">SURVEY.md</span>`,
		`forked <a href="#agent-main_review1">main_review1</a>, <a href="#agent-main_review2">main_review2</a>, <a href="#agent-main_review3">main_review3</a>`,
		// Real stream items: the tools of START.md, escaped.
		`<span class="kind">tool <code>Bash</code></span>`,
		"<h4>Answer</h4>",
	)
	htmlLacks(t, page, `id="notes"`, "are not in the report", "http://", "https://")
	assert.Equal(t, 8, strings.Count(page, `<rect class="bar ok`), "eight successful steps")
	assert.Equal(t, len(r.CriticalPath), strings.Count(page, `<rect class="bar ok crit"`), "the critical path is outlined")
	assert.Equal(t, 6, strings.Count(page, `<rect class="bar cost"`), "six states")
	// The workflow tab draws the demo's folder with the run over it.
	tab := workflowSection(t, page)
	htmlHas(t, tab, `<svg class="diagram run"`,
		"<title>REVIEW.md: visited 3 times</title>", "<title>WAIT.sh: visited once</title>",
		">call ×1</text>")
	assert.Equal(t, 6, strings.Count(tab, `<g class="visits">`), "every state visited")
	htmlLacks(t, tab, "<a ", `class="note"`)
}

func TestMermaidOfTheDemo(t *testing.T) {
	r, _ := htmlDemo(t)
	var b bytes.Buffer
	require.NoError(t, WriteMermaid(&b, r))
	assert.Equal(t, `flowchart TD
    run_start(("start"))
    s_START_md["START.md"]
    s_SURVEY_md["SURVEY.md"]
    s_PLAN_md["PLAN.md"]
    s_REVIEW_md["REVIEW.md"]
    s_WAIT_sh["WAIT.sh"]
    s_REPORT_md["REPORT.md"]
    run_end(("end"))
    run_start --> s_START_md
    s_START_md ==>|"call ×1"| s_SURVEY_md
    s_SURVEY_md --o|"result ×1"| s_PLAN_md
    s_PLAN_md -.->|"fork ×3"| s_REVIEW_md
    s_PLAN_md -->|"fork ×1"| s_WAIT_sh
    s_WAIT_sh -->|"goto ×1"| s_REPORT_md
    s_REPORT_md -->|"result ×1"| run_end
    s_REVIEW_md -->|"result ×3"| run_end
    classDef terminal fill:#eee,stroke:#666
    classDef entry stroke-width:3px
    classDef failed fill:#fdd,stroke:#b00
    class run_start,run_end terminal
    class s_START_md entry
`, b.String())
}
