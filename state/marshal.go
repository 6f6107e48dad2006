package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// A run's JSON is mostly its agents and its session costs. Marshalled in one
// piece, a run of 10,000 agents grows encoding/json's buffer to 4 MiB by
// doubling, copies it out, and leaves the 4 MiB buffer in the package's pool:
// a third of the live heap of a 10,000-agent fan-out. marshalRun writes the
// same bytes piece by piece into one buffer instead: the rest of the value
// with placeholders, then each agent and each cost in a placeholder's place.

// spliceFrom is the number of agents and costs from which marshalling piece
// by piece pays; below it the one buffer stays small. A variable so that
// tests can splice small values.
var spliceFrom = 256

// Placeholders stand for the agents and the session costs while the rest is
// marshalled. No real agent id or session id is a NUL.
var (
	agentsMark = []Agent{{ID: "\x00"}}
	costsMark  = map[string]float64{"\x00": 0}
	agentsJSON = mustMarshal(`"agents":`, agentsMark)
	costsJSON  = mustMarshal(`"session_costs":`, costsMark)
)

func mustMarshal(key string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return append([]byte(key), data...)
}

// marshalRun returns what json.Marshal(r) returns, byte for byte, and a
// newline.
func marshalRun(r *Run) ([]byte, error) {
	if len(r.Agents)+len(r.SessionCosts) < spliceFrom {
		data, err := json.Marshal(r)
		return append(data, '\n'), err
	}
	h := *r
	if len(h.Agents) > 0 {
		h.Agents = agentsMark
	}
	if len(h.SessionCosts) > 0 {
		h.SessionCosts = costsMark
	}
	skeleton, err := json.Marshal(&h)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(estimate(skeleton, r.Agents) + len(r.SessionCosts)*64 + 1)
	if err := splice(&buf, skeleton, r.Agents, r.SessionCosts); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// marshalLine returns json.Marshal(line), byte for byte.
func marshalLine(line *journalLine) ([]byte, error) {
	if len(line.Agents)+len(line.SessionCosts) < spliceFrom {
		return json.Marshal(line)
	}
	l := *line
	if len(l.Agents) > 0 {
		l.Agents = agentsMark
	}
	skeleton, err := json.Marshal(&l)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	buf.Grow(estimate(skeleton, line.Agents) + len(line.SessionCosts)*64 + 1)
	if err := splice(&buf, skeleton, line.Agents, nil); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// estimate guesses the size of skeleton with agents in it, from the largest
// of a few agents and a margin, so that the buffer is allocated once: an
// estimate short by a byte costs a second buffer twice the size.
func estimate(skeleton []byte, agents []Agent) int {
	if len(agents) == 0 {
		return len(skeleton)
	}
	most := 0
	for _, i := range []int{0, len(agents) / 3, len(agents) / 2, 2 * len(agents) / 3, len(agents) - 1} {
		data, _ := json.Marshal(&agents[i])
		most = max(most, len(data)+1)
	}
	return len(skeleton) + len(agents)*most*5/4
}

// splice writes skeleton to buf with the agents placeholder replaced by
// agents, and the session costs placeholder by costs. The placeholders hold
// a NUL, which JSON writes \u0000: no other string of the skeleton can
// contain their bytes, and each appears once, at its field.
func splice(buf *bytes.Buffer, skeleton []byte, agents []Agent, costs map[string]float64) error {
	enc := json.NewEncoder(buf) // escapes HTML like json.Marshal
	rest := skeleton
	if len(agents) > 0 {
		before, after, ok := bytes.Cut(rest, agentsJSON)
		if !ok {
			return fmt.Errorf("marshal agents: placeholder not found")
		}
		buf.Write(before)
		buf.WriteString(`"agents":[`)
		for i := range agents {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := enc.Encode(&agents[i]); err != nil {
				return err
			}
			buf.Truncate(buf.Len() - 1) // Encode's newline
		}
		buf.WriteByte(']')
		rest = after
	}
	if len(costs) > 0 {
		before, after, ok := bytes.Cut(rest, costsJSON)
		if !ok {
			return fmt.Errorf("marshal session costs: placeholder not found")
		}
		buf.Write(before)
		buf.WriteString(`"session_costs":{`)
		for i, k := range slices.Sorted(maps.Keys(costs)) {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := enc.Encode(k); err != nil {
				return err
			}
			buf.Truncate(buf.Len() - 1)
			buf.WriteByte(':')
			if err := enc.Encode(costs[k]); err != nil {
				return err
			}
			buf.Truncate(buf.Len() - 1)
		}
		buf.WriteByte('}')
		rest = after
	}
	buf.Write(rest)
	return nil
}
