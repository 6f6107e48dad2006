package analysis

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"raymond/diagram"
	"raymond/lint"
	"raymond/parsing"
	"raymond/workflow"
)

// htmlWorkflow is the workflow tab: the run's workflow drawn as
// `raymond diagram` draws it, with what the run did over it.
type htmlWorkflow struct {
	// SVG is the drawing, "" when there is none, and Legend its key
	// (their style is in the page's: diagram.Style).
	SVG    template.HTML
	Legend template.HTML
	// Note says in one sentence why there is no drawing, or what of the
	// run the drawing lacks (the workflow changed since).
	Note string
}

// buildWorkflow draws the workflow at r.ScopeDir as it is now, with r's
// visits and moves over it.
func buildWorkflow(r *Run) *htmlWorkflow {
	dir := r.ScopeDir
	if dir == "" {
		return &htmlWorkflow{Note: "The workflow is not drawn: the transcript does not say where it is."}
	}
	if _, err := os.Stat(dir); err != nil {
		return &htmlWorkflow{Note: fmt.Sprintf("The workflow is not drawn: %s is no longer there.", dir)}
	}
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	g, err := lint.BuildGraph(ss, dir)
	if err == nil && (len(g.Workflows) == 0 || len(g.Workflows[0].States) == 0) {
		err = fmt.Errorf("it has no states")
	}
	if err != nil {
		return &htmlWorkflow{Note: fmt.Sprintf("The workflow is not drawn: %s cannot be read now (%v).", dir, err)}
	}
	o, missing := overlayOf(r, g)
	w := &htmlWorkflow{
		SVG:    template.HTML(diagram.SVG(g, o)), // escaped by diagram
		Legend: template.HTML(diagram.Legend()),
	}
	if len(missing) > 0 {
		w.Note = fmt.Sprintf("The workflow has changed since the run: it no longer has %s, which the run visited.", strings.Join(missing, ", "))
	}
	return w
}

// overlayOf is what r did on g: the visits of every agent and the moves
// between them. missing are the states the run visited that g lacks.
func overlayOf(r *Run, g lint.Graph) (*diagram.Overlay, []string) {
	o := &diagram.Overlay{Visits: make(map[diagram.State]int), Moves: make(map[diagram.Move]int)}
	main := g.Workflows[0].Dir
	has := make(map[diagram.State]bool)
	for _, w := range g.Workflows {
		for _, s := range w.States {
			has[diagram.State{Workflow: w.Dir, Name: s.Name}] = true
		}
	}
	var missing []string
	// spawnedAt is where each forked agent was forked, filled as the
	// agents are walked (a parent comes before the agents it forks).
	spawnedAt := make(map[string]diagram.State)
	for _, a := range r.Agents {
		cur := main
		if at, ok := spawnedAt[a.ID]; ok {
			cur = at.Workflow
		}
		var callers []diagram.State // the states that called, innermost last
		var prev diagram.State
		for i, v := range a.Path {
			if v.Via == "result" && len(callers) > 0 {
				cur = callers[len(callers)-1].Workflow
			}
			at := resolveState(g, v.State, cur)
			cur = at.Workflow
			o.Visits[at]++
			if !has[at] && !slices.Contains(missing, v.State) {
				missing = append(missing, v.State)
			}
			switch {
			case i == 0:
				if from, ok := spawnedAt[a.ID]; ok {
					o.Moves[diagram.Move{From: from, To: at, Via: "fork"}]++
				}
			case v.Via == "result":
				o.Moves[diagram.Move{From: prev, To: diagram.State{Workflow: prev.Workflow}, Via: "result"}]++
				if n := len(callers); n > 0 {
					o.Moves[diagram.Move{From: callers[n-1], To: at, Via: "return"}]++
					callers = callers[:n-1]
				}
			default:
				o.Moves[diagram.Move{From: prev, To: at, Via: v.Via}]++
				if calls(v.Via) {
					callers = append(callers, prev)
				}
			}
			for _, id := range v.Spawned {
				spawnedAt[id] = at
			}
			if i == len(a.Path)-1 && v.Exit == "result" && v.Target == "" {
				o.Moves[diagram.Move{From: at, To: diagram.State{Workflow: at.Workflow}, Via: "result"}]++
			}
			prev = at
		}
	}
	return o, missing
}

// calls reports whether a move via tag pushes a frame that a result
// returns from.
func calls(tag string) bool {
	switch tag {
	case parsing.Call, parsing.Function:
		return true
	}
	return parsing.CrossWorkflow(tag) && (strings.HasPrefix(tag, parsing.Call) || strings.HasPrefix(tag, parsing.Function))
}

// resolveState finds the state a path names in g: "STATE.md" is a state
// of the workflow cur (a Dir of g), "scope/STATE.md" one of the workflow
// the scope names. A state g does not have keeps its name in cur.
func resolveState(g lint.Graph, name, cur string) diagram.State {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return diagram.State{Workflow: cur, Name: name}
	}
	scope, base := name[:i], name[i+1:]
	hasState := func(w lint.Workflow) bool {
		return slices.ContainsFunc(w.States, func(s lint.GraphState) bool { return s.Name == base })
	}
	clean := filepath.Clean(scope)
	for _, w := range g.Workflows {
		if (w.Dir == clean || strings.HasSuffix(w.Dir, string(filepath.Separator)+clean) || w.Name == scope) && hasState(w) {
			return diagram.State{Workflow: w.Dir, Name: base}
		}
	}
	for _, w := range g.Workflows {
		if w.Dir != cur && hasState(w) {
			return diagram.State{Workflow: w.Dir, Name: base}
		}
	}
	return diagram.State{Workflow: cur, Name: name}
}
