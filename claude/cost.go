package claude

import (
	"math"
	"strconv"
	"strings"
)

// cumulativeSince is the first CLI version whose total_cost_usd is the
// cumulative cost of the session lineage on resumed and branched runs.
var cumulativeSince = [3]int{2, 1, 277}

// StepCost returns what the step described by r cost, in USD.
//
// prev is the last total_cost_usd recorded for the session this step resumed
// or branched from, and known says whether there is one (false for a new
// session). The rules, from claude-code.md "Cost":
//
//  1. model_usage_since_last_result (Result.CallCostUSD) is this call's cost
//     as the CLI itself computed it: use it whenever it is present, unless
//     the session's cumulative total (a CLI known to report one) rose by
//     more since the last total raymond recorded: then calls raymond never
//     saw end were paid for (a step whose end was lost in a crash, run
//     again on resume), and the rise is the cost.
//  2. Otherwise total_cost_usd is cumulative over the session lineage on
//     CLIs since 2.1.277 and per call before. On a resumed or branched run
//     of a cumulative CLI, the step cost is total − prev.
//  3. total_cost_usd alone is the step cost for a new session (nothing to
//     subtract), for a CLI known to predate 2.1.277 (Result.Version), and
//     when total < prev: a cumulative total never shrinks, so a smaller one
//     is a per-call figure (an older CLI whose version the stream did not
//     give). Subtracting there would yield a negative cost.
//
// Getting this wrong double-counts budgets; without a result line the cost
// is unknown and counted as zero. So is a cost that is negative or not a
// finite number, which no CLI reports: added to a run's total it would lower
// the total, or make it impossible to write to the state file.
func StepCost(r *Result, prev float64, known bool) float64 {
	var cost float64
	switch {
	case r == nil:
		return 0
	case r.CallCostUSD != nil:
		cost = *r.CallCostUSD
		// A cumulative total that rose by more than this call cost says
		// calls raymond never saw end were paid for in the session: an
		// attempt whose end was lost when raymond died, re-run on resume.
		// They are counted now, so the run's cost (and its budget) never
		// misses them.
		if known && r.Version != "" && !perCallVersion(r.Version) && r.TotalCostUSD-prev > cost+1e-9 {
			cost = r.TotalCostUSD - prev
		}
	case known && r.TotalCostUSD >= prev && !perCallVersion(r.Version):
		cost = r.TotalCostUSD - prev
	default:
		cost = r.TotalCostUSD
	}
	if cost < 0 || math.IsInf(cost, 0) || math.IsNaN(cost) {
		return 0
	}
	return cost
}

// perCallVersion reports whether version is a CLI known to report
// total_cost_usd per call. An empty or unparsable version is not known to.
func perCallVersion(version string) bool {
	parts := strings.SplitN(version, ".", 3)
	if len(parts) != 3 {
		return false
	}
	for i, p := range parts {
		// Tolerate suffixes such as "2.1.330-beta" or "2.1.330 (Claude Code)".
		end := strings.IndexFunc(p, func(r rune) bool { return r < '0' || r > '9' })
		if end >= 0 {
			p = p[:end]
		}
		n, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		if n != cumulativeSince[i] {
			return n < cumulativeSince[i]
		}
	}
	return false
}
