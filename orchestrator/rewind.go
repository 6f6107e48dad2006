package orchestrator

import "encoding/json"

// before is the run as it stands when a step starts, for the step's
// <name>.before.json (raymond rewind makes a new run from it); nil without a
// transcript. It is encoded here, on the loop, which owns the run; the
// step's goroutine writes it.
func (g *driving) before() []byte {
	if g.tr == nil {
		return nil
	}
	data, err := json.Marshal(g.m.Run())
	if err != nil {
		return nil
	}
	return data
}
