package analysis

import (
	"fmt"
	"strings"
)

// Limits of the Path section: an agent shows at most maxPathLines visit
// lines (the first ones and the last few), and sibling agents that took
// the same path are shown once when there are at least sameAgents of them.
const (
	maxPathLines = 30
	tailLines    = 8
	sameAgents   = 3
	// maxPathWidth keeps the numbers of a visit near its state on a wide
	// terminal.
	maxPathWidth = 100
)

// pathLine is one line of an agent's path: a visit, or several visits of
// one state in a row (a loop) folded together.
type pathLine struct {
	v *Visit
	// first is set for the agent's first visit, which no tag led to.
	first    bool
	times    int
	steps    int
	ms       int64
	cost     float64
	spawned  []string
	reminded int
	retried  int
	failed   int
}

// path writes, per agent, the states it went through.
func (p *report) path(r *Run) {
	p.title(false, "Path")
	steps := make(map[string]*Step, len(r.Steps))
	for _, s := range r.Steps {
		steps[s.Name] = s
	}
	for _, g := range agentGroups(r) {
		p.agentPath(g, steps)
	}
}

// agentGroups returns the agents in tree order (each after the agent that
// forked it, in the order they appeared), siblings of the same fork with
// the same path grouped together.
func agentGroups(r *Run) [][]*Agent {
	children := make(map[string][]*Agent)
	known := make(map[string]bool, len(r.Agents))
	for _, a := range r.Agents {
		known[a.ID] = true
	}
	var roots []*Agent
	for _, a := range r.Agents {
		if a.Parent != "" && known[a.Parent] && a.Parent != a.ID {
			children[a.Parent] = append(children[a.Parent], a)
		} else {
			roots = append(roots, a)
		}
	}
	var out [][]*Agent
	seen := make(map[string]bool)
	var walk func(list []*Agent)
	walk = func(list []*Agent) {
		for i := 0; i < len(list); i++ {
			a := list[i]
			if seen[a.ID] {
				continue
			}
			group := []*Agent{a}
			if len(children[a.ID]) == 0 {
				sig := signature(a)
				for _, b := range list[i+1:] {
					if !seen[b.ID] && len(children[b.ID]) == 0 && b.SpawnStep == a.SpawnStep && signature(b) == sig {
						group = append(group, b)
					}
				}
			}
			if len(group) < sameAgents {
				group = group[:1]
			}
			for _, g := range group {
				seen[g.ID] = true
			}
			out = append(out, group)
			walk(children[a.ID])
		}
	}
	walk(roots)
	return out
}

// signature sums up an agent's path and how it ended, to find siblings
// that went the same way.
func signature(a *Agent) string {
	var b strings.Builder
	b.WriteString(a.Status)
	for _, v := range a.Path {
		fmt.Fprintf(&b, "|%s>%s>%s>%s>%d", v.Via, v.State, v.Exit, v.Target, len(v.Steps))
	}
	return b.String()
}

// agentPath writes one agent's path, or that of a group of agents that
// went the same way, with their visits added up.
func (p *report) agentPath(group []*Agent, steps map[string]*Step) {
	a := group[0]
	var cost float64
	n := 0
	for _, g := range group {
		cost += g.CostUSD
		n += len(g.StepNames)
	}
	head := a.ID
	if len(group) > 1 {
		head = fmt.Sprintf("%s … %s (%d agents)", a.ID, group[len(group)-1].ID, len(group))
	}
	status := a.Status
	if status == "failed" {
		status = p.red(status)
	}
	p.line("  %s: %s, %s, %s", head, status, count(n, "step", "steps"), money(cost))
	if a.Parent != "" {
		from := "forked by " + a.Parent
		if s := steps[a.SpawnStep]; s != nil {
			from += " at " + s.State
		}
		if len(group) > 1 {
			from = "each " + from + "; all went the same way"
		}
		p.wrapped("  ", from)
	}

	lines := foldVisits(group, steps)
	show := lines
	if len(lines) > maxPathLines {
		show = lines[:maxPathLines-tailLines]
	}
	for _, l := range show {
		p.visitLine(l, len(group))
	}
	if len(lines) > maxPathLines {
		p.line("      … %s not shown …", count(len(lines)-len(show)-tailLines, "line", "lines"))
		for _, l := range lines[len(lines)-tailLines:] {
			p.visitLine(l, len(group))
		}
	}
	switch {
	case a.Status == "completed" && a.Result != nil:
		p.line("    result: %s", oneLineMore(*a.Result))
	case a.Status == "failed":
		p.line("    %s %s", p.red("failed:"), oneLineMore(a.Error))
	case a.Status == "running":
		p.line("    (running)")
	case a.Status == "stopped":
		p.line("    (stopped here: the run did not go on)")
	}
}

