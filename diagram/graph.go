package diagram

import (
	"fmt"
	"slices"
	"strings"

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
	// back is set for the way a called state's result leaves: back to
	// its caller, wherever that is, not to the end of the run. It is
	// drawn as a short arrow out of the state (from == to).
	back bool
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
	main, called := reaches(g)
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
		// exit adds the arrows of a way out of the workflow from state s:
		// to the end, and, for a state a call reaches, back to the caller;
		// a state reached both ways gets both.
		exit := func(s State, id string, k kind, label string) {
			if called[s] {
				rk, rl := kindReturn, "return"
				if k == kindCap {
					rk, rl = kindCap, label+", return"
				}
				add(arrow{from: id, to: id, kind: rk, label: rl, back: true})
			}
			if main[s] || !called[s] {
				hasEnd = true
				add(arrow{from: id, to: end, kind: k, label: label})
			}
		}
		for _, s := range w.States {
			id := ids[State{w.Dir, s.Name}]
			st := State{w.Dir, s.Name}
			p.addNode(node{id: id, label: s.Name, workflow: pw.id, script: s.Script, unreachable: s.Unreachable, prompt: s.Prompt, tools: s.Tools})
			pw.nodes = append(pw.nodes, id)
			capResult := false
			for _, e := range s.Edges {
				k, label := edgeKind(e)
				if e.To == "" && e.ToWorkflow == "" {
					// A visit cap whose fallback is a <result>.
					capResult = true
					exit(st, id, k, label)
					continue
				}
				to := ids[State{w.Dir, e.To}]
				if e.ToWorkflow != "" {
					to = ids[State{e.ToWorkflow, e.To}]
				}
				add(arrow{from: id, to: to, kind: k, label: label})
			}
			if s.Result && !slices.ContainsFunc(s.Edges, func(e lint.GraphEdge) bool { return e.Tag == parsing.ResetWorkflow }) &&
				!(capResult && !resultInPrompt(s)) {
				exit(st, id, kindResult, "result")
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

// resultInPrompt reports whether a state's own text may end it with a
// <result>, beside a visit cap's fallback.
func resultInPrompt(s lint.GraphState) bool {
	return s.Script || strings.Contains(s.Prompt, "<"+parsing.Result)
}

// reaches returns the states the run's main line reaches from the first
// workflow's starts, and those reached from the target of a call or a
// function (or a call-workflow or function-workflow): a called state's
// <result> goes back to its caller, not to the end of the run. Neither
// walk follows a call into its callee or a fork into its workers.
func reaches(g lint.Graph) (main, called map[State]bool) {
	next := make(map[State][]State)
	var calls []State
	for _, w := range g.Workflows {
		for _, s := range w.States {
			from := State{w.Dir, s.Name}
			for _, e := range s.Edges {
				if e.To == "" && e.ToWorkflow == "" {
					continue
				}
				to := State{w.Dir, e.To}
				if e.ToWorkflow != "" {
					to = State{e.ToWorkflow, e.To}
				}
				switch {
				case e.Role == "target" && (e.Tag == parsing.Call || e.Tag == parsing.Function ||
					e.Tag == parsing.CallWorkflow || e.Tag == parsing.FunctionWorkflow):
					calls = append(calls, to)
				case e.Role == "target" && parsing.Forks(e.Tag):
				default:
					next[from] = append(next[from], to)
				}
			}
		}
	}
	walk := func(starts []State) map[State]bool {
		seen := make(map[State]bool)
		queue := slices.Clone(starts)
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			if seen[s] {
				continue
			}
			seen[s] = true
			queue = append(queue, next[s]...)
		}
		return seen
	}
	var starts []State
	if len(g.Workflows) > 0 {
		for _, s := range g.Workflows[0].Starts {
			starts = append(starts, State{g.Workflows[0].Dir, s})
		}
	}
	return walk(starts), walk(calls)
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
