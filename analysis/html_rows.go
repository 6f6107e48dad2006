package analysis

import "fmt"

// timelineAgents picks the agents that get a row of the HTML timeline:
// all of them up to tlMaxRows, else those pickAgents picks, with a note
// that says what was left out.
func timelineAgents(r *Run) ([]*Agent, string) {
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
	shown := pickAgents(r, agents, tlMaxRows)
	note := fmt.Sprintf("The chart shows %s of %s agents: main, the agents of the critical path and of "+
		"failed, retried or refused steps, and a sample of the others spread over the run. "+
		"The strip on top counts every step; every step is listed under Steps below.",
		htmlCount(len(shown)), htmlCount(len(agents)))
	return shown, note
}
