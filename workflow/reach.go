package workflow

import (
	"slices"
	"strings"

	"raymond/parsing"
)

// Reached returns from and every scope its states lead into through
// cross-workflow tags, found in their prompts (answers a model is told to
// give) and policies, transitively: the workflows a run of from can enter.
// A tag whose specifier does not resolve is skipped. Of a script, only the
// tags written whole on one line with nothing the shell fills in (no $ or
// backquote in the tag) are read, as lint reads them: the rest of what a
// script prints is known only when it runs.
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
			if err != nil {
				continue
			}
			var specs []string
			for _, t := range bodyTags(st) {
				if parsing.CrossWorkflow(t.Name) {
					specs = append(specs, t.Target)
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

// bodyTags returns the tags written in a state's body: a prompt's, or a
// script's literal ones, line by line, leaving out comments and tags the
// shell fills in.
func bodyTags(st *State) []parsing.Tag {
	if !st.Script {
		tags, _ := parsing.AllTags(st.Body)
		return tags
	}
	var out []parsing.Tag
	for line := range strings.SplitSeq(st.Body, "\n") {
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		tags, _ := parsing.AllTags(line)
		for _, t := range tags {
			if !strings.ContainsAny(t.Raw, "$`") {
				out = append(out, t)
			}
		}
	}
	return out
}
