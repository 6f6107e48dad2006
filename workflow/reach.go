package workflow

import (
	"slices"

	"raymond/parsing"
)

// Reached returns from and every scope its states lead into through
// cross-workflow tags, found in their prompts (answers a model is told to
// give) and policies, transitively: the workflows a run of from can enter.
// A tag whose specifier does not resolve is skipped. Scripts are not read:
// what a script prints is known only when it runs.
func (ss *Scopes) Reached(from *Scope) []*Scope {
	out := []*Scope{from}
	seen := map[string]bool{from.Dir(): true}
	for i := 0; i < len(out); i++ {
		s := out[i]
		states, err := s.States()
		if err != nil {
			continue
		}
		for _, name := range states {
			st, err := s.Load(name)
			if err != nil || st.Script {
				continue
			}
			var specs []string
			if tags, err := parsing.Tags(st.Body); err == nil {
				for _, t := range tags {
					if parsing.CrossWorkflow(t.Name) {
						specs = append(specs, t.Target)
					}
				}
			}
			for _, r := range st.Policy.Rules {
				if parsing.CrossWorkflow(r.Tag) && r.Target != "" {
					specs = append(specs, r.Target)
				}
			}
			for _, spec := range slices.Compact(slices.Sorted(slices.Values(specs))) {
				next, _, err := ss.Workflow(s, spec)
				if err != nil || seen[next.Dir()] {
					continue
				}
				seen[next.Dir()] = true
				out = append(out, next)
			}
		}
	}
	return out
}
