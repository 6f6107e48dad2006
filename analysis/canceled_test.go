package analysis

import "testing"

// A step stopped by a second interrupt runs again on resume: it is not a
// failed step in the states table, nor in the path.
func TestCanceledStepIsNotAFailure(t *testing.T) {
	r := &Run{
		Agents: []*Agent{{ID: "main", Path: []*Visit{{State: "TEST.md", Steps: []string{"main_TEST_001", "main_TEST_002"}}}}},
		Steps: []*Step{
			{Name: "main_TEST_001", State: "TEST.md", Outcome: "canceled"},
			{Name: "main_TEST_002", State: "TEST.md", Outcome: "crash"},
		},
	}
	st := stateStats(r)
	if len(st) != 1 || st[0].Failures != 1 {
		t.Fatalf("Failures = %+v, want 1 (the crash, not the canceled step)", st)
	}
	steps := map[string]*Step{}
	for _, s := range r.Steps {
		steps[s.Name] = s
	}
	lines := foldVisits(r.Agents, steps)
	if len(lines) != 1 || lines[0].failed != 1 || lines[0].canceled != 1 {
		t.Fatalf("line: failed %d canceled %d, want 1 and 1", lines[0].failed, lines[0].canceled)
	}
}
