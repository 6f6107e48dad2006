package diagram

import (
	"fmt"
	"html"
	"slices"
	"strings"

	"raymond/lint"
)

// Layout sizes, in SVG units.
const (
	boxW, boxH = 170, 40
	gapX, gapY = 40, 70
	margin     = 30
)

// HTML returns g as one self-contained HTML page titled title: an inline
// SVG of the graph laid out in layers (the first workflow's starts on top,
// each state one layer below the first state that leads to it), and each
// state's prompt in a <details> that a click on the state opens. The page
// loads nothing: no external URL of any kind.
func HTML(g lint.Graph, title string) string {
	p := flatten(g)
	pos := layout(p)
	width, height := 0, 0
	for _, xy := range pos {
		width, height = max(width, xy[0]+boxW+margin), max(height, xy[1]+boxH+margin)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n",
		html.EscapeString(title), htmlStyle)
	fmt.Fprintf(&b, "<h1>%s</h1>\n", html.EscapeString(title))
	b.WriteString(legend())
	fmt.Fprintf(&b, "<svg class=\"diagram\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n<defs>\n",
		width, height, width, height)
	for _, k := range kindOrder {
		fmt.Fprintf(&b, `<marker id="arrow-%s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="%s"/></marker>`+"\n", k, colours[k])
	}
	b.WriteString("</defs>\n")
	// Arrows between the same two nodes are spread apart.
	pairs := make(map[[2]string]int)
	for _, a := range p.arrows {
		pairs[[2]string{a.from, a.to}]++
	}
	nth := make(map[[2]string]int)
	for _, a := range p.arrows {
		k := [2]string{a.from, a.to}
		spread := 2*nth[k] - (pairs[k] - 1) // -n+1 … n-1, step 2
		nth[k]++
		b.WriteString(svgArrow(a, box(p, pos, a.from), box(p, pos, a.to), spread))
	}
	multi := len(p.workflows) > 1
	for _, n := range p.nodes {
		b.WriteString(svgNode(n, pos[n.id], multi, p))
	}
	b.WriteString("</svg>\n<section class=\"prompts\">\n<h2>States</h2>\n")
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
		fmt.Fprintf(&b, "<details class=\"prompt\" id=\"p-%s\"><summary>%s <span class=\"note\">%s, %s</span>%s</summary><pre>%s</pre></details>\n",
			n.id, html.EscapeString(n.label), html.EscapeString(workflowName(p, n)), what, extra, html.EscapeString(n.prompt))
	}
	b.WriteString("</section>\n</main>\n<script>" + htmlScript + "</script>\n</body>\n</html>\n")
	return b.String()
}

// kindOrder lists the edge kinds for the legend and the markers.
var kindOrder = []kind{kindGoto, kindReset, kindCall, kindFunction, kindReturn, kindFork, kindForkNext, kindAsk, kindTimeout, kindResult, kindWorkflow}

// dashed are the kinds drawn with dashes: the ways back and the ways out
// that are not the agent's own choice.
var dashed = map[kind]bool{kindReturn: true, kindForkNext: true, kindTimeout: true}

func legend() string {
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

// layout places each node: layer by the breadth-first distance from the
// first workflow's start (nodes nothing reaches start new layers below),
// and in a layer the nodes in the workflows' order.
func layout(p *plan) map[string][2]int {
	next := make(map[string][]string)
	for _, a := range p.arrows {
		next[a.from] = append(next[a.from], a.to)
	}
	layer := make(map[string]int)
	deepest := -1
	bfs := func(start string, depth int) {
		layer[start] = depth
		queue := []string{start}
		for len(queue) > 0 {
			id := queue[0]
			queue = queue[1:]
			deepest = max(deepest, layer[id])
			for _, to := range next[id] {
				if _, ok := layer[to]; !ok {
					layer[to] = layer[id] + 1
					queue = append(queue, to)
				}
			}
		}
	}
	for _, id := range p.starts {
		if _, ok := layer[id]; !ok && id != "" {
			bfs(id, 0)
		}
	}
	for _, n := range p.nodes {
		if _, ok := layer[n.id]; !ok {
			bfs(n.id, deepest+1)
		}
	}
	rows := make(map[int][]string)
	for _, n := range p.nodes {
		rows[layer[n.id]] = append(rows[layer[n.id]], n.id)
	}
	pos := make(map[string][2]int)
	for l, ids := range rows {
		for i, id := range ids {
			pos[id] = [2]int{margin + i*(boxW+gapX), margin + l*(boxH+gapY)}
		}
	}
	return pos
}

// svgArrow draws a from a box at src to a box at dst: straight down when
// dst is below, an arc over the top in the same layer, otherwise a curve
// around the right side. spread moves it (and its label) aside from the
// other arrows between the same boxes.
func svgArrow(a arrow, src, dst rect, spread int) string {
	x1, y1 := src.x+src.w/2+spread*8, src.y+src.h
	x2, y2 := dst.x+dst.w/2+spread*8, dst.y
	var d string
	lx, ly := (x1+x2)/2, (y1+y2)/2+spread*7
	switch {
	case a.from == a.to:
		x1, y1 = src.x+src.w, src.y+src.h/3
		x2, y2 = src.x+src.w, src.y+2*src.h/3
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1+40, y1-20, x2+40, y2+20, x2, y2)
		lx, ly = x1+38, (y1+y2)/2
	case dst.y > src.y:
		d = fmt.Sprintf("M%d,%d L%d,%d", x1, y1, x2, y2)
	case dst.y == src.y:
		y1, y2 = src.y, dst.y
		top := y1 - 22 - abs(x2-x1)/12 - spread*6
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, x1, top, x2, top, x2, y2)
		lx, ly = (x1+x2)/2, top+4
	default:
		// Up or sideways: leave from the right side, come in on the right.
		x1, y1 = src.x+src.w, src.y+src.h/2
		x2, y2 = dst.x+dst.w, dst.y+dst.h/2
		bend := max(x1, x2) + 30 + (src.y-dst.y)/8
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x1, y1, bend, y1, bend, y2, x2, y2)
		lx, ly = bend-10, (y1+y2)/2+spread*7
	}
	label := a.label
	if a.kind == kindResult {
		label = "" // the circle it leads to says result
	}
	dash := ""
	if dashed[a.kind] {
		dash = ` stroke-dasharray="5 3"`
	}
	return fmt.Sprintf(`<g class="edge %s"><path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s marker-end="url(#arrow-%s)"/><text x="%d" y="%d">%s</text></g>`+"\n",
		a.kind, d, colours[a.kind], dash, a.kind, lx+4, ly, html.EscapeString(label))
}

