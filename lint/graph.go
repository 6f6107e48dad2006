package lint

import (
	"fmt"
	"slices"
	"strings"

	"raymond/internal/spelling"
	"raymond/parsing"
	"raymond/workflow"
)

// builtins are the placeholders raymond binds itself (protocol §7) whatever
// the transition: input and result are bound by some transitions only.
var builtins = []string{"run_id", "workflow_id", "agent_id", "state", "task_folder", "ask_id", "merge_conflicts"}

// graph checks the states of si as a graph: reachability, calls that never
// return, loops without an exit and placeholders no transition binds.
func (c *checker) graph(si *scopeInfo) {
	if len(si.nodes) == 0 {
		return
	}
	anyDynamic := false
	reach := c.reach(si, si.starts, func(edge) bool { return true })
	for name := range reach {
		if n := si.nodes[name]; n != nil && n.dynamic {
			anyDynamic = true
		}
	}
	if len(si.starts) > 0 && !anyDynamic {
		for _, name := range si.names {
			if !reach[name] {
				n := si.nodes[name]
				c.add(Finding{Check: "unreachable-state", Severity: Warning, File: n.file, Line: n.line(),
					Message: fmt.Sprintf("%s is unreachable: no transition from %s leads to it", name, strings.Join(si.starts, " or ")),
					Fix:     "add a transition that leads to it, or delete it"})
			}
		}
	}
	c.calls(si)
	if len(si.starts) > 0 {
		c.loops(si, reach)
	}
	c.bindings(si)
}

// line is the line findings about the whole state name.
func (n *node) line() int {
	if n.st == nil {
		return 1
	}
	if !strings.HasSuffix(n.file, n.name) {
		return n.st.BodyLine
	}
	return 1
}

// reach returns the states reachable from starts through the edges follow
// accepts.
func (c *checker) reach(si *scopeInfo, starts []string, follow func(edge) bool) map[string]bool {
	seen := make(map[string]bool)
	queue := slices.Clone(starts)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		n := si.nodes[name]
		if n == nil {
			continue
		}
		for _, e := range n.edges {
			if follow(e) && !seen[e.to] {
				queue = append(queue, e.to)
			}
		}
	}
	return seen
}

// calls reports a call or function whose callee reaches no <result>: the
// call never returns.
func (c *checker) calls(si *scopeInfo) {
	for _, name := range si.names {
		n := si.nodes[name]
		for _, e := range n.edges {
			if e.role != "target" || e.tag != parsing.Call && e.tag != parsing.Function {
				continue
			}
			// The callee's agent goes on through everything but the
			// workers it forks.
			r := c.reach(si, []string{e.to}, func(x edge) bool { return !(parsing.Forks(x.tag) && x.role == "target") })
			ok := false
			for s := range r {
				if m := si.nodes[s]; m == nil || m.result || m.dynamic || m.broken {
					ok = true
				}
			}
			if !ok {
				c.report("call-without-result-path", Warning, e.place,
					fmt.Sprintf("<%s> %s never returns: no state it leads to emits <result>", e.tag, e.to),
					fmt.Sprintf("have %s (or a state it leads to) emit <result>…</result>", e.to))
			}
		}
	}
}

// loops reports the reachable states from which no way leads to an end: a
// <result>, leaving the scope, or a script or state whose ways are not
// known.
func (c *checker) loops(si *scopeInfo, reach map[string]bool) {
	into := make(map[string][]string)
	var ends []string
	for _, name := range si.names {
		n := si.nodes[name]
		if n.result || n.dynamic || n.broken || n.capped {
			ends = append(ends, name)
		}
		for _, e := range n.edges {
			into[e.to] = append(into[e.to], name)
		}
	}
	canEnd := make(map[string]bool)
	for len(ends) > 0 {
		name := ends[0]
		ends = ends[1:]
		if canEnd[name] {
			continue
		}
		canEnd[name] = true
		ends = append(ends, into[name]...)
	}
	for _, name := range si.names {
		if reach[name] && !canEnd[name] {
			n := si.nodes[name]
			c.add(Finding{Check: "loop-without-exit", Severity: Warning, File: n.file, Line: n.line(),
				Message: fmt.Sprintf("no way out of %s leads to a <result>: an agent that gets here loops forever", name),
				Fix:     "give one state of the loop a way out, e.g. <result>…</result> when the work is done"})
		}
	}
}

