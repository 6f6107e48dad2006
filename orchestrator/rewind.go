package orchestrator

import "encoding/json"

// MaxRewindAgents is the most agents a run may have had for a step's
// snapshot to be written. A snapshot is the whole run, so in a wide fan-out
// writing one per step would cost the square of the agents (1,000 agents:
// ~320 KB and ~10 ms on the loop for every step); past it the steps cannot
// be rewound to, and raymond rewind says so.
const MaxRewindAgents = 64

// before is the run as it stands when a step starts, for the step's
// <name>.before.json (raymond rewind makes a new run from it); nil without a
// transcript. It is encoded here, on the loop, which owns the run; the
// step's goroutine writes it.
func (g *driving) before() []byte {
	if g.tr == nil || len(g.m.Run().Agents) > MaxRewindAgents {
		return nil
	}
	data, err := json.Marshal(g.m.Run())
	if err != nil {
		return nil
	}
	return data
}
