package analysis

import (
	"fmt"
	"strings"
	"time"
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
	d        time.Duration
	cost     float64
	spawned  []string
	reminded int
	retried  int
	failed   int
	canceled int
	cut      int
	// resumed counts the failures of the agent here that a resume went
	// on from.
	resumed int
	// lastNotRun is set when the last visit of the line ran no step.
	lastNotRun bool
	// lastWhy is why the last visit ran no step when it says so itself
	// (a visit cap), "" to take the agent's reason.
	lastWhy string
}

// path writes, per agent, the states it went through.
func (p *textReport) path(r *Run) {
	p.title(false, "Path")
	steps := make(map[string]*Step, len(r.Steps))
	for _, s := range r.Steps {
		steps[s.Name] = s
	}
	for _, g := range agentGroups(r) {
		p.agentPath(r, g, steps)
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
	fmt.Fprintf(&b, "%s|%d", a.Status, len(a.Failures))
	for _, v := range a.Path {
		fmt.Fprintf(&b, "|%s>%s>%s>%s>%d", v.Via, v.State, v.Exit, v.Target, len(v.Steps))
	}
	return b.String()
}

// agentPath writes one agent's path, or that of a group of agents that
// went the same way, with their visits added up.
func (p *textReport) agentPath(r *Run, group []*Agent, steps map[string]*Step) {
	a := group[0]
	var cost float64
	n := 0
	for _, g := range group {
		cost += g.CostUSD
		n += len(g.StepNames)
	}
	head := a.ID
	if len(group) > 1 {
		head = groupName(group, r.Agents)
	}
	status := a.Status
	if status == "failed" {
		status = p.red(status)
	}
	for _, l := range wrapText("  ", "      ", fmt.Sprintf("%s: %s, %s, %s", head, status, count(n, "step", "steps"), money(cost)), p.width) {
		p.line("%s", l)
	}
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
	why := notRunReason(r, a)
	show := lines
	if len(lines) > maxPathLines {
		show = lines[:maxPathLines-tailLines]
	}
	for _, l := range show {
		p.visitLine(l, len(group), why)
	}
	if len(lines) > maxPathLines {
		p.line("      … %s not shown …", count(len(lines)-len(show)-tailLines, "line", "lines"))
		for _, l := range lines[len(lines)-tailLines:] {
			p.visitLine(l, len(group), why)
		}
	}
	switch {
	case a.Status == "completed" && a.Result != nil:
		p.line("    %s", ending("result", group, func(g *Agent) string {
			if g.Result == nil {
				return ""
			}
			return *g.Result
		}))
	case a.Status == "failed":
		p.line("    %s", p.red(ending("failed", group, func(g *Agent) string { return g.Error })))
	case a.Status == "running" && r.Status == "waiting":
		p.line("    (running: waiting for the usage limit)")
	case a.Status == "running":
		p.line("    (running)")
	case a.Status == "stopped":
		p.line("    (stopped here: the run did not go on)")
	}
}

// ending is the last line of a group's path: "result: X" when every agent
// ended the same way, else "results, 3 different: X; Y; Z".
func ending(what string, group []*Agent, text func(*Agent) string) string {
	var distinct []string
	seen := make(map[string]bool)
	for _, g := range group {
		t := oneLineMore(text(g))
		if !seen[t] {
			seen[t] = true
			distinct = append(distinct, t)
		}
	}
	if len(distinct) == 1 {
		return what + ": " + distinct[0]
	}
	plural := what + "s"
	if what == "failed" {
		plural = "failed, reasons"
	}
	return fmt.Sprintf("%s, %d different: %s", plural, len(distinct), strings.Join(distinct, "; "))
}

// groupName names a group of sibling agents: "main_w1 … main_w30 (30
// agents)", with the siblings in that range that are not in the group:
// "main_w1 … main_w30 but main_w7, main_w9 (28 agents)".
func groupName(group, agents []*Agent) string {
	in := make(map[string]bool, len(group))
	for _, g := range group {
		in[g.ID] = true
	}
	first, last := group[0], group[len(group)-1]
	var others []string
	inside := false
	for _, a := range agents {
		if a == first {
			inside = true
		}
		if inside && !in[a.ID] && a.Parent == first.Parent && a.SpawnStep == first.SpawnStep {
			others = append(others, a.ID)
		}
		if a == last {
			break
		}
	}
	name := first.ID + " … " + last.ID
	if len(others) > 0 {
		name += " but " + capList(others, maxNamed)
	}
	return fmt.Sprintf("%s (%d agents)", name, len(group))
}

// notRunReason says why an agent's last visit ran no step: what the run
// did instead.
func notRunReason(r *Run, a *Agent) string {
	switch {
	case a.Status == "asking":
		if k := r.pendingAsk(a.ID); k != nil {
			return "waiting for an answer to " + k.ID
		}
		return "waiting for an answer"
	case a.Status == "running":
		return "not started yet"
	case r.Status == "budget_exceeded":
		return "budget reached"
	case r.Status == "paused":
		return "paused"
	case r.Status == "waiting":
		return "waiting for the usage limit"
	case r.Status == "failed":
		return "the run failed"
	case r.BudgetExceeded:
		return "budget reached"
	}
	return "the run stopped"
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
		// A state that loops on itself is one line; the entry of a forked
		// agent (via fork) stays a line of its own, so that a later goto
		// into the same state does not read as a second fork.
		if last != nil && last.v.State == v.State && last.v.Depth == v.Depth && (v.Via == "goto" || v.Via == "reset") &&
			(last.v.Via == "" || last.v.Via == "goto" || last.v.Via == "reset") {
			last.times++
		} else {
			last = &pathLine{v: v, first: i == 0, times: 1}
			lines = append(lines, last)
		}
		last.lastNotRun = len(v.Steps) == 0
		last.lastWhy = v.NotRun
		for _, g := range group {
			if i >= len(g.Path) {
				continue
			}
			gv := g.Path[i]
			last.steps += len(gv.Steps)
			last.d += gv.Duration
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
				switch s.Outcome {
				case "", "success":
				case "canceled":
					// Stopped by a second interrupt: it runs again on
					// resume; it did not fail.
					last.canceled++
				default:
					last.failed++
				}
				if s.CutShort {
					last.cut++
				}
				if s.AgentFailed != "" && s.Next != "" {
					last.resumed++
				}
			}
		}
	}
	return lines
}

