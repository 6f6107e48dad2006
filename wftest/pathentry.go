package wftest

import (
	"slices"
	"strings"

	"raymond/analysis"
)

// An entry of an expected path is "STATE" or "TAG STATE": "FIX",
// "reset FIX", "result PLAN". With a tag, the visit must have been entered
// by that tag (analysis.Visit.Via); without one, any way in will do.
// main's first state is entered by no tag and a forked agent's by fork,
// so an agent's first entry needs none.

// pathTags are the tags that lead into a state: the transition tags, where
// result is a return to the caller's state, the cross-workflow tags, ask
// (the state an answered ask went on to), "ask timeout" (the timeout_next
// of an ask that expired) and on_max_visits (the fallback a visit cap took
// instead of the transition into a state entered too often).
var pathTags = []string{"goto", "reset", "call", "function", "fork", "result",
	"call-workflow", "function-workflow", "fork-workflow", "reset-workflow", "ask", "ask timeout", "on_max_visits"}

// splitEntry reads a path entry: the tag ("" for none) and the state.
// ok is false for an entry of two words whose first is not a tag.
func splitEntry(entry string) (tag, state string, ok bool) {
	entry = strings.TrimSpace(entry)
	if rest, ok := strings.CutPrefix(entry, "ask timeout "); ok && strings.TrimSpace(rest) != "" {
		return "ask timeout", strings.TrimSpace(rest), true
	}
	first, rest, spaced := strings.Cut(entry, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case !spaced || rest == "":
		return "", entry, true
	case slices.Contains(pathTags, first):
		return first, rest, true
	}
	return "", entry, false
}

// pathEntry writes a visit as an entry of an expected path: with its tag,
// unless it is its agent's first (first) or its tag is unknown.
func pathEntry(v *analysis.Visit, first bool) string {
	return entryText(v.State, v.Via, first)
}

// entryText writes the visit of state entered by via as an entry of an
// expected path: "goto FIX", or "FIX" for an agent's first visit (first)
// or when the tag is unknown.
func entryText(state, via string, first bool) string {
	if first || via == "" {
		return stateKey(state)
	}
	return via + " " + stateKey(state)
}

// notRunNote marks a visit that ran no step, saying why: " (not run:
// budget reached)"; "" for a visit that ran.
func notRunNote(why string) string {
	if why == "" {
		return ""
	}
	return " (not run: " + why + ")"
}

// matches reports whether the visit v is the path's i-th entry: the same
// state, entered by the tag the entry names, if it names one.
func (w AgentStates) matches(i int, v *analysis.Visit) bool {
	if stateKey(w.States[i]) != stateKey(v.State) {
		return false
	}
	return i >= len(w.Tags) || w.Tags[i] == "" || w.Tags[i] == v.Via
}

// entry shows the path's i-th entry as it is written: "FIX" or "reset
// FIX".
func (w AgentStates) entry(i int) string {
	if i < len(w.Tags) && w.Tags[i] != "" {
		return w.Tags[i] + " " + stateKey(w.States[i])
	}
	return w.States[i]
}
