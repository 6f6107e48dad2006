package diagram

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Layout sizes, in SVG units.
const (
	boxW, boxH = 170, 40
	gapX, gapY = 40, 70
	margin     = 30
	// laneGap is the room between two back edges routed around the
	// right side, and between the nodes and the first of them.
	laneGap = 14
)

// sweeps is how many down-and-up barycenter sweeps order each layer.
const sweeps = 4

// layout places each node: layer by the breadth-first distance from the
// first workflow's start (nodes nothing reaches start new layers below; a
// workflow's result sits one layer below the last state that leads to
// it), and in a layer in the order that crosses the fewest arrows the
// barycenter sweeps and swaps of neighbours find, each layer centred
// under the widest. An arrow down more than one layer passes through a
// point of its own in each layer between, ordered like the nodes.
func layout(p *plan) map[string][2]int {
	g := arrange(p, sweeps)
	pos := make(map[string][2]int, len(p.nodes))
	for _, n := range p.nodes {
		pos[n.id] = g.pos[n.id]
	}
	return pos
}

// grid is a plan laid out: rows of node ids and of the points long
// arrows pass through (ids starting with virtualMark), and where each is.
type grid struct {
	rows  [][]string
	layer map[string]int
	// chains are the points each long arrow (by index in p.arrows)
	// passes through, top to bottom.
	chains map[int][]string
	// pos is each node's top-left corner, each point's centre.
	pos map[string][2]int
}

// virtualMark starts the id of a point a long arrow passes through.
const virtualMark = "~"

// slotW is the room a long arrow's point takes in its layer.
const slotW = 30

// arrange lays p out with n barycenter sweeps (0: the workflows' order).
func arrange(p *plan, n int) *grid {
	g := layers(p)
	g.rows = order(p, g, n)
	place(g)
	return g
}

// layers puts the nodes in layers, each layer in the workflows' order,
// and adds the points of the long arrows.
func layers(p *plan) *grid {
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
	// A result goes below every reached state that leads to it, so that
	// arrows into it point down. Nothing leaves a result.
	for _, nd := range p.nodes {
		if _, ok := layer[nd.id]; !ok || !nd.end {
			continue
		}
		for _, a := range p.arrows {
			if l, ok := layer[a.from]; ok && a.to == nd.id && a.from != nd.id {
				layer[nd.id] = max(layer[nd.id], l+1)
				deepest = max(deepest, l+1)
			}
		}
	}
	for _, nd := range p.nodes {
		if _, ok := layer[nd.id]; !ok {
			bfs(nd.id, deepest+1)
		}
	}
	g := &grid{rows: make([][]string, deepest+1), layer: layer, chains: make(map[int][]string)}
	for _, nd := range p.nodes {
		g.rows[layer[nd.id]] = append(g.rows[layer[nd.id]], nd.id)
	}
	for i, a := range p.arrows {
		for l := layer[a.from] + 1; l < layer[a.to]; l++ {
			id := fmt.Sprintf("%s%d.%d", virtualMark, i, l)
			g.rows[l] = append(g.rows[l], id)
			layer[id] = l
			g.chains[i] = append(g.chains[i], id)
		}
	}
	return g
}