// visitLine writes one line of a path: how the state was entered, the
// state, the number of visits when it looped, and its steps, time and cost.
// why says why a last visit that ran no step did not.
func (p *textReport) visitLine(l *pathLine, agents int, why string) {
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
	if l.canceled > 0 {
		marks = append(marks, count(l.canceled, "step canceled", "steps canceled"))
	}
	if l.failed > 0 {
		marks = append(marks, count(l.failed, "failed step", "failed steps"))
	}
	if l.retried > 0 {
		marks = append(marks, fmt.Sprintf("%d retried", l.retried))
	}
	if l.cut > 0 {
		marks = append(marks, fmt.Sprintf("%d cut short", l.cut))
	}
	switch {
	case l.resumed == 1:
		marks = append(marks, "agent failed, then resumed")
	case l.resumed > 1:
		marks = append(marks, fmt.Sprintf("%d agent failures, then resumed", l.resumed))
	}
	if l.lastWhy != "" {
		why = l.lastWhy
	}
	switch {
	case l.lastNotRun && l.times > 1:
		marks = append(marks, "the last not run: "+why)
	case l.lastNotRun:
		marks = append(marks, "not run: "+why)
	}
	if len(marks) > 0 {
		label += " (" + strings.Join(marks, ", ") + ")"
	}
	indent := "    " + strings.Repeat("  ", min(v.Depth, 8))
	stepsCol := ""
	if l.steps != l.times*agents {
		stepsCol = count(l.steps, "step", "steps")
	}
	right := fmt.Sprintf("%9s %7s %9s", stepsCol, dur(l.d), money(l.cost))
	labelW := min(p.width, maxPathWidth) - width(indent) - width(right) - 1
	if width(label) <= labelW {
		p.line("%s%s %s", indent, pad(label, labelW), right)
	} else {
		// The label takes the lines it needs; the numbers follow on
		// the last one when there is room, else on a line of their own.
		lines := wrapText(indent, indent+"    ", label, min(p.width, maxPathWidth))
		last := lines[len(lines)-1]
		if room := min(p.width, maxPathWidth) - width(last) - 1; room >= width(right) {
			lines[len(lines)-1] = last + " " + padLeft(right, room)
		} else {
			lines = append(lines, padLeft(right, min(p.width, maxPathWidth)))
		}
		for _, line := range lines {
			p.line("%s", line)
		}
	}
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
