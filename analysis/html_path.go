package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Limits that keep the path section readable for wide runs.
const (
	htmlOpenAgents   = 12  // agent blocks shown open
	htmlSpawnedShown = 24  // children listed at a fork before "and N more"
	htmlMembersOpen  = 24  // a group lists its agents open up to this many
	htmlResultClip   = 400 // runes of a result payload shown in the path
)

// htmlAgent is one block of the path section: one agent's path, or that
// of a group of sibling agents that went the same way (as the text report
// groups them).
type htmlAgent struct {
	// ID is the agent's id, or the group's name ("main_w1 … main_w50 but
	// main_w7 (49 agents)"); Anchor the first agent's anchor.
	ID, Anchor          string
	Status, StatusClass string
	Open                bool
	Parent              *htmlAgentRef
	SpawnStep           *htmlStepRef
	Cost                string
	Steps               int
	// Time says how long the agent ran steps, and how long it lived.
	Time string
	// Members are a group's agents, each with its anchor; MembersOpen
	// shows their list open.
	Members     []htmlAgentRef
	MembersOpen bool
	Result      string // when no visit shows it
	Error       string
	// Failures say where the agent failed and went on after a resume.
	Failures []string
	Visits   []htmlVisit
}

// htmlAgentRef links to an agent's path.
type htmlAgentRef struct{ ID, Anchor string }

// htmlVisit is one stay in a state, indented by the stack depth.
type htmlVisit struct {
	Depth      int
	Via, State string
	// Steps are the visit's steps; a group's visit counts them in
	// StepCount instead.
	Steps       []htmlStepRef
	StepCount   string
	Cost        string
	Duration    string
	Exit        string
	Note        string // the agent failed here, then was resumed
	Spawned     []htmlAgentRef
	SpawnedMore int
	Result      string
}

func htmlAgents(r *Run, steps map[string]*Step, anchors map[string]string) []*htmlAgent {
	groups := agentGroups(r)
	out := make([]*htmlAgent, 0, len(groups))
	for _, g := range groups {
		out = append(out, htmlAgentOf(r, g, steps, anchors))
	}
	htmlOpen(r, groups, out, steps)
	return out
}

// htmlAgentOf is the block of a group of agents (often of one).
func htmlAgentOf(r *Run, group []*Agent, steps map[string]*Step, anchors map[string]string) *htmlAgent {
	a := group[0]
	ha := &htmlAgent{
		ID: a.ID, Anchor: anchors[htmlAgentKey(a.ID)],
		Status: a.Status, StatusClass: htmlStatusClass(a.Status),
	}
	var cost float64
	var inSteps time.Duration
	for _, g := range group {
		cost += g.CostUSD
		ha.Steps += len(g.StepNames)
		for _, v := range g.Path {
			inSteps += v.Duration
		}
		for _, f := range g.Failures {
			if f.ResumedAs == "" {
				continue
			}
			who := "The agent"
			if len(group) > 1 {
				who = g.ID
			}
			ha.Failures = append(ha.Failures, fmt.Sprintf("%s failed at %s: %s; the run was resumed and it went on as %s.",
				who, f.State, failureReason(f), f.ResumedAs))
		}
	}
	if n := len(ha.Failures); n > maxNamed+1 {
		ha.Failures = append(ha.Failures[:maxNamed], fmt.Sprintf("And %s that a resume went on from.",
			htmlPlural(n-maxNamed, "more failure", "more failures")))
	}
	ha.Cost = htmlMoney(cost)
	ha.Time = htmlDuration(millis(inSteps)) + " in steps"
	if len(group) == 1 && !a.Started.IsZero() && !a.Ended.IsZero() {
		from := "start"
		if a.Parent != "" {
			from = "fork"
		}
		ha.Time += fmt.Sprintf(", %s from %s to end", htmlDuration(a.Ended.Sub(a.Started).Milliseconds()), from)
	}
	if a.Parent != "" {
		ha.Parent = &htmlAgentRef{ID: a.Parent, Anchor: anchors[htmlAgentKey(a.Parent)]}
	}
	if a.SpawnStep != "" {
		ref := htmlRef(a.SpawnStep, steps[a.SpawnStep], anchors)
		ha.SpawnStep = &ref
	}
	notRun := notRunReason(r, a)
	if len(group) > 1 {
		ha.ID = groupName(group, r.Agents)
		for _, g := range group {
			ha.Members = append(ha.Members, htmlAgentRef{ID: g.ID, Anchor: anchors[htmlAgentKey(g.ID)]})
		}
		ha.MembersOpen = len(group) <= htmlMembersOpen
		for i, v := range a.Path {
			ha.Visits = append(ha.Visits, htmlGroupVisit(group, i, v, notRun))
		}
		switch {
		case a.Status == "completed" && a.Result != nil:
			ha.Result = htmlClip(htmlEnding(group, func(g *Agent) string { return deref(g.Result) }), htmlResultClip)
		case a.Status == "failed":
			ha.Error = htmlEnding(group, func(g *Agent) string { return g.Error })
		}
		return ha
	}
	ha.Error = a.Error
	shown := false
	for _, v := range a.Path {
		ha.Visits = append(ha.Visits, htmlVisitOf(v, steps, anchors, notRun))
		shown = shown || v.Result != nil
	}
	if a.Result != nil && !shown {
		ha.Result = htmlClip(*a.Result, htmlResultClip)
	}
	return ha
}

