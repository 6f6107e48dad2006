package diagram

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"raymond/lint"
)

// HTML returns g as one self-contained HTML page titled title: an inline
// SVG of the graph laid out in layers (the first workflow's starts on top,
// each state one layer below the first state that leads to it, each layer
// ordered to cross few arrows, arrows back up routed around the right
// side, labels placed where they overlap nothing), and each
// state's prompt in a <details> that a click on the state opens. The page
// loads nothing: no external URL of any kind.
func HTML(g lint.Graph, title string) string {
	p := flatten(g)
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s%s</style>\n</head>\n<body>\n<main>\n",
		html.EscapeString(title), pageStyle, Style)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(title))
	b.WriteString(Legend())
	b.WriteString(draw(p, nil, true))
	b.WriteString("<section class=\"prompts\">\n<h2>States</h2>\n")
	for _, n := range p.nodes {
		if n.end {
			continue
		}
		what := "prompt"
		if n.script {
			what = "script"
		}
		extra := ""
		if n.unreachable {
			extra = " <span class=\"note\">unreachable</span>"
		}
		tools := ""
		if n.tools != "" {
			tools = "<p class=\"note\">tools: " + html.EscapeString(n.tools) + "</p>"
		}
		fmt.Fprintf(&b, "<details class=\"prompt\" id=\"p-%s\"><summary>%s <span class=\"note\">%s, %s</span>%s</summary>%s<pre>%s</pre></details>\n",
			n.id, html.EscapeString(n.label), html.EscapeString(workflowName(p, n)), what, extra, tools, html.EscapeString(n.prompt))
	}
	b.WriteString("</section>\n</main>\n<script>" + htmlScript + "</script>\n</body>\n</html>\n")
	return b.String()
}

// kindOrder lists the edge kinds for the legend and the markers.
var kindOrder = []kind{kindGoto, kindReset, kindCall, kindFunction, kindReturn, kindFork, kindForkNext, kindAsk, kindTimeout, kindCap, kindResult, kindWorkflow}

// dashed are the kinds drawn with dashes: the ways back and the ways out
// that are not the agent's own choice.
var dashed = map[kind]bool{kindReturn: true, kindForkNext: true, kindTimeout: true, kindCap: true}

// Legend returns the key to the drawing's arrows and boxes, as an HTML
// paragraph of class "legend".
func Legend() string {
	var b strings.Builder
	b.WriteString("<p class=\"legend\">")
	for _, k := range kindOrder {
		dash := ""
		if dashed[k] {
			dash = ` stroke-dasharray="5 3"`
		}
		fmt.Fprintf(&b, `<span><svg width="28" height="10"><line x1="0" y1="5" x2="28" y2="5" stroke="%s" stroke-width="2"%s/></svg> %s</span> `, colours[k], dash, k)
	}
	b.WriteString(`<span class="box script">script</span> <span class="box unreachable">unreachable</span></p>` + "\n")
	return b.String()
}

func workflowName(p *plan, n node) string {
	for _, w := range p.workflows {
		if w.id == n.workflow {
			return w.name
		}
	}
	return ""
}

// short cuts s to n runes, with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(slices.Clone(r[:n-1])) + "…"
}

// pageStyle is the CSS of the page HTML around the drawing.
const pageStyle = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fff; }
main { padding: 16px 24px; }
h1 { font-size: 20px; margin: 0 0 8px; }
.prompts details { border: 1px solid #ddd; border-radius: 6px; margin: 6px 0; padding: 4px 8px; }
.prompts details.chosen { border-color: #1f6fb2; }
.prompts summary { cursor: pointer; font-weight: 600; }
.prompts .note { font-weight: normal; color: #777; }
.prompts pre { white-space: pre-wrap; background: #fafafa; padding: 8px; margin: 6px 0; }
`

// Style is the CSS of the drawing (SVG) and of its key (Legend): every
// rule under svg.diagram or .legend.
const Style = `
.legend span { margin-right: 10px; white-space: nowrap; }
.legend .box { border: 1px solid #555; padding: 0 6px; border-radius: 6px; }
.legend .box.script { border-radius: 0; background: #eef5ee; }
.legend .box.unreachable { border-style: dashed; color: #777; background: #eee; }
svg.diagram { display: block; max-width: none; }
svg.diagram text { font: 12px system-ui, sans-serif; fill: #222; }
svg.diagram .edge text { font-size: 11px; fill: #555; }
svg.diagram .state { cursor: pointer; }
svg.diagram .state rect.box { fill: #eef3fb; stroke: #1f6fb2; stroke-width: 1.5; }
svg.diagram .state.script rect.box { fill: #eef5ee; stroke: #2e7d32; }
svg.diagram .state .bar { stroke: #2e7d32; }
svg.diagram .state.unreachable rect.box { fill: #eee; stroke: #999; stroke-dasharray: 4 3; }
svg.diagram .state.unreachable text { fill: #777; }
svg.diagram .state.chosen rect.box { stroke-width: 3; }
svg.diagram text.wf { font-size: 10px; fill: #666; }
svg.diagram .end circle { fill: #e8f5e9; stroke: #2e7d32; stroke-width: 1.5; }
svg.diagram .visits rect { fill: #1f6fb2; stroke: #fff; stroke-width: 1; }
svg.diagram .visits text { font-size: 11px; font-weight: 600; fill: #fff; }
svg.diagram .edge.taken path { stroke-width: 2.6; }
svg.diagram .edge.taken text { fill: #222; font-weight: 600; }
svg.diagram .edge.idle { opacity: 0.3; }
svg.diagram .idle { opacity: 0.35; }
`

// htmlScript opens a state's prompt when the state is clicked (or chosen
// with Enter).
const htmlScript = `
(function () {
  var states = document.querySelectorAll("svg.diagram g.state");
  function choose(g) {
    var d = document.getElementById(g.getAttribute("data-for"));
    if (!d) { return; }
    document.querySelectorAll(".chosen").forEach(function (e) { e.classList.remove("chosen"); });
    g.classList.add("chosen");
    d.classList.add("chosen");
    d.open = true;
    d.scrollIntoView({block: "nearest"});
  }
  states.forEach(function (g) {
    g.addEventListener("click", function () { choose(g); });
    g.addEventListener("keydown", function (e) { if (e.key === "Enter") { choose(g); } });
  });
  document.documentElement.setAttribute("data-diagram-ready", String(states.length));
})();
`
