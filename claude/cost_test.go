package claude

import (
	"encoding/json"
	"math"
	"testing"
)

func TestStepCost(t *testing.T) {
	tests := []struct {
		name  string
		res   *Result
		prev  float64
		known bool
		want  float64
	}{
		{"no result", nil, 0.5, true, 0},
		{"per-call cost wins when the total agrees", &Result{TotalCostUSD: 0.7, CallCostUSD: ptr(0.2), Version: "2.1.330"}, 0.5, true, 0.2},
		// Issue 9 item 3: the cumulative total reveals a call whose end was
		// lost (0.9 - 0.5 = 0.4 spent, of which this call 0.2).
		{"a larger cumulative rise reveals a lost call", &Result{TotalCostUSD: 0.9, CallCostUSD: ptr(0.2), Version: "2.1.330"}, 0.5, true, 0.4},
		{"per-call cost of an older CLI wins over its total", &Result{TotalCostUSD: 0.9, CallCostUSD: ptr(0.2), Version: "2.1.200"}, 0.5, true, 0.2},
		{"per-call cost of zero is still the cost", &Result{TotalCostUSD: 0.9, CallCostUSD: ptr(0.0)}, 0.1, true, 0},
		{"new session: the total", &Result{TotalCostUSD: 0.3, Version: "2.1.330"}, 0, false, 0.3},
		{"resumed, cumulative total: the difference", &Result{TotalCostUSD: 0.8, Version: "2.1.300"}, 0.5, true, 0.3},
		{"resumed, version unknown: the difference", &Result{TotalCostUSD: 0.8}, 0.5, true, 0.3},
		{"resumed, nothing spent", &Result{TotalCostUSD: 0.5}, 0.5, true, 0},
		{"total below prev: a per-call CLI", &Result{TotalCostUSD: 0.2}, 0.5, true, 0.2},
		{"old CLI reports per call even when above prev", &Result{TotalCostUSD: 0.8, Version: "2.1.197"}, 0.5, true, 0.8},
		{"first cumulative version", &Result{TotalCostUSD: 0.8, Version: "2.1.277"}, 0.5, true, 0.3},
		{"last per-call version", &Result{TotalCostUSD: 0.8, Version: "2.1.276"}, 0.5, true, 0.8},
		{"older major", &Result{TotalCostUSD: 0.8, Version: "1.9.999"}, 0.5, true, 0.8},
		{"newer minor", &Result{TotalCostUSD: 0.8, Version: "2.2.0"}, 0.5, true, 0.3},
		{"version with a suffix", &Result{TotalCostUSD: 0.8, Version: "2.1.100-beta.1"}, 0.5, true, 0.8},
		{"unparsable version", &Result{TotalCostUSD: 0.8, Version: "dev"}, 0.5, true, 0.3},
		{"crash: no cost known", &Result{}, 0.5, true, 0},
		{"negative per-call cost counts as none", &Result{CallCostUSD: ptr(-0.2)}, 0, false, 0},
		{"negative total counts as none", &Result{TotalCostUSD: -0.2}, 0, false, 0},
		{"infinite per-call cost counts as none", &Result{CallCostUSD: ptr(math.Inf(1))}, 0, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			near(t, "StepCost", StepCost(tc.res, tc.prev, tc.known), tc.want)
		})
	}
}

// TestStepCostIsStorable: whatever costs a result line reports, the step cost
// can be added to a run's total and the total still written as JSON.
func TestStepCostIsStorable(t *testing.T) {
	line := `{"type":"result","subtype":"success","is_error":false,"result":"ok","total_cost_usd":1e308,` +
		`"model_usage_since_last_result":{"a":{"costUSD":1e308},"b":{"costUSD":1e308}}}`
	r, _ := decodeOutput(t, line, "", 0)
	total := 0.25 + StepCost(r, 0, false)
	if _, err := json.Marshal(total); err != nil {
		t.Errorf("run total after the step: %v", err)
	}
}