// htmlOpen opens the first htmlOpenAgents blocks, those with a problem
// (a failed agent or step, a refused answer) or a step of the critical
// path first.
func htmlOpen(r *Run, groups [][]*Agent, blocks []*htmlAgent, steps map[string]*Step) {
	critical := make(map[string]bool, len(r.CriticalPath))
	for _, name := range r.CriticalPath {
		critical[name] = true
	}
	telling := func(group []*Agent) bool {
		for _, a := range group {
			if a.Status == "failed" || len(a.Failures) > 0 {
				return true
			}
			for _, name := range a.StepNames {
				if s := steps[name]; critical[name] || s != nil && htmlProblem(s) {
					return true
				}
			}
		}
		return false
	}
	open := 0
	for i, g := range groups {
		if open < htmlOpenAgents && telling(g) {
			blocks[i].Open = true
			open++
		}
	}
	for _, b := range blocks {
		if open < htmlOpenAgents && !b.Open {
			b.Open = true
			open++
		}
	}
}

// htmlGroupVisit is the i-th visit of a group's agents, v the first
// agent's: their steps counted and their numbers added up.
func htmlGroupVisit(group []*Agent, i int, v *Visit, notRun string) htmlVisit {
	hv := htmlVisit{Depth: v.Depth, Via: v.Via, State: v.State}
	if hv.Via == "" {
		hv.Via = "entry"
	}
	n, resumed := 0, 0
	var cost float64
	var d time.Duration
	for _, g := range group {
		if i >= len(g.Path) {
			continue
		}
		gv := g.Path[i]
		n += len(gv.Steps)
		cost += gv.CostUSD
		d += gv.Duration
	}
	for _, g := range group {
		for _, f := range g.Failures {
			if f.ResumedAs != "" && i < len(g.Path) && slices.Contains(g.Path[i].Steps, f.Step) {
				resumed++
			}
		}
	}
	hv.StepCount = htmlPlural(n, "step", "steps") + " · " + htmlDuration(millis(d))
	hv.Cost = htmlMoney(cost)
	if resumed > 0 {
		hv.Note = htmlPlural(resumed, "agent failed here, then was resumed", "agents failed here, then were resumed")
	}
	switch {
	case v.Exit != "":
		hv.Exit = htmlTransition(v.Exit, v.Target)
	case len(v.Steps) == 0:
		hv.Exit = "not run: " + notRun
	}
	return hv
}

// htmlVisitOf is one visit of a path; notRun says why a visit that ran no
// step did not (see notRunReason).
func htmlVisitOf(v *Visit, steps map[string]*Step, anchors map[string]string, notRun string) htmlVisit {
	hv := htmlVisit{
		Depth: v.Depth, Via: v.Via, State: v.State,
		Cost:     htmlMoney(v.CostUSD),
		Duration: htmlDuration(v.DurationMS),
	}
	if hv.Via == "" {
		hv.Via = "entry"
	}
	for _, name := range v.Steps {
		s := steps[name]
		ref := htmlRef(name, s, anchors)
		ref.Label = htmlVisitStepLabel(s)
		hv.Steps = append(hv.Steps, ref)
		if s != nil && s.AgentFailed != "" && s.Next != "" {
			hv.Note = "the agent failed here, then was resumed"
		}
	}
	switch {
	case v.Exit != "":
		hv.Exit = htmlTransition(v.Exit, v.Target)
	case len(v.Steps) > 0:
		hv.Exit = "the transcript ends here"
	default:
		hv.Exit = "not run: " + notRun
	}
	for i, child := range v.Spawned {
		if i == htmlSpawnedShown {
			hv.SpawnedMore = len(v.Spawned) - i
			break
		}
		hv.Spawned = append(hv.Spawned, htmlAgentRef{ID: child, Anchor: anchors[htmlAgentKey(child)]})
	}
	if v.Result != nil {
		hv.Result = htmlClip(*v.Result, htmlResultClip)
	}
	return hv
}

// htmlVisitStepLabel is a step's short name within its visit: the seq,
// and what kind of try it was.
func htmlVisitStepLabel(s *Step) string {
	if s == nil {
		return "?"
	}
	label := "#" + htmlCount(s.Seq)
	switch {
	case s.Reminder:
		label += " reminder"
	case s.Attempt > 1:
		label += " retry"
	}
	if s.Ended.IsZero() {
		return label
	}
	return label + " · " + htmlDuration(s.DurationMS)
}

// htmlEnding is how a group's agents ended: the result (or error) they
// share, else the different ones, one per line.
func htmlEnding(group []*Agent, text func(*Agent) string) string {
	var distinct []string
	seen := make(map[string]bool)
	for _, g := range group {
		if t := text(g); !seen[t] {
			seen[t] = true
			distinct = append(distinct, t)
		}
	}
	if len(distinct) == 1 {
		return distinct[0]
	}
	return fmt.Sprintf("%d different:\n%s", len(distinct), strings.Join(distinct, "\n"))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
