package diagram

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/lint"
	"raymond/workflow"
)

// everyKind is a workflow with every kind of transition, a script, an
// unreachable state and a sub-workflow.
var everyKind = map[string]string{
	"START.md": `Go on: <goto>WORK</goto>, <reset>START</reset>, <call return="AFTER">SUB</call>,
<function return="AFTER">SUB</function>, <fork next="AFTER" item="x">WORKER</fork>,
<ask next="AFTER" timeout_next="BUILD.sh">Which?</ask>, <call-workflow return="AFTER">other</call-workflow>`,
	"SUB.md":         "<result>done</result>",
	"WORKER.md":      "Work on {{item}}. <result>ok</result>",
	"WORK.md":        "<goto>AFTER</goto>",
	"AFTER.md":       "After {{result}}. <result>all</result>",
	"BUILD.sh":       "#!/bin/sh\necho '<goto>AFTER.md</goto>'\n",
	"LOST.md":        "<result>x</result>",
	"other/START.md": "<result>o</result>",
}

func graphOf(t *testing.T, files map[string]string) lint.Graph {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	ss := workflow.NewScopes(nil)
	t.Cleanup(func() { ss.Close() })
	g, err := lint.BuildGraph(ss, dir)
	require.NoError(t, err)
	return g
}

func TestMermaid(t *testing.T) {
	m := Mermaid(graphOf(t, everyKind))
	assert.True(t, strings.HasPrefix(m, "flowchart TD\n"))
	for _, want := range []string{
		`subgraph w1["other"]`,
		`w0_s1[["BUILD.sh"]]`, // a script is a subroutine box
		`w0_s3["START.md"]`,
		`w0_end(("result"))`,
		`w0_s3 -->|"goto"| w0_s5`,
		`w0_s3 ==>|"reset"| w0_s3`,
		`w0_s3 -->|"call"| w0_s4`,
		`w0_s3 -.->|"return"| w0_s0`,
		`w0_s3 -->|"function"| w0_s4`,
		`w0_s3 --o|"fork"| w0_s6`,
		`w0_s3 -.->|"next"| w0_s0`,
		`w0_s3 -->|"ask"| w0_s0`,
		`w0_s3 -.-x|"timeout"| w0_s1`,
		`w0_s3 ==>|"call-workflow"| w1_s0`,
		`w0_s2 -->|"result"| w0_end`,
		"class w0_s1 script",
		"class w0_s2 unreachable",
	} {
		assert.Contains(t, m, want)
	}
	// The same return written twice is one arrow.
	assert.Equal(t, 1, strings.Count(m, `w0_s3 -.->|"return"| w0_s0`))
	assert.Equal(t, strings.Count(m, "|")/2, strings.Count(m, "linkStyle"), "every arrow has its style")
}

// TestMermaidCapLabels labels a visit cap's fallback with its count, in the
// singular for a cap of one.
func TestMermaidCapLabels(t *testing.T) {
	m := Mermaid(graphOf(t, map[string]string{
		"START.md": "---\nmax_visits: 1\non_max_visits: { tag: goto, target: MORE.md }\n---\n<goto>START</goto>",
		"MORE.md":  "---\nmax_visits: 2\non_max_visits: { tag: result, payload: done }\n---\n<goto>START</goto>",
	}))
	assert.Contains(t, m, `w0_s1 -.->|"after 1 visit"| w0_s0`)
	assert.NotContains(t, m, "after 1 visits")
}

func TestMermaidQuotes(t *testing.T) {
	assert.Equal(t, `"a #quot;b#quot; c"`, mermaidText("a \"b\"\nc"))
	// Labels are rendered as HTML: a state's name is text, never markup.
	assert.Equal(t, `"#lt;img src=x onerror=alert(1)#gt;.md"`, mermaidText("<img src=x onerror=alert(1)>.md"))
}

var (
	states    = regexp.MustCompile(`<g class="state[ "]`)
	details   = regexp.MustCompile(`<details class="prompt"`)
	linkAttrs = regexp.MustCompile(`(?i)\b(src|href|xlink:href|action)\s*=\s*"([^"]*)"`)
)

