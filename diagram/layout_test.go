package diagram

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/lint"
	"raymond/workflow"
)

// examples are the graphs of the workflows that ship with raymond.
func examples(t *testing.T) map[string]lint.Graph {
	t.Helper()
	dirs, err := filepath.Glob("../workflows/examples/*")
	require.NoError(t, err)
	dirs = append(dirs, "../workflows/demo")
	out := make(map[string]lint.Graph)
	for _, dir := range dirs {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			continue
		}
		ss := workflow.NewScopes(nil)
		g, err := lint.BuildGraph(ss, dir)
		ss.Close()
		require.NoError(t, err, dir)
		out[filepath.Base(dir)] = g
	}
	require.NotEmpty(t, out)
	return out
}

// busy is a workflow whose states, in the workflow's order, cross every
// arrow from the second layer to the third, with loops back up and many
// labels.
var busy = map[string]string{
	"START.md": "<goto>A</goto> <goto>B</goto> <goto>C</goto> <goto>D</goto> <ask next=\"D\">Which?</ask>",
	"A.md":     "<goto>Z</goto> <goto>Y</goto> <reset>A</reset>",
	"B.md":     "<goto>Y</goto> <goto>X</goto>",
	"C.md":     "<goto>X</goto> <call return=\"X\">W</call>",
	"D.md":     "<goto>W</goto>",
	"W.md":     "<goto>B</goto> <result>w</result>",
	"X.md":     "<result>x</result>",
	"Y.md":     "<goto>START</goto>",
	"Z.md":     "<goto>A</goto> <result>z</result>",
}

func TestLayoutCutsCrossings(t *testing.T) {
	p := flatten(graphOf(t, busy))
	before := arrange(p, 0).crossings(p)
	after := arrange(p, sweeps).crossings(p)
	t.Logf("busy: %d crossings in the workflow's order, %d after the sweeps", before, after)
	assert.Equal(t, 15, before)
	assert.Zero(t, after)
	for name, g := range examples(t) {
		p := flatten(g)
		before := arrange(p, 0).crossings(p)
		after := arrange(p, sweeps).crossings(p)
		assert.LessOrEqual(t, after, before, name)
	}
}

// labelBoxes returns the boxes of a drawing's labels and nodes.
func labelBoxes(p *plan, dr *drawing) (labels, nodes []box) {
	for _, l := range dr.labels {
		if l.text != "" {
			labels = append(labels, labelBox(l.text, l.x, l.y))
		}
	}
	for _, n := range p.nodes {
		nodes = append(nodes, box4(p, dr.pos, n.id))
	}
	return labels, nodes
}

// overlaps counts the pairs of labels that overlap and the labels that
// overlap a node.
func overlaps(labels, nodes []box) int {
	n := 0
	for i, a := range labels {
		for _, b := range labels[i+1:] {
			if a.overlap(b) > 0 {
				n++
			}
		}
		for _, b := range nodes {
			if a.overlap(b) > 0 {
				n++
			}
		}
	}
	return n
}

func TestLabelsDoNotOverlap(t *testing.T) {
	graphs := examples(t)
	graphs["busy"] = graphOf(t, busy)
	graphs["every kind"] = graphOf(t, everyKind)
	for name, g := range graphs {
		p := flatten(g)
		texts := arrowTexts(p, nil)
		dr := lay(p, texts)
		labels, nodes := labelBoxes(p, dr)
		// Each label in the middle of its arrow, as before they were placed.
		var middle []box
		for i, r := range dr.routes {
			q := along(r.all, 0.5)
			if len(r.spots) > 0 {
				q = r.spots[0]
			}
			if texts[i] != "" {
				middle = append(middle, labelBox(texts[i], q.x+4, q.y+4))
			}
		}
		if name == "busy" || name == "every kind" {
			t.Logf("%s: %d label overlaps in the middle of the arrows, %d placed", name, overlaps(middle, nodes), overlaps(labels, nodes))
		}
		assert.Zero(t, overlaps(labels, nodes), "%s: labels overlap", name)
	}
}

