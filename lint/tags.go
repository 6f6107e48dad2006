package lint

import (
	"errors"
	"fmt"
	"strings"

	"raymond/internal/spelling"
	"raymond/parsing"
	"raymond/workflow"
)

// tag checks one tag t written in the state n (its prompt, or a script's
// text) and records where it leads. body is set for a prompt's tag, which
// the model is told to emit as written.
func (c *checker) tag(si *scopeInfo, n *node, t parsing.Tag, pl place, body bool) {
	if body {
		for _, a := range t.Attrs {
			if templated(a.Value) {
				continue // rendered when the prompt is sent
			}
			if err := parsing.CheckAttr(t.Name, a.Key, a.Value); err != nil {
				check, fix := "invalid-attribute", "remove the attribute or fix its value"
				switch {
				case a.Key == "task" && !parsing.Forks(t.Name) && t.Name != parsing.Reset && t.Name != parsing.ResetWorkflow:
					check, fix = "unsupported-task-attribute", "remove task: only reset, fork, fork-workflow and reset-workflow take it"
				case a.Key == "task":
					check, fix = "invalid-task-value", `give task="new"`
				case a.Key == "cd":
					check, fix = "unsupported-cd-attribute", "remove cd: only reset, fork, function-workflow, fork-workflow and reset-workflow take it"
				}
				c.report(check, Error, pl, err.Error(), fix)
			}
		}
	}
	switch t.Name {
	case parsing.Result:
		n.result = true
		return
	case parsing.Call, parsing.Function, parsing.CallWorkflow, parsing.FunctionWorkflow:
		if _, ok := t.Attr("return"); !ok && body {
			c.report("missing-return", Error, pl,
				fmt.Sprintf("<%s> has no return, so the caller has nowhere to go on when the callee returns", t.Name),
				fmt.Sprintf(`add return="STATE" to the <%s>`, t.Name))
		}
	case parsing.Ask:
		if _, ok := t.Attr("next"); !ok && body {
			c.report("missing-ask-next", Error, pl, "<ask> has no next, so the answer has no state to go to",
				`add next="STATE" to the <ask>`)
		}
	}
	if templated(t.Target) {
		// The target is rendered when the prompt is sent: where it leads
		// is known only then.
		n.dynamic = true
		return
	}
	input := false
	if _, ok := t.Attr("input"); ok {
		input = true
	}
	if parsing.CrossWorkflow(t.Name) {
		if t.Name == parsing.ResetWorkflow {
			n.result = true // the agent leaves the scope for good
		}
		var vars []string
		for k := range t.Vars() {
			vars = append(vars, k)
		}
		c.crossWorkflow(si, n, t.Name, t.Target, pl, vars)
	} else if !parsing.HasPayload(t.Name) {
		var vars []string
		for k := range t.Vars() {
			vars = append(vars, k)
		}
		c.edge(si, n, edge{tag: t.Name, role: "target", to: t.Target, input: input, vars: vars, place: pl})
	}
	for _, a := range t.Attrs {
		if parsing.StateAttr(t.Name, a.Key) && !templated(a.Value) {
			at := pl
			if !body {
				// In allowed_transitions, point at the value itself.
				if p := c.at(n, a.Value); p.col > 0 {
					at = p
				}
			}
			c.edge(si, n, edge{tag: t.Name, role: a.Key, to: strings.TrimSpace(a.Value), place: at})
		}
	}
}