// bindings reports the placeholders of prompts that no transition into
// their state binds: a misspelt name, a fork variable no fork sets, or
// {{input}} / {{result}} where nothing gives an input.
func (c *checker) bindings(si *scopeInfo) {
	inputs := make(map[string]bool)
	vars := make(map[string][]string)
	open := make(map[string]bool) // reached from a state whose ways are unknown
	for _, s := range si.starts {
		inputs[s] = true
		vars[s] = append(vars[s], si.startVars[s]...)
	}
	for _, name := range si.names {
		n := si.nodes[name]
		if n.dynamic {
			for _, m := range si.names {
				open[m] = true
			}
		}
		for _, e := range n.edges {
			if e.input || e.role != "target" || e.tag == parsing.Reset {
				// A return gives the callee's result, an ask's next the
				// answer; a reset may carry an input the model adds.
				inputs[e.to] = true
			}
			vars[e.to] = append(vars[e.to], e.vars...)
		}
	}
	all := slices.Clone(builtins)
	all = append(all, "input", "result")
	for _, vs := range vars {
		all = append(all, vs...)
	}
	for _, name := range si.names {
		n := si.nodes[name]
		if n.st == nil || n.st.Script || open[name] {
			continue
		}
		for _, ph := range workflow.Placeholders(n.st.Body) {
			switch {
			case slices.Contains(builtins, ph), slices.Contains(vars[name], ph):
				continue
			case ph == "input" || ph == "result":
				if inputs[name] {
					continue
				}
				c.report("unbound-placeholder", Warning, c.placeholderAt(n, ph),
					fmt.Sprintf("{{%s}} in %s is never bound: no transition into it carries an input", ph, name),
					fmt.Sprintf(`give the transitions into %s input="…", or remove {{%s}}`, name, ph))
				continue
			}
			fix := "bind it with a fork variable (<fork " + ph + "=\"…\">), or remove it"
			if s := spelling.Suggest(ph, all); s != "" {
				fix = fmt.Sprintf("did you mean {{%s}}?", s)
			}
			c.report("unbound-placeholder", Warning, c.placeholderAt(n, ph),
				fmt.Sprintf("{{%s}} in %s is never bound: it is no built-in name and no fork into it sets it", ph, name),
				fix)
		}
	}
}

// placeholderAt returns the place of the first {{name}} in the prompt of n.
func (c *checker) placeholderAt(n *node, name string) place {
	for _, form := range []string{"{{" + name + "}}", "{{ " + name + " }}", name} {
		if i := strings.Index(n.st.Body, form); i >= 0 {
			return c.inBody(n, i)
		}
	}
	return place{file: n.file, line: n.line()}
}

// cycles reports cross-workflow calls and forks that lead back into a
// workflow they came from: each pass nests deeper, with no end but a
// limit.
func (c *checker) cycles() {
	next := make(map[string][]string)
	for _, l := range c.links {
		if l.tag != parsing.ResetWorkflow {
			next[l.from] = append(next[l.from], l.to)
		}
	}
	reaches := func(from, to string) bool {
		seen := map[string]bool{}
		queue := []string{from}
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			if d == to {
				return true
			}
			if seen[d] {
				continue
			}
			seen[d] = true
			queue = append(queue, next[d]...)
		}
		return false
	}
	for _, l := range c.links {
		if l.tag == parsing.ResetWorkflow || !reaches(l.to, l.from) {
			continue
		}
		c.report("workflow-cycle", Warning, l.place,
			fmt.Sprintf("<%s> leads into %s, which leads back here: each pass nests one level deeper", l.tag, l.to),
			"make sure the cycle ends (a state that returns without calling again), or use reset-workflow to move on")
	}
}