// hits reports whether the segment a-b goes through the inside of r
// (Liang–Barsky clipping).
func hits(a, b pt, r box) bool {
	const in = 0.5 // touching an edge is not going through
	t0, t1 := 0.0, 1.0
	dx, dy := b.x-a.x, b.y-a.y
	for _, c := range [][2]float64{{-dx, a.x - (r.x0 + in)}, {dx, (r.x1 - in) - a.x}, {-dy, a.y - (r.y0 + in)}, {dy, (r.y1 - in) - a.y}} {
		p, q := c[0], c[1]
		if p == 0 {
			if q < 0 {
				return false
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
	}
	return t0 < t1
}

// through counts the nodes the polyline line goes through, but for
// from as it leaves and to as it enters.
func through(p *plan, dr *drawing, line []pt, from, to string) int {
	n := 0
	for _, nd := range p.nodes {
		b := box4(p, dr.pos, nd.id)
		for j := 1; j < len(line); j++ {
			if nd.id == from && j == 1 || nd.id == to && j == len(line)-1 {
				continue
			}
			if hits(line[j-1], line[j], b) {
				n++
				break
			}
		}
	}
	return n
}

func TestArrowsGoAroundTheNodes(t *testing.T) {
	graphs := examples(t)
	graphs["busy"] = graphOf(t, busy)
	graphs["every kind"] = graphOf(t, everyKind)
	back, long := 0, 0
	for name, g := range graphs {
		p := flatten(g)
		dr := lay(p, make([]string, len(p.arrows)))
		straight := 0
		for i, a := range p.arrows {
			if a.from == a.to {
				continue
			}
			from, to := dr.pos[a.from][1], dr.pos[a.to][1]
			if to < from {
				back++
			}
			if to > from+boxH+gapY {
				long++
				r := dr.routes[i].all
				straight += through(p, dr, []pt{r[0], r[len(r)-1]}, a.from, a.to)
			}
			assert.Zero(t, through(p, dr, dr.routes[i].all, a.from, a.to), "%s: %s → %s goes through a node", name, a.from, a.to)
		}
		if straight > 0 {
			t.Logf("%s: straight, the arrows down more than one layer would go through %d nodes", name, straight)
		}
	}
	assert.Greater(t, back, 3, "the graphs have arrows going back up")
	assert.Greater(t, long, 3, "the graphs have arrows down more than one layer")
}

func TestAResultGoesBelowItsStates(t *testing.T) {
	p := flatten(graphOf(t, busy))
	pos := layout(p)
	for _, id := range []string{"w0_s5", "w0_s6", "w0_s8"} { // W, X, Z
		assert.Greater(t, pos["w0_end"][1], pos[id][1], "%s leads to the result", id)
	}
}

func TestSVGShowsARun(t *testing.T) {
	g := graphOf(t, everyKind)
	dir := g.Workflows[0].Dir
	o := &Overlay{
		Visits: map[State]int{{dir, "START.md"}: 1, {dir, "WORK.md"}: 3, {dir, "AFTER.md"}: 1, {dir, "GONE.md"}: 2},
		Moves: map[Move]int{
			{From: State{dir, "START.md"}, To: State{dir, "WORK.md"}, Via: "goto"}:  1,
			{From: State{dir, "WORK.md"}, To: State{dir, "AFTER.md"}, Via: "goto"}:  1,
			{From: State{dir, "START.md"}, To: State{dir, "AFTER.md"}, Via: "ask"}:  2,
			{From: State{dir, "AFTER.md"}, To: State{Workflow: dir}, Via: "result"}: 1,
			{From: State{dir, "GONE.md"}, To: State{dir, "AFTER.md"}, Via: "goto"}:  1,
			{From: State{dir, "WORK.md"}, To: State{dir, "LOST.md"}, Via: "goto"}:   2,
		},
	}
	svg := SVG(g, o)
	assert.True(t, strings.HasPrefix(svg, `<svg class="diagram run"`))
	assert.NotContains(t, svg, "http")
	assert.NotContains(t, svg, "data-for", "nothing to click in a drawing without its page")
	assert.Contains(t, svg, "<title>WORK.md: visited 3 times</title>")
	assert.Contains(t, svg, ">×3</text>")
	assert.Contains(t, svg, "<title>AFTER.md: visited once</title>")
	assert.Contains(t, svg, "<title>BUILD.sh: never visited</title>")
	assert.Contains(t, svg, `<g class="state script idle"`)
	assert.Contains(t, svg, `<g class="state unreachable"`, "LOST.md, reached by the dotted arrow")
	assert.Contains(t, svg, `<g class="end">`, "the result the run reached")
	assert.Contains(t, svg, ">ask ×2</text>", "the ask, not the goto to the same state")
	assert.Equal(t, 4, strings.Count(svg, `taken"`), "the moves the graph has")
	assert.Contains(t, svg, `<g class="edge goto taken runtime">`, "a move the graph lacks, drawn dotted")
	assert.Contains(t, svg, ">goto ×2</text>")
	assert.Contains(t, svg, `<g class="edge reset idle">`)
	assert.NotContains(t, svg, "GONE")
	plain := SVG(g, nil)
	assert.NotContains(t, plain, "idle")
	assert.NotContains(t, plain, "×")
}

func TestArrowsInALayerArcOverIt(t *testing.T) {
	graphs := examples(t)
	graphs["busy"] = graphOf(t, busy)
	arcs := 0
	for name, g := range graphs {
		p := flatten(g)
		dr := lay(p, arrowTexts(p, nil))
		for i, a := range p.arrows {
			if a.from == a.to || dr.pos[a.to][1] != dr.pos[a.from][1] {
				continue
			}
			arcs++
			// It leaves one top and enters the other (an end's circle sits
			// a little lower), over both.
			top := max(box4(p, dr.pos, a.from).y0, box4(p, dr.pos, a.to).y0)
			for _, q := range dr.routes[i].all {
				assert.LessOrEqual(t, q.y, top, "%s: %s → %s dips into its layer", name, a.from, a.to)
			}
			assert.Less(t, along(dr.routes[i].all, 0.5).y, top-10, "%s: %s → %s arcs over", name, a.from, a.to)
		}
	}
	assert.Positive(t, arcs, "some arrow stays in its layer (to a result beside it)")
}

// TestDrawingHoldsItsArrows: the drawing's viewBox holds every arrow,
// label and node it draws, so that nothing is cut off at its edges (an
// arrow that leaves the last column, a label put left of the first).
func TestDrawingHoldsItsArrows(t *testing.T) {
	graphs := examples(t)
	graphs["busy"] = graphOf(t, busy)
	graphs["every kind"] = graphOf(t, everyKind)
	graphs["wide"] = graphOf(t, wide)
	for name, g := range graphs {
		p := flatten(g)
		texts := arrowTexts(p, nil)
		dr := lay(p, texts)
		in := func(what string, x, y float64) {
			assert.True(t, x >= float64(dr.x0) && x <= float64(dr.x0+dr.w) && y >= float64(dr.y0) && y <= float64(dr.y0+dr.h),
				"%s: %s at %g,%g is outside the viewBox %d %d %d %d", name, what, x, y, dr.x0, dr.y0, dr.w, dr.h)
		}
		for i, r := range dr.routes {
			for _, q := range r.all {
				in(fmt.Sprintf("arrow %s → %s", p.arrows[i].from, p.arrows[i].to), q.x, q.y)
			}
		}
		for _, l := range dr.labels {
			if l.text != "" {
				b := labelBox(l.text, l.x, l.y)
				in("label "+l.text, b.x0, b.y0)
				in("label "+l.text, b.x1, b.y1)
			}
		}
		for _, n := range p.nodes {
			b := box4(p, dr.pos, n.id)
			in(n.id, b.x0, b.y0)
			in(n.id, b.x1, b.y1)
		}
	}
}

// wide has long arrows down from the right of a wide layer and an arc
// over the first layer, which once left the drawing.
var wide = map[string]string{
	"START.md": "<goto>A</goto> <goto>B</goto> <goto>C</goto> <goto>D</goto> <goto>E</goto> <fork next=\"A\" item=\"x\">F</fork>",
	"A.md":     "<goto>Z</goto>",
	"B.md":     "<goto>Z</goto>",
	"C.md":     "<goto>Z</goto> <goto>START</goto>",
	"D.md":     "<goto>Z</goto> <goto>START</goto>",
	"E.md":     "<goto>Z</goto> <goto>START</goto>",
	"F.md":     "<goto>G</goto> <goto>F</goto> <result>f</result>",
	"G.md":     "<goto>H</goto> <goto>START</goto> <goto>G</goto>",
	"H.md":     "<goto>Z</goto> <goto>E</goto> <goto>H</goto>",
	"Z.md":     "<goto>Z</goto> <result>z</result>",
}