func TestHTMLIsSelfContained(t *testing.T) {
	page := HTML(graphOf(t, everyKind), "Workflow <wf>")
	assert.NotContains(t, page, "http")
	for _, m := range linkAttrs.FindAllStringSubmatch(page, -1) {
		assert.NotContains(t, m[2], "//", "%s loads something", m[0])
	}
	assert.Len(t, states.FindAllString(page, -1), 8, "one node per state")
	assert.Len(t, details.FindAllString(page, -1), 8, "one prompt per state")
	assert.Contains(t, page, "<title>Workflow &lt;wf&gt;</title>")
	assert.Contains(t, page, "Work on {{item}}. &lt;result&gt;ok&lt;/result&gt;")
	assert.Contains(t, page, `<g class="state script"`)
	assert.Contains(t, page, `<g class="state unreachable"`)
	assert.Contains(t, page, `<g class="edge timeout">`)
}

func TestLayoutPutsTheStartOnTop(t *testing.T) {
	p := flatten(graphOf(t, everyKind))
	pos := layout(p)
	require.Len(t, pos, len(p.nodes))
	start := pos["w0_s3"]
	assert.Equal(t, margin, start[1])
	for _, id := range []string{"w0_s5", "w0_s4", "w0_s6", "w0_s0", "w1_s0"} {
		assert.Equal(t, margin+boxH+gapY, pos[id][1], "%s is one layer below START", id)
	}
	assert.Greater(t, pos["w0_s2"][1], pos["w0_end"][1], "the unreachable state comes last")
	seen := map[[2]int]string{}
	for id, xy := range pos {
		_, dup := seen[xy]
		assert.False(t, dup, "%s and %s overlap", id, seen[xy])
		seen[xy] = id
	}
}

func TestShort(t *testing.T) {
	assert.Equal(t, "abc", short("abc", 3))
	assert.Equal(t, "ab…", short("abcd", 3))
}

// TestCapResultIsDrawn: a visit cap whose fallback is a <result> is an
// arrow of its own to the workflow's end, labelled with the cap, and not
// a plain result the state's text never gives.
func TestCapResultIsDrawn(t *testing.T) {
	g := graphOf(t, map[string]string{
		"START.md": "---\nmax_visits: 3\non_max_visits: { tag: result, payload: gave up }\n---\n<goto>START</goto>",
	})
	m := Mermaid(g)
	assert.Contains(t, m, `w0_s0 -.->|"after 3 visits"| w0_end`)
	assert.NotContains(t, m, `|"result"|`, "the state's text gives no result")
	assert.Contains(t, m, `w0_end(("result"))`)
	svg := SVG(g, nil)
	assert.Contains(t, svg, `<g class="edge on_max_visits">`)
	assert.Contains(t, svg, `>after 3 visits</text>`)
}

// TestCalleeResultReturns: a called state's <result> goes back to its
// caller: drawn as a return out of the state, not as an arrow to the end
// of the run, which only the main line's result reaches. A state reached
// both ways has both.
func TestCalleeResultReturns(t *testing.T) {
	g := graphOf(t, map[string]string{
		"START.md": `<call return="AFTER">SUB</call>`,
		"SUB.md":   "---\nmax_visits: 2\non_max_visits: { tag: result, payload: tired }\n---\n<goto>CHECK</goto>",
		"CHECK.md": "<goto>SUB</goto> <result>checked</result>",
		"AFTER.md": "<goto>BOTH</goto>",
		"BOTH.md":  "<result>all</result>",
		"LATE.md":  "<call return=\"BOTH\">BOTH</call>",
	})
	m := Mermaid(g)
	// AFTER=w0_s0, BOTH=w0_s1, CHECK=w0_s2, LATE=w0_s3, START=w0_s4, SUB=w0_s5
	assert.Contains(t, m, `w0_s2 -.->|"return"| w0_s2_back(["caller"])`)
	assert.NotContains(t, m, `w0_s2 -->|"result"| w0_end`, "a callee's result does not end the run")
	assert.Contains(t, m, `w0_s5 -.->|"after 2 visits, return"| w0_s5_back(["caller"])`)
	assert.Contains(t, m, `w0_s1 -->|"result"| w0_end`, "the main line's result ends the run")
	assert.Contains(t, m, `w0_s1 -.->|"return"| w0_s1_back(["caller"])`, "BOTH is also called")

	svg := SVG(g, nil)
	// Two calls' returns, two results back to a caller, one cap's.
	assert.Equal(t, 5, strings.Count(svg, `<g class="edge return">`)+strings.Count(svg, `<g class="edge on_max_visits">`))
	// A run's result from a callee is drawn on its way back.
	o := &Overlay{Moves: map[Move]int{{From: State{g.Workflows[0].Dir, "CHECK.md"}, To: State{g.Workflows[0].Dir, ""}, Via: "result"}: 1}}
	svg = SVG(g, o)
	assert.Contains(t, svg, `<g class="edge return taken">`)
	assert.NotContains(t, svg, "runtime")
}
