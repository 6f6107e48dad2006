package machine

import (
	"maps"
	"testing"

	"raymond/state"
)

// The built-in template values win over fork variables of the same name,
// which a run saved by an older raymond may hold (a fork can no longer set
// them: parsing refuses it).
func TestVarsBuiltinsWin(t *testing.T) {
	in := "in"
	r := &state.Run{WorkflowID: "r1"}
	a := &state.Agent{ID: "main_worker1", Pending: &state.Step{
		Ref:   state.Ref{State: "WORKER.md"},
		Input: &in,
		Vars:  map[string]string{"run_id": "X", "workflow_id": "X", "agent_id": "Y", "state": "Z", "item": "a"},
	}}
	want := map[string]string{"run_id": "r1", "workflow_id": "r1", "agent_id": "main_worker1", "state": "WORKER.md", "input": "in", "result": "in", "item": "a"}
	if got := Vars(r, a); !maps.Equal(got, want) {
		t.Errorf("Vars = %v\nwant %v", got, want)
	}
}
