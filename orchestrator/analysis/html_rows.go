package analysis

import "fmt"

// timelineAgents picks the agents that get a row: all of them up to
// tlMaxRows. Beyond, main and the agents of the critical path, then those
// that had a problem (up to half the rows), then a sample of the others
// spread evenly over the order they started, so that every stretch of
// the run keeps some rows; the rows keep the order of appearance, and the
// note says what was left out.
func timelineAgents(r *Run, critical map[string]bool) ([]*Agent, string) {
	agents := r.Agents
	if len(agents) == 0 {
		// A run whose agents were not recovered: rows from the steps.
		seen := map[string]bool{}
		for _, s := range r.Steps {
			if !seen[s.Agent] {
				seen[s.Agent] = true
				agents = append(agents, &Agent{ID: s.Agent})
			}
		}
	}
	if len(agents) <= tlMaxRows {
		return agents, ""
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
	pick(tlMaxRows, func(_ int, a *Agent) bool { return onPath[a.ID] })
	pick(tlMaxRows/2, func(_ int, a *Agent) bool { return troubled[a.ID] })
	// Every stride-th of the rest; a second pass fills what rounding left.
	rest := tlMaxRows - len(keep)
	stride := float64(len(agents)) / float64(max(1, rest))
	next := 0.0
	pick(tlMaxRows, func(i int, a *Agent) bool {
		if float64(i) < next || keep[a.ID] {
			return false
		}
		next += stride
		return true
	})
	pick(tlMaxRows, func(int, *Agent) bool { return true })
	shown := make([]*Agent, 0, tlMaxRows)
	for _, a := range agents {
		if keep[a.ID] {
			shown = append(shown, a)
		}
	}
	note := fmt.Sprintf("The chart shows %s of %s agents: main, the agents of the critical path and of "+
		"failed, retried or refused steps, and a sample of the others spread over the run. "+
		"The strip on top counts every step; every step is listed under Steps below.",
		htmlCount(len(shown)), htmlCount(len(agents)))
	return shown, note
}
