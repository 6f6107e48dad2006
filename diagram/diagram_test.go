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
