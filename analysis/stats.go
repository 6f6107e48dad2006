package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// stateStats adds up the visits and steps of each state, most expensive
// first.
func stateStats(r *Run) []*StateStats {
	by := make(map[string]*StateStats)
	var out []*StateStats
	get := func(name string) *StateStats {
		st := by[name]
		if st == nil {
			st = &StateStats{State: name}
			by[name] = st
			out = append(out, st)
		}
		return st
	}
	for _, a := range r.Agents {
		for _, v := range a.Path {
			st := get(v.State)
			st.Visits++
			if len(v.Steps) == 0 {
				st.NotRun++
			}
		}
	}
	for _, s := range r.Steps {
		st := get(s.State)
		st.Steps++
		st.Duration += s.Duration
		st.CostUSD += s.CostUSD
		st.Tokens.add(s.Tokens)
		if s.Reminded {
			st.Reminders++
		}
		if s.Outcome != "" && s.Outcome != "success" && s.Outcome != "canceled" {
			st.Failures++
		}
	}
	for _, st := range out {
		if ran := st.Visits - st.NotRun; ran > 0 {
			st.Mean = st.Duration / time.Duration(ran)
		}
		st.DurationMS, st.MeanMS = millis(st.Duration), millis(st.Mean)
		st.CostUSD = usd(st.CostUSD)
	}
	SortStates(out, "cost")
	return out
}

// SortStates orders per-state statistics by "cost" or by "time" (total
// duration), highest first, then by name.
func SortStates(states []*StateStats, by string) {
	slices.SortStableFunc(states, func(x, y *StateStats) int {
		var c int
		if by == "time" {
			c = cmp.Compare(y.Duration, x.Duration)
		} else {
			c = cmp.Compare(y.CostUSD, x.CostUSD)
		}
		if c != 0 {
			return c
		}
		return strings.Compare(x.State, y.State)
	})
}

// maxFailedNamed is how many failed agents a summary names.
const maxFailedNamed = 3

// failedAgents says which agents failed, for a failed run whose end gave
// no reason: "agent main_w7 failed: WORKER.md: …", or "2 agents failed:
// main_w7, main_w9", the names capped at maxFailedNamed.
func failedAgents(r *Run) string {
	var ids []string
	var only *Agent
	for _, a := range r.Agents {
		if a.Status == "failed" {
			ids = append(ids, a.ID)
			only = a
		}
	}
	switch len(ids) {
	case 0:
		return ""
	case 1:
		if only.Error == "" {
			return "agent " + only.ID + " failed"
		}
		return "agent " + only.ID + " failed: " + only.Error
	}
	return fmt.Sprintf("%d agents failed: %s", len(ids), capList(ids, maxFailedNamed))
}

// capList joins the first n items and counts the rest: "a, b, c and 4
// more".
func capList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

// usd rounds a sum of costs to 10 decimals, far below any price, so that
// float noise (0.30000000000000004) does not reach the report or the JSON.
func usd(x float64) float64 { return math.Round(x*1e10) / 1e10 }