// foldVisits turns the visits of a group of agents (added up, visit by
// visit) into lines, folding a state that loops on itself into one line.
func foldVisits(group []*Agent, steps map[string]*Step) []*pathLine {
	var lines []*pathLine
	for i, v := range group[0].Path {
		var last *pathLine
		if n := len(lines); n > 0 {
			last = lines[n-1]
		}
		if last != nil && last.v.State == v.State && last.v.Depth == v.Depth && (v.Via == "goto" || v.Via == "reset") {
			last.times++
		} else {
			last = &pathLine{v: v, first: i == 0, times: 1}
			lines = append(lines, last)
		}
		for _, g := range group {
			if i >= len(g.Path) {
				continue
			}
			gv := g.Path[i]
			last.steps += len(gv.Steps)
			last.ms += gv.DurationMS
			last.cost += gv.CostUSD
			last.spawned = append(last.spawned, gv.Spawned...)
			for _, name := range gv.Steps {
				s := steps[name]
				if s == nil {
					continue
				}
				if s.Reminded {
					last.reminded++
				}
				if s.Retried {
					last.retried++
				}
				if s.Outcome != "" && s.Outcome != "success" && !s.Retried {
					last.failed++
				}
			}
		}
	}
	return lines
}

// visitLine writes one line of a path: how the state was entered, the
// state, the number of visits when it looped, and its steps, time and cost.
func (p *report) visitLine(l *pathLine, agents int) {
	v := l.v
	label := v.State
	switch {
	case l.first || v.Via == "":
	case v.Via == "result":
		label = "return to " + v.State
	default:
		label = v.Via + " " + v.State
	}
	if l.times > 1 {
		label += fmt.Sprintf(" ×%d", l.times)
	}
	var marks []string
	if l.reminded > 0 {
		marks = append(marks, count(l.reminded, "reminder", "reminders"))
	}
	if l.retried > 0 {
		marks = append(marks, count(l.retried, "retry", "retries"))
	}
	if l.failed > 0 {
		marks = append(marks, count(l.failed, "failed step", "failed steps"))
	}
	if len(marks) > 0 {
		label += " (" + strings.Join(marks, ", ") + ")"
	}
	indent := "    " + strings.Repeat("  ", min(v.Depth, 8))
	stepsCol := ""
	if l.steps != l.times*agents {
		stepsCol = count(l.steps, "step", "steps")
	}
	right := fmt.Sprintf("%9s %7s %9s", stepsCol, dur(l.ms), money(l.cost))
	labelW := min(p.width, maxPathWidth) - width(indent) - width(right) - 1
	p.line("%s%s %s", indent, pad(cut(label, labelW), labelW), right)
	if len(l.spawned) > 0 {
		p.line("%s  forked %s", indent, agentList(l.spawned, p.width-width(indent)-12))
	}
}

// agentList names agents within about n columns: all of them, or the first
// and the last with their number.
func agentList(ids []string, n int) string {
	all := strings.Join(ids, ", ")
	if width(all) <= n || len(ids) < 3 {
		return cut(all, n)
	}
	return fmt.Sprintf("%d agents: %s … %s", len(ids), ids[0], ids[len(ids)-1])
}
