package analysis

// Limits that keep the path section readable for wide runs.
const (
	htmlOpenAgents   = 12  // agents whose path is shown open
	htmlSpawnedShown = 24  // children listed at a fork before "and N more"
	htmlResultClip   = 400 // runes of a result payload shown in the path
)

// htmlAgent is one agent's path through the workflow.
type htmlAgent struct {
	ID, Anchor          string
	Status, StatusClass string
	Open                bool
	Parent              *htmlAgentRef
	SpawnStep           *htmlStepRef
	Cost                string
	Steps               int
	Duration            string
	Result              string // when no visit shows it
	Error               string
	Visits              []htmlVisit
}

// htmlAgentRef links to an agent's path.
type htmlAgentRef struct{ ID, Anchor string }

// htmlVisit is one stay in a state, indented by the stack depth.
type htmlVisit struct {
	Depth       int
	Via, State  string
	Steps       []htmlStepRef
	Cost        string
	Duration    string
	Exit        string
	Spawned     []htmlAgentRef
	SpawnedMore int
	Result      string
}

func htmlAgents(r *Run, steps map[string]*Step, anchors map[string]string) []*htmlAgent {
	out := make([]*htmlAgent, 0, len(r.Agents))
	for i, a := range r.Agents {
		ha := &htmlAgent{
			ID: a.ID, Anchor: anchors[htmlAgentKey(a.ID)],
			Status: a.Status, StatusClass: htmlStatusClass(a.Status),
			Open:  i < htmlOpenAgents,
			Cost:  htmlMoney(a.CostUSD),
			Steps: len(a.StepNames),
			Error: a.Error,
		}
		if a.Parent != "" {
			ha.Parent = &htmlAgentRef{ID: a.Parent, Anchor: anchors[htmlAgentKey(a.Parent)]}
		}
		if a.SpawnStep != "" {
			ref := htmlRef(a.SpawnStep, steps[a.SpawnStep], anchors)
			ha.SpawnStep = &ref
		}
		if !a.Started.IsZero() && !a.Ended.IsZero() {
			ha.Duration = htmlDuration(a.Ended.Sub(a.Started).Milliseconds())
		}
		shown := false
		for _, v := range a.Path {
			ha.Visits = append(ha.Visits, htmlVisitOf(v, steps, anchors, notRunReason(r, a)))
			shown = shown || v.Result != nil
		}
		if a.Result != nil && !shown {
			ha.Result = htmlClip(*a.Result, htmlResultClip)
		}
		out = append(out, ha)
	}
	return out
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
		ref := htmlRef(name, steps[name], anchors)
		ref.Label = htmlVisitStepLabel(steps[name])
		hv.Steps = append(hv.Steps, ref)
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
