package analysis

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mermaidOf(t *testing.T, r *Run) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, WriteMermaid(&b, r))
	return b.String()
}

func TestMermaidRealisticRun(t *testing.T) {
	got := mermaidOf(t, htmlRealisticRun())
	assert.Equal(t, `flowchart TD
    run_start(("start"))
    s_START_md["START.md"]
    s_SURVEY_md["SURVEY.md"]
    s_PLAN_md["PLAN.md"]
    s_WORK_md["WORK.md"]
    s_WAIT_md["WAIT.md"]
    s_REPORT_md["REPORT.md"]
    run_end(("end"))
    run_start --> s_START_md
    s_START_md ==>|"call ×1"| s_SURVEY_md
    s_SURVEY_md --o|"result ×1"| s_PLAN_md
    s_PLAN_md -.->|"fork ×3"| s_WORK_md
    s_PLAN_md -->|"fork ×1"| s_WAIT_md
    s_WAIT_md -->|"goto ×1"| s_WAIT_md
    s_WAIT_md -->|"goto ×1"| s_REPORT_md
    s_REPORT_md -->|"result ×1"| run_end
    s_WORK_md -->|"result ×3"| run_end
    s_WORK_md -->|"goto ×1"| s_WORK_md
    classDef terminal fill:#eee,stroke:#666
    classDef entry stroke-width:3px
    classDef failed fill:#fdd,stroke:#b00
    class run_start,run_end terminal
    class s_START_md entry
`, got)
	// The same run gives the same text.
	for range 5 {
		assert.Equal(t, got, mermaidOf(t, htmlRealisticRun()))
	}
}

func TestMermaidEdges(t *testing.T) {
	// A function whose result returns, a reset, a loop taken three times,
	// and an agent that fails; state names Mermaid would misread.
	odd := `a "b" #1 <x> & | ` + "`c`.md"
	r := htmlRunOf("x", []htmlStepSpec{
		{agent: "main", state: "end.md", from: 0, to: 1, outcome: "success", tag: "function", target: odd},
		{agent: "main", state: odd, from: 1, to: 2, outcome: "success", tag: "result", target: "o-x.md"},
		{agent: "main", state: "o-x.md", from: 2, to: 3, outcome: "success", tag: "reset", target: "o_x.md"},
		{agent: "main", state: "o_x.md", from: 3, to: 4, outcome: "success", tag: "goto", target: "o_x.md"},
		{agent: "main", state: "o_x.md", from: 4, to: 5, outcome: "success", tag: "goto", target: "o_x.md"},
		{agent: "main", state: "o_x.md", from: 5, to: 6, outcome: "success", tag: "goto", target: "o_x.md"},
		{agent: "main", state: "o_x.md", from: 6, to: 7, outcome: "crash"},
	}, map[string][]htmlVisitSpec{"main": {
		{steps: []int{0}}, {via: "function", depth: 1, steps: []int{1}}, {via: "result", steps: []int{2}},
		{via: "reset", steps: []int{3}}, {via: "goto", steps: []int{4}}, {via: "goto", steps: []int{5}},
		{via: "goto", steps: []int{6}},
	}})
	r.Agents[0].Status = "failed"
	got := mermaidOf(t, r)
	for _, want := range []string{
		`    s_end_md["end.md"]`,
		`    s_a__b___1__x_______c__md["a #quot;b#quot; #35;1 #lt;x#gt; #amp; #124; #96;c#96;.md"]`,
		`    s_o_x_md["o-x.md"]`,
		`    s_o_x_md_2["o_x.md"]`, // the same sanitised id, kept apart
		`    run_failed(("failed"))`,
		`    s_end_md ==>|"function ×1"| s_a__b___1__x_______c__md`,
		`    s_a__b___1__x_______c__md --o|"result ×1"| s_o_x_md`,
		`    s_o_x_md -->|"reset ×1"| s_o_x_md_2`,
		`    s_o_x_md_2 -->|"goto ×3"| s_o_x_md_2`,
		`    s_o_x_md_2 -->|"failed ×1"| run_failed`,
		`    class run_failed failed`,
		`    class s_end_md entry`,
	} {
		assert.Contains(t, got, want+"\n")
	}
	assert.NotContains(t, got, "run_end", "no agent ended with a result")
}

func TestMermaidCutShort(t *testing.T) {
	t.Run("nothing ran", func(t *testing.T) {
		got := mermaidOf(t, &Run{Entry: "START.md"})
		assert.Equal(t, "flowchart TD\n    run_start((\"start\"))\n    s_START_md[\"START.md\"]\n"+
			"    run_start --> s_START_md\n", got[:strings.Index(got, "    classDef")])
	})
	t.Run("the transcript ends inside a visit", func(t *testing.T) {
		r := htmlRunOf("cut", []htmlStepSpec{
			{agent: "main", state: "START.md", from: 0, to: 1, outcome: "success", tag: "goto", target: "WORK.md"},
			{agent: "main", state: "WORK.md", from: 1, to: -1},
		}, map[string][]htmlVisitSpec{"main": {{steps: []int{0}}, {via: "goto", steps: []int{1}}}})
		r.Agents[0].Status = "running"
		got := mermaidOf(t, r)
		assert.Contains(t, got, `    s_START_md -->|"goto ×1"| s_WORK_md`+"\n")
		assert.NotContains(t, got, "run_end")
		assert.NotContains(t, got, "run_failed")
	})
}

func TestMermaidText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"START.md", "START.md"},
		{`say "hi"`, "say #quot;hi#quot;"},
		{"#1", "#35;1"},
		{"<b>&</b>", "#lt;b#gt;#amp;#lt;/b#gt;"},
		{"a|b", "a#124;b"},
		{"`md`", "#96;md#96;"},
		{"two\nlines\tand\rmore", "two lines and more"},
		{"ünïcode ×", "ünïcode ×"},
	} {
		assert.Equal(t, tc.want, mermaidText(tc.in), tc.in)
	}
	assert.Equal(t, "a_b_c_md", mermaidID("a-b c.md"))
	assert.Equal(t, "_nicode", mermaidID("ünicode"))
}

func TestMermaidWriteError(t *testing.T) {
	err := WriteMermaid(htmlFailingWriter{}, htmlRealisticRun())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "write mermaid: disk full")
}
