package analysis

// pickAgents picks the agents a timeline draws when it cannot draw them
// all: main (the first of agents), the agents of the critical path, then
// those with a step that had a problem (up to half the rows), then a
// sample of the others spread evenly over agents, so that every stretch
// of the run keeps some rows. The picked keep the order of agents.
func pickAgents(r *Run, agents []*Agent, limit int) []*Agent {
	if len(agents) <= limit {
		return agents
	}
	critical := make(map[string]bool, len(r.CriticalPath))
	for _, name := range r.CriticalPath {
		critical[name] = true
	}
	onPath, troubled := map[string]bool{}, map[string]bool{}
	for _, s := range r.Steps {
		if critical[s.Name] {
			onPath[s.Agent] = true
		}
		if c := htmlStepClass(s); c != "ok" {
			troubled[s.Agent] = true
		}
	}
	keep := map[string]bool{agents[0].ID: true}
	pick := func(limit int, want func(int, *Agent) bool) {
		for i, a := range agents {
			if len(keep) >= limit {
				return
			}
			if want(i, a) {
				keep[a.ID] = true
			}
		}
	}
	pick(limit, func(_ int, a *Agent) bool { return onPath[a.ID] })
	pick(limit/2, func(_ int, a *Agent) bool { return troubled[a.ID] })
	// Every stride-th of the rest; a second pass fills what rounding left.
	stride := float64(len(agents)) / float64(max(1, limit-len(keep)))
	next := 0.0
	pick(limit, func(i int, a *Agent) bool {
		if float64(i) < next || keep[a.ID] {
			return false
		}
		next += stride
		return true
	})
	pick(limit, func(int, *Agent) bool { return true })
	shown := make([]*Agent, 0, limit)
	for _, a := range agents {
		if keep[a.ID] {
			shown = append(shown, a)
		}
	}
	return shown
}
