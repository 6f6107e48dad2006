package diagram

import (
	"cmp"
	"slices"
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
// first workflow's start (nodes nothing reaches start new layers below),
// and in a layer in the order that crosses the fewest arrows the
// barycenter sweeps and swaps of neighbours find, each layer centred
// under the widest.
func layout(p *plan) map[string][2]int {
	return place(p, order(p, layers(p), sweeps))
}

// layers returns the nodes by layer, each layer in the workflows' order.
func layers(p *plan) [][]string {
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
	rows := make([][]string, deepest+1)
	for _, n := range p.nodes {
		rows[layer[n.id]] = append(rows[layer[n.id]], n.id)
	}
	return rows
}

// links are the arrows drawn straight down: from a node of one layer to
// a node of the next (the breadth-first layers put every other forward
// arrow there too), as pairs of ids, without duplicates.
func links(p *plan, rows [][]string) [][2]string {
	layer := make(map[string]int)
	for l, ids := range rows {
		for _, id := range ids {
			layer[id] = l
		}
	}
	var out [][2]string
	seen := make(map[[2]string]bool)
	for _, a := range p.arrows {
		k := [2]string{a.from, a.to}
		if layer[a.to] == layer[a.from]+1 && !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// order reorders each layer to cut crossings: n sweeps down (each node to
// the mean index of the nodes above it that lead to it) and up (of the
// nodes below it leads to), keeping the best order seen. A node with no
// neighbour on that side keeps its index. Swaps of neighbours finish the
// job. n = 0 keeps the workflows' order.
func order(p *plan, rows [][]string, n int) [][]string {
	ls := links(p, rows)
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

// crossings counts the pairs of straight arrows of p placed at pos that
// cross, for tests and for measuring layouts.
func crossings(p *plan, pos map[string][2]int) int {
	rows := make(map[int][]string)
	for id, xy := range pos {
		rows[xy[1]] = append(rows[xy[1]], id)
	}
	var list [][]string
	ys := make([]int, 0, len(rows))
	for y := range rows {
		ys = append(ys, y)
	}
	slices.Sort(ys)
	for _, y := range ys {
		row := rows[y]
		slices.SortFunc(row, func(a, b string) int { return cmp.Compare(pos[a][0], pos[b][0]) })
		list = append(list, row)
	}
	return countCrossings(list, links(p, list))
}

// place gives each node of rows its top-left corner: layers one below the
// other, each centred under the widest.
func place(p *plan, rows [][]string) map[string][2]int {
	widest := 0
	for _, row := range rows {
		widest = max(widest, len(row))
	}
	pos := make(map[string][2]int, len(p.nodes))
	for l, row := range rows {
		left := margin + (widest-len(row))*(boxW+gapX)/2
		for i, id := range row {
			pos[id] = [2]int{left + i*(boxW+gapX), margin + l*(boxH+gapY)}
		}
	}
	return pos
}
