package diagram

import (
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"

	"raymond/lint"
)

// SVG returns g drawn as one inline <svg> element of class "diagram", as
// the page HTML shows it (Style is its CSS), without the page's clicks.
// With an Overlay it also shows a run on the graph: each state's visit
// count, each arrow taken with how often, and what the run never reached
// dimmed. It names nothing outside itself.
func SVG(g lint.Graph, o *Overlay) string {
	p := flatten(g)
	var m *marks
	if o != nil {
		m = p.resolve(o) // before the layout: it may add arrows
	}
	return draw(p, m, false)
}

// pt is a point of the drawing.
type pt struct{ x, y float64 }

// route is how one arrow is drawn: its SVG path, a polyline along all of
// it, and the part of that where its label may go (or else the spots
// where it may).
type route struct {
	d         string
	all, line []pt
	spots     []pt
}

// label is an arrow's text, placed.
type label struct {
	text string
	x, y float64
}

// box is a rectangle of the drawing, for overlap tests.
type box struct{ x0, y0, x1, y1 float64 }

func (a box) overlap(b box) float64 {
	w := math.Min(a.x1, b.x1) - math.Max(a.x0, b.x0)
	h := math.Min(a.y1, b.y1) - math.Max(a.y0, b.y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// labelBox is the room the text of a label at x, y takes (11px type).
func labelBox(text string, x, y float64) box {
	return box{x, y - 9, x + 6.2*float64(utf8.RuneCountInString(text)), y + 3}
}

// drawing is a plan laid out: node places, arrow routes and labels.
type drawing struct {
	pos    map[string][2]int
	routes []route
	labels []label
	// x0, y0, w, h are the viewBox: every arrow, label and node drawn
	// lies within it.
	x0, y0, w, h int
}

// lay out p: place the nodes, route the arrows (back arrows each in its
// own lane right of the nodes) and place the labels where they overlap
// no node and no other label, if they can.
func lay(p *plan, texts []string) *drawing {
	g := arrange(p, sweeps)
	dr := &drawing{pos: g.pos}
	right := 0
	for _, n := range p.nodes {
		xy := dr.pos[n.id]
		right = max(right, xy[0]+boxW)
		dr.h = max(dr.h, xy[1]+boxH+margin)
	}
	pairs := make(map[[2]string]int)
	for _, a := range p.arrows {
		pairs[[2]string{a.from, a.to}]++
	}
	nth := make(map[[2]string]int)
	lane := 0
	for i, a := range p.arrows {
		k := [2]string{a.from, a.to}
		spread := 2*nth[k] - (pairs[k] - 1) // -n+1 … n-1, step 2
		nth[k]++
		src, dst := box4(p, dr.pos, a.from), box4(p, dr.pos, a.to)
		// Layers by the nodes' tops: an end's circle sits lower in its box.
		switch up, down := dr.pos[a.to][1] < dr.pos[a.from][1], dr.pos[a.to][1] > dr.pos[a.from][1]; {
		case a.back:
			dr.routes = append(dr.routes, backOutRoute(src))
		case a.from == a.to:
			dr.routes = append(dr.routes, loopRoute(src))
		case up:
			lane++
			dr.routes = append(dr.routes, backRoute(src, dst, float64(right+lane*laneGap), lane))
		case down:
			var via []pt
			for _, v := range g.chains[i] {
				xy := g.pos[v]
				via = append(via, pt{float64(xy[0]), float64(xy[1])}, pt{float64(xy[0]), float64(xy[1] + boxH)})
			}
			dr.routes = append(dr.routes, downRoute(src, dst, spread, via))
		default:
			dr.routes = append(dr.routes, sideRoute(src, dst, spread))
		}
	}
	dr.w = right + lane*laneGap + margin
	var taken []box
	for _, n := range p.nodes {
		b := box4(p, dr.pos, n.id)
		taken = append(taken, box{b.x0 - 2, b.y0 - 12, b.x1 + 2, b.y1 + 2}) // the visit badge sits on top
	}
	for i, r := range dr.routes {
		spots := r.spots
		for _, f := range fractions {
			if len(r.line) > 0 {
				spots = append(spots, along(r.line, f))
			}
		}
		l := placeLabel(texts[i], spots, taken)
		dr.labels = append(dr.labels, l)
		if l.text != "" {
			taken = append(taken, labelBox(l.text, l.x, l.y))
		}
	}
	dr.fit(taken)
	return dr
}

// fit sizes the viewBox to hold everything drawn, with room around it:
// the nodes and labels (taken), and every arrow, which may leave the last
// column (a long arrow's points, a loop, a lane) or rise above the first
// (an arc within a layer). An arrowhead reaches past an arrow's end.
func (dr *drawing) fit(taken []box) {
	const pad = 8.0
	x0, y0, x1, y1 := 0.0, 0.0, float64(dr.w), float64(dr.h)
	grow := func(b box) {
		x0, y0 = math.Min(x0, b.x0-pad), math.Min(y0, b.y0-pad)
		x1, y1 = math.Max(x1, b.x1+pad), math.Max(y1, b.y1+pad)
	}
	for _, b := range taken {
		grow(b)
	}
	for _, r := range dr.routes {
		for _, q := range r.all {
			grow(box{q.x - 6, q.y - 6, q.x + 6, q.y + 6})
		}
	}
	dr.x0, dr.y0 = int(math.Floor(x0)), int(math.Floor(y0))
	dr.w, dr.h = int(math.Ceil(x1))-dr.x0, int(math.Ceil(y1))-dr.y0
}

// fractions are where along its arrow a label is tried, in order.
var fractions = []float64{0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.12, 0.88}

// placeLabel puts text beside the first of spots, right of it or else
// left, where it overlaps nothing in taken, else where it overlaps least.
func placeLabel(text string, spots []pt, taken []box) label {
	if text == "" || len(spots) == 0 {
		return label{}
	}
	w := labelBox(text, 0, 0).x1
	best, bestArea := label{}, math.Inf(1)
	for _, q := range spots {
		for _, l := range []label{{text, q.x + 4, q.y + 4}, {text, q.x - 4 - w, q.y + 4}} {
			lb := labelBox(text, l.x, l.y)
			area := 0.0
			for _, b := range taken {
				area += lb.overlap(b)
			}
			if area < bestArea {
				best, bestArea = l, area
			}
			if area == 0 {
				return best
			}
		}
	}
	return best
}

// along returns the point at fraction f of the polyline's length.
func along(line []pt, f float64) pt {
	total := 0.0
	for i := 1; i < len(line); i++ {
		total += math.Hypot(line[i].x-line[i-1].x, line[i].y-line[i-1].y)
	}
	want := f * total
	for i := 1; i < len(line); i++ {
		seg := math.Hypot(line[i].x-line[i-1].x, line[i].y-line[i-1].y)
		if seg > 0 && want <= seg {
			t := want / seg
			return pt{line[i-1].x + t*(line[i].x-line[i-1].x), line[i-1].y + t*(line[i].y-line[i-1].y)}
		}
		want -= seg
	}
	return line[len(line)-1]
}

// cubic returns the path of a cubic Bézier and points along it.
func cubic(a, b, c, d pt) route {
	var line []pt
	for i := range 13 {
		t := float64(i) / 12
		u := 1 - t
		line = append(line, pt{
			u*u*u*a.x + 3*u*u*t*b.x + 3*u*t*t*c.x + t*t*t*d.x,
			u*u*u*a.y + 3*u*u*t*b.y + 3*u*t*t*c.y + t*t*t*d.y,
		})
	}
	return route{d: fmt.Sprintf("M%g,%g C%g,%g %g,%g %g,%g", a.x, a.y, b.x, b.y, c.x, c.y, d.x, d.y), all: line, line: line}
}

// loopRoute routes an arrow from a state back into itself: a loop on its
// right.
func loopRoute(src box) route {
	p1, p2 := pt{src.x1, src.y0 + (src.y1-src.y0)/3}, pt{src.x1, src.y0 + 2*(src.y1-src.y0)/3}
	r := cubic(p1, pt{p1.x + 40, p1.y - 20}, pt{p2.x + 40, p2.y + 20}, p2)
	r.line = nil
	r.spots = []pt{{p1.x + 34, (p1.y + p2.y) / 2}, {p1.x - 30, src.y0 - 6}, {p1.x - 30, src.y1 + 14}, {p1.x + 34, src.y0 - 10}}
	return r
}

// backOutRoute routes the way a called state's result goes back to its
// caller: a short arrow out of the state's lower left corner, into the
// gap below it, ending in no node.
func backOutRoute(src box) route {
	a := pt{src.x0 + 14, src.y1}
	d := pt{src.x0 - 6, src.y1 + 26}
	r := cubic(a, pt{a.x, a.y + 14}, pt{d.x + 10, d.y}, d)
	r.line = nil
	r.spots = []pt{{d.x - 2, d.y + 6}, {d.x + 4, d.y + 14}, {src.x0 - 10, src.y1 + 10}}
	return r
}

// downRoute routes an arrow to a lower layer: straight down, or through
// the points via it passes in the layers between. spread moves it aside
// from the other arrows between the same nodes.
func downRoute(src, dst box, spread int, via []pt) route {
	s := float64(spread)
	p1 := pt{(src.x0+src.x1)/2 + s*8, src.y1}
	p2 := pt{(dst.x0+dst.x1)/2 + s*8, dst.y0}
	if len(via) == 0 {
		return route{d: fmt.Sprintf("M%g,%g L%g,%g", p1.x, p1.y, p2.x, p2.y), all: []pt{p1, p2}, line: []pt{p1, p2}}
	}
	pts := append(append([]pt{p1}, via...), p2)
	return route{d: rounded(pts, 12), all: pts, line: pts}
}

// sideRoute routes an arrow within a layer: an arc over the top, the
// higher the longer.
func sideRoute(src, dst box, spread int) route {
	s := float64(spread)
	p1 := pt{(src.x0+src.x1)/2 + s*8, src.y0}
	p2 := pt{(dst.x0+dst.x1)/2 + s*8, dst.y0}
	top := min(p1.y, p2.y) - 22 - math.Abs(p2.x-p1.x)/12 - s*6
	return cubic(p1, pt{p1.x, top}, pt{p2.x, top}, p2)
}

// backRoute routes an arrow up to an earlier layer around the right side
// of every node: down out of src into the gap below it, right to its
// lane at x, up to the gap above dst, left and down into dst. lane
// staggers the arrows' ends and their runs through the gaps.
func backRoute(src, dst box, x float64, lane int) route {
	off := float64(lane%4) * 5
	x1 := math.Max(src.x0+4, src.x0+(src.x1-src.x0)*3/4-off)
	x2 := math.Max(dst.x0+4, dst.x0+(dst.x1-dst.x0)*3/4-off)
	below := src.y1 + 12 + off
	above := dst.y0 - 12 - off
	pts := []pt{{x1, src.y1}, {x1, below}, {x, below}, {x, above}, {x2, above}, {x2, dst.y0}}
	return route{d: rounded(pts, 6), all: pts, line: pts[2:4]}
}

// rounded is the path through pts (turning at right angles) with each
// corner rounded to radius r.
func rounded(pts []pt, r float64) string {
	var b strings.Builder
	fmt.Fprintf(&b, "M%g,%g", pts[0].x, pts[0].y)
	for i := 1; i < len(pts)-1; i++ {
		prev, c, next := pts[i-1], pts[i], pts[i+1]
		in := math.Min(r, math.Hypot(c.x-prev.x, c.y-prev.y)/2)
		out := math.Min(r, math.Hypot(next.x-c.x, next.y-c.y)/2)
		a := toward(c, prev, in)
		z := toward(c, next, out)
		fmt.Fprintf(&b, " L%g,%g Q%g,%g %g,%g", a.x, a.y, c.x, c.y, z.x, z.y)
	}
	last := pts[len(pts)-1]
	fmt.Fprintf(&b, " L%g,%g", last.x, last.y)
	return b.String()
}

// toward is the point d from a on the way to b.
func toward(a, b pt, d float64) pt {
	l := math.Hypot(b.x-a.x, b.y-a.y)
	if l == 0 {
		return a
	}
	return pt{a.x + (b.x-a.x)*d/l, a.y + (b.y-a.y)*d/l}
}

// endRadius is the radius of the circle a workflow's end is drawn as.
const endRadius = 16

// box4 returns the rectangle of the node id placed by pos: its box, or
// the square around an end's circle.
func box4(p *plan, pos map[string][2]int, id string) box {
	x, y := float64(pos[id][0]), float64(pos[id][1])
	if p.nodes[p.byID[id]].end {
		cx, cy := x+boxW/2, y+boxH/2
		return box{cx - endRadius, cy - endRadius, cx + endRadius, cy + endRadius}
	}
	return box{x, y, x + boxW, y + boxH}
}

// draw returns p as an <svg>, with m's run over it when m is not nil.
// clickable states carry what the page's script needs to open their
// prompts.
func draw(p *plan, m *marks, clickable bool) string {
	dr := lay(p, arrowTexts(p, m))
	var b strings.Builder
	class := "diagram"
	if m != nil {
		class += " run"
	}
	fmt.Fprintf(&b, "<svg class=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"%d %d %d %d\" role=\"img\">\n<defs>\n",
		class, dr.w, dr.h, dr.x0, dr.y0, dr.w, dr.h)
	for _, k := range kindOrder {
		fmt.Fprintf(&b, `<marker id="arrow-%s" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse" markerWidth="11" markerHeight="11" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="%s"/></marker>`+"\n", k, colours[k])
	}
	b.WriteString("</defs>\n")
	for i, a := range p.arrows {
		classes := "edge " + string(a.kind)
		if m != nil && m.taken[i] > 0 {
			classes += " taken"
		} else if m != nil {
			classes += " idle"
		}
		dash := ""
		if dashed[a.kind] {
			dash = ` stroke-dasharray="5 3"`
		}
		if a.runtime {
			classes += " runtime"
			dash = ` stroke-dasharray="2 3"`
		}
		l := dr.labels[i]
		fmt.Fprintf(&b, `<g class="%s"><path d="%s" fill="none" stroke="%s" stroke-width="1.6"%s marker-end="url(#arrow-%s)"/>`,
			classes, dr.routes[i].d, colours[a.kind], dash, a.kind)
		if l.text != "" {
			fmt.Fprintf(&b, `<text x="%g" y="%g">%s</text>`, l.x, l.y, html.EscapeString(l.text))
		}
		b.WriteString("</g>\n")
	}
	multi := len(p.workflows) > 1
	for _, n := range p.nodes {
		b.WriteString(svgNode(n, dr.pos[n.id], multi, p, m, clickable))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// arrowTexts are the labels of p's arrows, with how often m took them
// when m is not nil.
func arrowTexts(p *plan, m *marks) []string {
	texts := make([]string, len(p.arrows))
	for i, a := range p.arrows {
		if a.kind != kindResult { // the circle it leads to says result
			texts[i] = a.label
		}
		if m != nil && m.taken[i] > 0 {
			texts[i] = strings.TrimSpace(fmt.Sprintf("%s ×%d", texts[i], m.taken[i]))
		}
	}
	return texts
}

// svgNode draws one node at xy, with its visits when m is not nil.
func svgNode(n node, xy [2]int, multi bool, p *plan, m *marks, clickable bool) string {
	x, y := xy[0], xy[1]
	idle := ""
	if m != nil && !m.seen[n.id] {
		idle = " idle"
	}
	if n.end {
		return fmt.Sprintf(`<g class="end%s"><circle cx="%d" cy="%d" r="%d"/><text x="%d" y="%d" text-anchor="middle">%s</text></g>`+"\n",
			idle, x+boxW/2, y+boxH/2, endRadius, x+boxW/2, y+boxH/2+4, html.EscapeString(n.label))
	}
	classes := []string{"state"}
	if n.script {
		classes = append(classes, "script")
	}
	if n.unreachable {
		classes = append(classes, "unreachable")
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<g class="%s%s"`, strings.Join(classes, " "), idle)
	if clickable {
		fmt.Fprintf(&b, ` data-for="p-%s" tabindex="0"`, n.id)
	}
	title := n.label
	if m != nil {
		title += fmt.Sprintf(": %s", visits(m.visits[n.id]))
	}
	fmt.Fprintf(&b, `><title>%s</title>`, html.EscapeString(title))
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
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">%s</text>`, x+boxW/2, ty, html.EscapeString(short(n.label, 22)))
	if m != nil && m.visits[n.id] > 0 {
		text := fmt.Sprintf("×%d", m.visits[n.id])
		w := 10 + 7*utf8.RuneCountInString(text)
		fmt.Fprintf(&b, `<g class="visits"><rect x="%d" y="%d" width="%d" height="16" rx="8"/><text x="%d" y="%d" text-anchor="middle">%s</text></g>`,
			x+boxW-w+6, y-9, w, x+boxW-w/2+6, y+3, text)
	}
	b.WriteString("</g>\n")
	return b.String()
}

// visits says how many visits n is.
func visits(n int) string {
	switch n {
	case 0:
		return "never visited"
	case 1:
		return "visited once"
	}
	return fmt.Sprintf("visited %d times", n)
}
