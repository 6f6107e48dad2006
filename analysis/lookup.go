package analysis

import "slices"

// Find returns the step of agent whose Seq is seq, or nil. A step that
// never started (Run.NotStarted) is found too.
func (r *Run) Find(agent string, seq int) *Step {
	for _, s := range slices.Concat(r.Steps, r.NotStarted) {
		if s.Agent == agent && s.Seq == seq {
			return s
		}
	}
	return nil
}

// Step returns the step named name, or nil.
func (r *Run) Step(name string) *Step {
	for _, s := range slices.Concat(r.Steps, r.NotStarted) {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Agent returns the agent with the given id, or nil.
func (r *Run) Agent(id string) *Agent {
	for _, a := range r.Agents {
		if a.ID == id {
			return a
		}
	}
	return nil
}
