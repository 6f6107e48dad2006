package diagram

import (
	"fmt"
	"slices"

	"raymond/lint"
	"raymond/parsing"
)

// kind is how an edge is drawn: each transition kind has its own.
type kind string

// The edge kinds.
const (
	kindGoto     kind = "goto"
	kindReset    kind = "reset"
	kindCall     kind = "call"
	kindFunction kind = "function"
	kindReturn   kind = "return"
	kindFork     kind = "fork"
	kindForkNext kind = "fork-next"
	kindAsk      kind = "ask"
	kindTimeout  kind = "timeout"
	kindResult   kind = "result"
	kindWorkflow kind = "workflow"
	// kindCap is a state's on_max_visits: taken instead of the entry past
	// its max_visits.
	kindCap kind = "on_max_visits"
)

// node is one state (or a workflow's end) to draw.
type node struct {
	id, label, workflow string
	script, end         bool
	unreachable         bool
	prompt              string
	tools               string // the state's tool limits, "" for none
}

// arrow is one edge to draw.
type arrow struct {
	from, to string // node ids
	kind     kind
	label    string
	// runtime is set for an arrow the graph lacks but a run took (an
	// Overlay's move): a target known only when the state ran.
	runtime bool
}

// plan is a graph flattened for drawing: nodes grouped by workflow, arrows
// without duplicates.
type plan struct {
	workflows []planWorkflow
	nodes     []node
	arrows    []arrow
	byID      map[string]int
	starts    []string // the first workflow's starts
	// ids are the node ids by workflow Dir and state name, "" naming the
	// workflow's end when it has one.
	ids map[State]string
}

// planWorkflow is one workflow's name and the ids of its nodes.
type planWorkflow struct {
	id, name string
	nodes    []string
}

// flatten turns g into a plan. Node ids are w<i>_s<j> (state j of
// workflow i) and w<i>_end.
func flatten(g lint.Graph) *plan {
	ids := make(map[State]string)
	p := &plan{byID: make(map[string]int), ids: ids}
	for i, w := range g.Workflows {
		for j, s := range w.States {
			ids[State{w.Dir, s.Name}] = fmt.Sprintf("w%d_s%d", i, j)
		}
	}
	seen := make(map[arrow]bool)
	add := func(a arrow) {
		if a.from != "" && a.to != "" && !seen[a] {
			seen[a] = true
			p.arrows = append(p.arrows, a)
		}
	}
	if len(g.Workflows) > 0 {
		for _, s := range g.Workflows[0].Starts {
			p.starts = append(p.starts, ids[State{g.Workflows[0].Dir, s}])
		}
	}
	for i, w := range g.Workflows {
		pw := planWorkflow{id: fmt.Sprintf("w%d", i), name: w.Name}
		end := fmt.Sprintf("w%d_end", i)
		hasEnd := false
		for _, s := range w.States {
			id := ids[State{w.Dir, s.Name}]
			p.addNode(node{id: id, label: s.Name, workflow: pw.id, script: s.Script, unreachable: s.Unreachable, prompt: s.Prompt, tools: s.Tools})
			pw.nodes = append(pw.nodes, id)
			for _, e := range s.Edges {
				k, label := edgeKind(e)
				to := ids[State{w.Dir, e.To}]
				if e.ToWorkflow != "" {
					to = ids[State{e.ToWorkflow, e.To}]
				}
				add(arrow{from: id, to: to, kind: k, label: label})
			}
			if s.Result && !slices.ContainsFunc(s.Edges, func(e lint.GraphEdge) bool { return e.Tag == parsing.ResetWorkflow }) {
				hasEnd = true
				add(arrow{from: id, to: end, kind: kindResult, label: "result"})
			}
		}
		if hasEnd {
			p.addNode(node{id: end, label: "result", workflow: pw.id, end: true})
			ids[State{Workflow: w.Dir}] = end
			pw.nodes = append(pw.nodes, end)
		}
		p.workflows = append(p.workflows, pw)
	}
	return p
}

func (p *plan) addNode(n node) {
	p.byID[n.id] = len(p.nodes)
	p.nodes = append(p.nodes, n)
}

// edgeKind returns how e is drawn and its label.
func edgeKind(e lint.GraphEdge) (kind, string) {
	switch {
	case e.ToWorkflow != "":
		return kindWorkflow, e.Tag
	case e.Role == "on_max_visits":
		if e.Visits == 1 {
			return kindCap, "after 1 visit"
		}
		return kindCap, fmt.Sprintf("after %d visits", e.Visits)
	case e.Role == "return":
		return kindReturn, "return"
	case e.Role == "timeout_next":
		return kindTimeout, "timeout"
	case e.Tag == parsing.Ask:
		return kindAsk, "ask"
	case parsing.Forks(e.Tag) && e.Role == "next":
		return kindForkNext, "next"
	case parsing.Forks(e.Tag):
		return kindFork, e.Tag
	case e.Tag == parsing.Call:
		return kindCall, "call"
	case e.Tag == parsing.Function:
		return kindFunction, "function"
	case e.Tag == parsing.Reset:
		return kindReset, "reset"
	}
	return kindGoto, e.Tag
}