// rect is where a node is drawn.
type rect struct{ x, y, w, h int }

// endRadius is the radius of the circle a workflow's end is drawn as.
const endRadius = 16

// box returns the rectangle of the node id placed by pos: its box, or the
// square around an end's circle.
func box(p *plan, pos map[string][2]int, id string) rect {
	xy := pos[id]
	if p.nodes[p.byID[id]].end {
		return rect{xy[0] + boxW/2 - endRadius, xy[1] + boxH/2 - endRadius, 2 * endRadius, 2 * endRadius}
	}
	return rect{xy[0], xy[1], boxW, boxH}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// svgNode draws one node at xy.
func svgNode(n node, xy [2]int, multi bool, p *plan) string {
	x, y := xy[0], xy[1]
	if n.end {
		return fmt.Sprintf(`<g class="end"><circle cx="%d" cy="%d" r="%d"/><text x="%d" y="%d" text-anchor="middle">%s</text></g>`+"\n",
			x+boxW/2, y+boxH/2, endRadius, x+boxW/2, y+boxH/2+4, html.EscapeString(n.label))
	}
	classes := []string{"state"}
	if n.script {
		classes = append(classes, "script")
	}
	if n.unreachable {
		classes = append(classes, "unreachable")
	}
	label := n.label
	var b strings.Builder
	fmt.Fprintf(&b, `<g class="%s" data-for="p-%s" tabindex="0"><title>%s</title>`, strings.Join(classes, " "), n.id, html.EscapeString(label))
	rx := 8
	if n.script {
		rx = 0
	}
	fmt.Fprintf(&b, `<rect class="box" x="%d" y="%d" width="%d" height="%d" rx="%d"/>`, x, y, boxW, boxH, rx)
	if n.script {
		fmt.Fprintf(&b, `<line class="bar" x1="%d" y1="%d" x2="%d" y2="%d"/><line class="bar" x1="%d" y1="%d" x2="%d" y2="%d"/>`,
			x+8, y, x+8, y+boxH, x+boxW-8, y, x+boxW-8, y+boxH)
	}
	ty := y + boxH/2 + 5
	if multi {
		ty = y + boxH/2
		fmt.Fprintf(&b, `<text class="wf" x="%d" y="%d" text-anchor="middle">%s</text>`, x+boxW/2, y+boxH-5, html.EscapeString(short(workflowName(p, n), 24)))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text></g>`+"\n", x+boxW/2, ty, html.EscapeString(short(label, 22)))
	return b.String()
}

// short cuts s to n runes, with an ellipsis.
func short(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(slices.Clone(r[:n-1])) + "…"
}

const htmlStyle = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #222; background: #fff; }
main { padding: 16px 24px; }
h1 { font-size: 20px; margin: 0 0 8px; }
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
.prompts details { border: 1px solid #ddd; border-radius: 6px; margin: 6px 0; padding: 4px 8px; }
.prompts details.chosen { border-color: #1f6fb2; }
.prompts summary { cursor: pointer; font-weight: 600; }
.prompts .note { font-weight: normal; color: #777; }
.prompts pre { white-space: pre-wrap; background: #fafafa; padding: 8px; margin: 6px 0; }
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
