package diagram

import (
	"cmp"
	"maps"
	"slices"

	"raymond/parsing"
)

// State names one state of a graph: the Dir of its lint.Workflow and the
// state's file name. The Name "" stands for the workflow's end (where a
// result leaves it).
type State struct {
	Workflow, Name string
}

// Move is one transition a run made, from one state to another.
type Move struct {
	From, To State
	// Via is the tag that made it, as a run's path names it: goto, reset,
	// call, function, fork, ask, "ask timeout", result (to the workflow's
	// end), return (from a call's or function's state to its return
	// state, once the callee's result came back) or a cross-workflow tag.
	Via string
}

// Overlay is what a run did on a graph, for SVG to draw over it: how
// often each state was entered and each move made. A move between two
// states of the graph that it has no arrow for (a target known only when
// the state ran, such as a script's) is drawn dotted; states the graph
// does not have (the workflow changed since the run) are left out.
type Overlay struct {
	Visits map[State]int
	Moves  map[Move]int
}

// marks is an Overlay resolved to a plan's node ids and arrows.
type marks struct {
	visits map[string]int // by node id
	taken  []int          // by arrow index, as p.arrows
	seen   map[string]bool
}

// resolve finds o's states and moves in p, adding an arrow for each move
// between two of its nodes that no arrow stands for.
func (p *plan) resolve(o *Overlay) *marks {
	for _, mv := range sortedMoves(o) {
		from, to, ok1, ok2 := p.ends(mv)
		if ok1 && ok2 && !slices.ContainsFunc(p.arrows, func(a arrow) bool { return a.from == from && a.to == to }) {
			p.arrows = append(p.arrows, arrow{from: from, to: to, kind: viaKind(mv.Via), label: mv.Via, runtime: true})
		}
	}
	m := &marks{visits: make(map[string]int), taken: make([]int, len(p.arrows)), seen: make(map[string]bool)}
	for s, n := range o.Visits {
		if id, ok := p.ids[s]; ok && n > 0 {
			m.visits[id] += n
			m.seen[id] = true
		}
	}
	for mv, n := range o.Moves {
		from, to, ok1, ok2 := p.ends(mv)
		if !ok1 || !ok2 || n <= 0 {
			continue
		}
		want := viaKind(mv.Via)
		pick := -1
		for i, a := range p.arrows {
			if a.from != from || a.to != to || a.from == a.to && a.back != (mv.To.Name == "") {
				continue
			}
			if pick < 0 || a.kind == want && p.arrows[pick].kind != want {
				pick = i
			}
		}
		if pick >= 0 {
			m.taken[pick] += n
			m.seen[from], m.seen[to] = true, true
		}
	}
	return m
}

// ends returns the node ids of mv's ends. A move out of the workflow from
// a state whose arrow out is the way back to its caller ends on that
// arrow, which starts and ends at the state.
func (p *plan) ends(mv Move) (from, to string, okFrom, okTo bool) {
	from, okFrom = p.ids[mv.From]
	to, okTo = p.ids[mv.To]
	if mv.To.Name != "" || !okFrom {
		return from, to, okFrom, okTo
	}
	toEnd := okTo && slices.ContainsFunc(p.arrows, func(a arrow) bool { return a.from == from && a.to == to })
	if !toEnd && slices.ContainsFunc(p.arrows, func(a arrow) bool { return a.from == from && a.back }) {
		return from, from, true, true
	}
	return from, to, okFrom, okTo
}

// sortedMoves are o's moves in a fixed order, so that the same run is
// drawn the same way each time.
func sortedMoves(o *Overlay) []Move {
	moves := slices.Collect(maps.Keys(o.Moves))
	slices.SortFunc(moves, func(a, b Move) int {
		return cmp.Or(cmp.Compare(a.From.Workflow, b.From.Workflow), cmp.Compare(a.From.Name, b.From.Name),
			cmp.Compare(a.To.Workflow, b.To.Workflow), cmp.Compare(a.To.Name, b.To.Name), cmp.Compare(a.Via, b.Via))
	})
	return moves
}

// viaKind is the kind of arrow a move via the tag via is drawn as.
func viaKind(via string) kind {
	switch via {
	case "ask timeout":
		return kindTimeout
	case "on_max_visits":
		return kindCap
	case "result":
		return kindResult
	case "return":
		return kindReturn
	case parsing.Ask:
		return kindAsk
	case parsing.Call:
		return kindCall
	case parsing.Function:
		return kindFunction
	case parsing.Reset:
		return kindReset
	case parsing.Goto:
		return kindGoto
	}
	if parsing.CrossWorkflow(via) {
		return kindWorkflow
	}
	if parsing.Forks(via) {
		return kindFork
	}
	return kindGoto
}