// edge resolves e.to in si and records the edge on n, or reports the name
// that resolves to no state.
func (c *checker) edge(si *scopeInfo, n *node, e edge) {
	file, err := si.s.Resolve(e.to)
	if err == nil {
		e.to = file
		n.edges = append(n.edges, e)
		return
	}
	check := "missing-target"
	switch {
	case e.role == "on_max_visits":
		check = "missing-on-max-visits-target"
	case e.role == "on_conflict":
		check = "missing-on-conflict-target"
	case e.role == "return":
		check = "missing-return"
	case e.tag == parsing.Ask:
		check = "missing-ask-next"
	}
	n.broken = true
	what := ""
	if e.role != "target" {
		what = fmt.Sprintf(" %s=%q", e.role, e.to)
	}
	if e.role == "on_max_visits" {
		c.report(check, Error, e.place, fmt.Sprintf("on_max_visits <%s> %s: %v", e.tag, e.to, err), fixFor(si, e.to, err))
		return
	}
	if te, ok := errors.AsType[*workflow.TargetError](err); ok && te.Kind == workflow.Ambiguous {
		check = "ambiguous-state-resolution"
	}
	fix := fixFor(si, e.to, err)
	c.report(check, Error, e.place, fmt.Sprintf("<%s>%s: %v", e.tag, what, err), fix)
}

// fixStates is how many states a fix lists at most: a fix is one line.
const fixStates = 8

// fixFor is the fix of a name that resolves to no state of si: the state
// it is probably a misspelling of, or the states there are.
func fixFor(si *scopeInfo, name string, err error) string {
	if te, ok := errors.AsType[*workflow.TargetError](err); ok {
		switch te.Kind {
		case workflow.Ambiguous:
			return "add the extension (.md or .sh) to say which state"
		case workflow.NotFound:
			if s := spelling.Suggest(name, append(si.names, stems(si.names)...)); s != "" {
				return fmt.Sprintf("did you mean %s?", s)
			} else if len(si.names) > fixStates {
				return fmt.Sprintf("name one of its %d states (%s, …)", len(si.names), strings.Join(si.names[:fixStates], ", "))
			} else if len(si.names) > 0 {
				return "name one of " + strings.Join(si.names, ", ")
			}
		}
	}
	return "name a state of this workflow"
}

// fallback records the on_max_visits of n as an edge of the graph: the
// way out of a loop its cap gives. A result fallback ends the agent (or
// returns), and a cap without a fallback fails it: either way a loop
// through n does not run for ever.
func (c *checker) fallback(si *scopeInfo, n *node) {
	p := n.st.Policy
	if p.MaxVisits == 0 {
		return
	}
	t, ok := p.Fallback()
	switch {
	case !ok:
		n.capped = true
	case t.Name == parsing.Result:
		n.result = true
		n.capResult = p.MaxVisits
	default:
		pl := c.at(n, "on_max_visits")
		if p2 := c.at(n, t.Target); p2.line >= pl.line && p2.col > 0 {
			pl = p2
		}
		if file, err := si.s.Resolve(t.Target); err == nil && file == n.name {
			// The state is over its cap when the fallback enters it again,
			// so the fallback can only ever fail the agent.
			n.capped = true
			c.report("invalid-on-max-visits", Error, pl,
				fmt.Sprintf("on_max_visits <%s> %s leads back to %s itself, which is past its cap then: the agent always fails there", t.Name, t.Target, n.name),
				"name another state (one that asks a person or gives up), or leave on_max_visits out to fail with the cap's own message")
			return
		}
		c.edge(si, n, edge{tag: t.Name, role: "on_max_visits", to: t.Target, place: pl, input: true, visits: p.MaxVisits})
	}
}

// templated reports whether s holds a {{placeholder}}, filled in when the
// prompt is rendered.
func templated(s string) bool { return len(workflow.Placeholders(s)) > 0 }

// stems returns names without their extensions.
func stems(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = strings.TrimSuffix(strings.TrimSuffix(n, ".md"), ".sh")
	}
	return out
}

// crossWorkflow resolves the specifier spec of a cross-workflow tag written
// in si, and queues the scope it leads into.
func (c *checker) crossWorkflow(si *scopeInfo, n *node, tag, spec string, pl place, vars []string) {
	to, first, err := c.ss.Workflow(si.s, spec)
	if err != nil {
		c.report("missing-workflow", Error, pl, fmt.Sprintf("<%s> %s: %v", tag, spec, err),
			"name a workflow folder, YAML or zip file relative to this workflow, optionally with /STATE")
		return
	}
	c.enter(to, first, vars...)
	c.links = append(c.links, link{tag: tag, from: si.s.Dir(), to: to.Dir(), state: n.name, target: first, place: pl})
}

