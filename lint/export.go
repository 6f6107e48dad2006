package lint

import (
	"raymond/parsing"
	"raymond/permission"
	"raymond/workflow"
)

// Graph is the static graph of a workflow and of the workflows it reaches
// through cross-workflow tags, as Check sees it: for drawing.
type Graph struct {
	// Workflows are the workflows visited, the one the argument names
	// first.
	Workflows []Workflow
	// Findings are what Check reports for the same argument.
	Findings []Finding
}

// Workflow is one workflow (scope) of a Graph.
type Workflow struct {
	// Dir is the workflow's folder (for YAML and zip workflows, where its
	// states are found); Name is a short name for it.
	Dir, Name string
	// Starts are the states runs enter it at.
	Starts []string
	// States are its states in the order the workflow lists them.
	States []GraphState
}

// GraphState is one state of a Workflow.
type GraphState struct {
	// Name is the state's file name, e.g. "REVIEW.md".
	Name string
	// Script is set for a script state (.sh, .bat, .ps1).
	Script bool
	// Prompt is the state's prompt (a script's text), "" when it could not
	// be read.
	Prompt string
	// Tools are the state's tool limits in one line ("allow Read; deny
	// Write; mode plan", permission.Summary), "" for none.
	Tools string
	// PermissionMode is the state's own permission_mode, "" for none.
	PermissionMode string
	// Result is set when the state may emit <result> or leave its workflow
	// for good.
	Result bool
	// Dynamic is set when where the state leads is known only when it
	// runs (a templated target, a script that prints no tag as written).
	Dynamic bool
	// Unreachable is set when no transition from a start leads to it.
	Unreachable bool
	// Edges are the transitions it may take.
	Edges []GraphEdge
}

// GraphEdge is one transition of a GraphState.
type GraphEdge struct {
	// Tag is the tag that takes it: goto, reset, call, function, fork,
	// ask, or a -workflow tag.
	Tag string
	// Role is "target" for the tag's own target, the attribute that
	// names the state (return, next, timeout_next), or "on_max_visits"
	// for the transition a state's visit cap takes (Tag goto or reset, or
	// result with no To: the cap's way out of the workflow).
	Role string
	// Visits is the state's max_visits on an on_max_visits edge: it is
	// taken after that many visits.
	Visits int
	// To is the state it leads to; for a cross-workflow tag, the state of
	// workflow ToWorkflow (a Workflow's Dir) it enters at.
	To, ToWorkflow string
}

// BuildGraph walks the workflow arg names, as Check does, and returns its
// graph. A workflow that cannot be found at all is an error.
func BuildGraph(scopes *workflow.Scopes, arg string) (Graph, error) {
	c, err := walk(scopes, arg)
	if err != nil {
		return Graph{}, err
	}
	g := Graph{Findings: sortFindings(c.out)}
	for _, si := range c.order {
		w := Workflow{Dir: si.s.Dir(), Name: si.s.Name(), Starts: si.starts}
		reach := c.reach(si, si.starts, func(edge) bool { return true })
		marked := len(si.starts) > 0
		for name := range reach {
			if n := si.nodes[name]; n != nil && n.dynamic {
				marked = false
			}
		}
		for _, name := range si.names {
			n := si.nodes[name]
			gs := GraphState{Name: name, Result: n.result, Dynamic: n.dynamic, Unreachable: marked && !reach[name]}
			if n.st != nil {
				gs.Script, gs.Prompt = n.st.Script, n.st.Body
				p := n.st.Policy
				gs.Tools = permission.Summary(p.AllowedTools, p.DisallowedTools, p.PermissionMode)
				if !n.st.Script {
					gs.PermissionMode = p.PermissionMode
				}
			}
			for _, e := range n.edges {
				gs.Edges = append(gs.Edges, GraphEdge{Tag: e.tag, Role: e.role, To: e.to, Visits: e.visits})
			}
			if n.capResult > 0 {
				gs.Edges = append(gs.Edges, GraphEdge{Tag: parsing.Result, Role: "on_max_visits", Visits: n.capResult})
			}
			for _, l := range c.links {
				if l.from == w.Dir && l.state == name {
					gs.Edges = append(gs.Edges, GraphEdge{Tag: l.tag, Role: "target", To: l.target, ToWorkflow: l.to})
				}
			}
			w.States = append(w.States, gs)
		}
		g.Workflows = append(g.Workflows, w)
	}
	return g, nil
}

// CrossWorkflow reports whether e leads into another workflow.
func (e GraphEdge) CrossWorkflow() bool { return parsing.CrossWorkflow(e.Tag) }