// links are the arrows drawn down from one layer to the next, a long
// arrow as one link per layer it passes, as pairs of ids without
// duplicates.
func (g *grid) links(p *plan) [][2]string {
	var out [][2]string
	seen := make(map[[2]string]bool)
	add := func(k [2]string) {
		if g.layer[k[1]] == g.layer[k[0]]+1 && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for i, a := range p.arrows {
		from := a.from
		for _, v := range g.chains[i] {
			add([2]string{from, v})
			from = v
		}
		add([2]string{from, a.to})
	}
	return out
}

// order reorders each layer to cut crossings: n sweeps down (each node to
// the mean index of the nodes above it that lead to it) and up (of the
// nodes below it leads to), keeping the best order seen. A node with no
// neighbour on that side keeps its index. Swaps of neighbours finish the
// job. n = 0 keeps the workflows' order.
func order(p *plan, g *grid, n int) [][]string {
	rows := g.rows
	ls := g.links(p)
	up := make(map[string][]string)   // id → the nodes of the layer above linked to it
	down := make(map[string][]string) // id → the nodes of the layer below it links to
	for _, l := range ls {
		down[l[0]] = append(down[l[0]], l[1])
		up[l[1]] = append(up[l[1]], l[0])
	}
	best, bestN := clone(rows), countCrossings(rows, ls)
	cur := clone(rows)
	index := func(row []string) map[string]int {
		m := make(map[string]int, len(row))
		for i, id := range row {
			m[id] = i
		}
		return m
	}
	sortBy := func(row []string, near map[string][]string, at map[string]int) {
		bary := make(map[string]float64, len(row))
		for i, id := range row {
			bary[id] = float64(i)
			if ns := near[id]; len(ns) > 0 {
				sum := 0.0
				for _, o := range ns {
					sum += float64(at[o])
				}
				bary[id] = sum / float64(len(ns))
			}
		}
		slices.SortStableFunc(row, func(a, b string) int { return cmp.Compare(bary[a], bary[b]) })
	}
	for range n {
		for l := 1; l < len(cur); l++ {
			sortBy(cur[l], up, index(cur[l-1]))
		}
		for l := len(cur) - 2; l >= 0; l-- {
			sortBy(cur[l], down, index(cur[l+1]))
		}
		if c := countCrossings(cur, ls); c < bestN {
			best, bestN = clone(cur), c
		}
	}
	if n > 0 {
		transpose(best, ls, bestN)
	}
	return best
}

// transpose swaps neighbours in a layer while that cuts crossings (n of
// them now), a finish for what the sweeps leave.
func transpose(rows [][]string, ls [][2]string, n int) {
	for better := true; better && n > 0; {
		better = false
		for _, row := range rows {
			for i := 1; i < len(row); i++ {
				row[i-1], row[i] = row[i], row[i-1]
				if c := countCrossings(rows, ls); c < n {
					n, better = c, true
				} else {
					row[i-1], row[i] = row[i], row[i-1]
				}
			}
		}
	}
}

func clone(rows [][]string) [][]string {
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = slices.Clone(r)
	}
	return out
}

// countCrossings counts the pairs of links that cross: their ends are in
// opposite orders in the two layers.
func countCrossings(rows [][]string, ls [][2]string) int {
	at := make(map[string]int)
	layer := make(map[string]int)
	for l, row := range rows {
		for i, id := range row {
			at[id], layer[id] = i, l
		}
	}
	n := 0
	for i, a := range ls {
		for _, b := range ls[i+1:] {
			if layer[a[0]] == layer[b[0]] && (at[a[0]]-at[b[0]])*(at[a[1]]-at[b[1]]) < 0 {
				n++
			}
		}
	}
	return n
}

// crossings counts the pairs of links of g that cross, for tests and for
// measuring layouts.
func (g *grid) crossings(p *plan) int {
	return countCrossings(g.rows, g.links(p))
}

// place gives each node of g its top-left corner and each point its
// centre: layers one below the other, each centred under the widest.
func place(g *grid) {
	width := func(row []string) int {
		w := 0
		for _, id := range row {
			if strings.HasPrefix(id, virtualMark) {
				w += slotW
			} else {
				w += boxW + gapX
			}
		}
		return w
	}
	widest := 0
	for _, row := range g.rows {
		widest = max(widest, width(row))
	}
	g.pos = make(map[string][2]int)
	for l, row := range g.rows {
		x, y := margin+(widest-width(row))/2, margin+l*(boxH+gapY)
		for _, id := range row {
			if strings.HasPrefix(id, virtualMark) {
				g.pos[id] = [2]int{x + slotW/2, y}
				x += slotW
				continue
			}
			g.pos[id] = [2]int{x, y}
			x += boxW + gapX
		}
	}
}