// rules checks the allowed_transitions of n and records their edges.
func (c *checker) rules(si *scopeInfo, n *node) {
	p := n.st.Policy
	var tags []parsing.Tag
	for _, r := range p.Rules {
		t := parsing.Tag{Name: r.Tag, Target: r.Target, Attrs: r.Attrs}
		for _, kv := range [][2]string{{"return", r.Return}, {"next", r.Next}, {"timeout_next", r.TimeoutNext}} {
			if kv[1] != "" {
				t.Attrs = append(t.Attrs, parsing.Attr{Key: kv[0], Value: kv[1]})
			}
		}
		pl := c.at(n, "tag: "+r.Tag)
		for _, v := range []string{r.Target, r.Next, r.Return, r.TimeoutNext} {
			if v != "" {
				if p2 := c.at(n, v); p2.col > 0 {
					pl = p2
					break
				}
			}
		}
		switch {
		case r.Tag == parsing.Result:
			n.result = true
		case r.Target == "" && !parsing.HasPayload(r.Tag):
			// Any target: the model names it. Nothing to follow.
			n.dynamic = true
		}
		if r.Target != "" || parsing.HasPayload(r.Tag) {
			c.tag(si, n, t, pl, false)
		} else {
			for _, a := range t.Attrs {
				if parsing.StateAttr(t.Name, a.Key) {
					c.edge(si, n, edge{tag: t.Name, role: a.Key, to: a.Value, place: pl})
				}
			}
		}
		tags = append(tags, t)
	}
	if len(p.Rules) > 0 {
		c.forks(n, tags, func(*node, int) place { return c.at(n, "tag: fork") })
	}
	if t, ok := p.Implicit(); ok && !p.ForceImplicit {
		c.report("implicit-transition", Info, c.at(n, "allowed_transitions"),
			fmt.Sprintf("%s has one allowed transition (<%s>), taken when the answer has no tag", n.name, t.Name),
			"nothing to do; add force_implicit: true to skip reading the answer for a tag")
	}
	if len(p.Rules) > 1 {
		for _, r := range p.Rules {
			if r.Target != "" && !parsing.CrossWorkflow(r.Tag) && !strings.Contains(n.st.Body, strings.TrimSuffix(r.Target, ".md")) {
				c.report("unused-allowed-transition", Warning, c.at(n, r.Target),
					fmt.Sprintf("allowed_transitions lists <%s> %s, but the prompt never mentions %s", r.Tag, r.Target, r.Target),
					"tell the agent in the prompt when to take it, or remove the entry")
			}
		}
	}
}

// forks checks the forks among tags, written together in n: without next
// they need a goto, and with next they must agree.
func (c *checker) forks(n *node, tags []parsing.Tag, where func(*node, int) place) {
	var forks []parsing.Tag
	hasGoto, next := false, ""
	for _, t := range tags {
		switch {
		case t.Name == parsing.Goto:
			hasGoto = true
		case parsing.Forks(t.Name):
			forks = append(forks, t)
		}
	}
	if len(forks) == 0 {
		return
	}
	withNext := 0
	for _, f := range forks {
		v, ok := f.Attr("next")
		if !ok {
			continue
		}
		withNext++
		switch {
		case next == "":
			next = v
		case !parsing.SameState(next, v):
			c.report("fork-next-mismatch", Warning, where(n, f.Offset),
				fmt.Sprintf("forks name different next states (%s and %s), but a fan-out continues in one", next, v),
				"give every fork the same next")
		}
	}
	if withNext == 0 && !hasGoto {
		c.report("missing-fork-next", Error, where(n, forks[0].Offset),
			fmt.Sprintf("<%s> has no next and %s names no <goto>, so the agent that forks has nowhere to go on", forks[0].Name, n.name),
			`add next="STATE" to the fork, or a <goto> beside it`)
	}
}
