package wftest

import (
	"fmt"
	"strings"

	"raymond/analysis"
)

// refusedBefore returns the step before step (in the same agent) when
// its answer was refused, else nil. run may be nil.
func refusedBefore(run *analysis.Run, step string) *analysis.Step {
	if run == nil {
		return nil
	}
	s := run.Step(step)
	if s == nil || s.Seq < 2 {
		return nil
	}
	prev := run.Find(s.Agent, s.Seq-1)
	if prev == nil || prev.Refused == "" {
		return nil
	}
	return prev
}

// refusedMessage lists the answers the run refused, each followed by a
// reminder, and why: "1 answer refused (a reminder followed): main_JOIN_005:
// <goto>JOIN.md</goto> is not one of the transitions JOIN.md allows". A
// reminder the workflow recovered from changes the path and nothing else,
// so without this line a failed case would not say why it went elsewhere.
// Steps in skip are left out (a message already explains them); "" when
// none is left.
func refusedMessage(run *analysis.Run, skip map[string]bool) string {
	if run == nil {
		return ""
	}
	var parts []string
	n := 0
	for _, s := range run.Steps {
		if !s.Reminded || skip[s.Name] {
			continue
		}
		n++
		if len(parts) == maxListed {
			continue
		}
		why := s.Refused
		if why == "" {
			why = "no reason recorded"
		}
		parts = append(parts, s.Name+": "+clip(why, maxReason))
	}
	if n == 0 {
		return ""
	}
	list := strings.Join(parts, "; ")
	if more := n - len(parts); more > 0 {
		list += fmt.Sprintf("; … and %d more", more)
	}
	if n == 1 {
		return "1 answer refused (a reminder followed): " + list
	}
	return fmt.Sprintf("%d answers refused (a reminder followed each): %s", n, list)
}
