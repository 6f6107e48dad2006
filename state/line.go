package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// journalLine is one line of a journal: what one Save changed, against the
// snapshot of generation Gen and the lines before it.
type journalLine struct {
	// Gen is the generation of the snapshot the line is written against.
	Gen int `json:"gen"`
	// Header holds the header fields (as header returns them) whose value
	// changed; every Save changes updated_at at least.
	Header map[string]json.RawMessage `json:"header,omitempty"`
	// Unset names the header fields that became empty and are left out of
	// the JSON now (omitempty).
	Unset []string `json:"unset,omitempty"`
	// Agents are the agents saved, in full.
	Agents []Agent `json:"agents,omitempty"`
	// Stacks gives, for agents of Agents written without their stack, how
	// their stack changed since the journal last wrote it: Keep frames of
	// that stack, then Push. A deep stack is written once, not at every
	// save of its agent.
	Stacks map[string]stackDelta `json:"stacks,omitempty"`
	// SessionCosts are the entries that changed.
	SessionCosts map[string]float64 `json:"session_costs,omitempty"`
}

// header returns the header of r as the JSON fields of its state file: every
// field but agents and session_costs, and gen, which a line carries apart.
func header(r *Run) (map[string]json.RawMessage, error) {
	h := *r
	h.Agents, h.SessionCosts, h.Gen = nil, nil, 0
	data, err := json.Marshal(&h)
	if err != nil {
		return nil, err
	}
	fields, err := topFields(data)
	if err != nil {
		return nil, err
	}
	delete(fields, "agents") // null: it has no omitempty
	return fields, nil
}

// topFields splits the JSON object that json.Marshal wrote into its fields:
// what json.Unmarshal into a map of json.RawMessage returns, without
// decoding the object a second time (every Save does this). The values are
// slices of data. Keys are returned as written: json.Marshal escapes none of
// the field names of a Run.
func topFields(data []byte) (map[string]json.RawMessage, error) {
	fields := make(map[string]json.RawMessage, 16)
	bad := func() (map[string]json.RawMessage, error) {
		return nil, fmt.Errorf("split the fields of %.40q: not a compact JSON object", data)
	}
	if len(data) < 2 || data[0] != '{' || data[len(data)-1] != '}' {
		return bad()
	}
	i, end := 1, len(data)-1
	for i < end {
		// A key: a string without escapes, then a colon.
		if data[i] != '"' {
			return bad()
		}
		k := bytes.IndexByte(data[i+1:end], '"')
		if k < 0 || i+k+2 >= end || data[i+k+2] != ':' {
			return bad()
		}
		key := string(data[i+1 : i+1+k])
		i += k + 3
		// A value: up to the comma or the end at depth 0, outside strings.
		start, depth, inString := i, 0, false
		for ; i < end; i++ {
			c := data[i]
			switch {
			case inString:
				if c == '\\' {
					i++
				} else if c == '"' {
					inString = false
				}
				continue
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			}
			if c == ',' && depth == 0 {
				break
			}
		}
		if start == i || depth != 0 || inString {
			return bad()
		}
		fields[key] = json.RawMessage(data[start:i])
		if i < end {
			i++ // the comma
		}
	}
	return fields, nil
}

// diffHeader returns the fields of next that old lacks or holds with another
// value, and the names, sorted, of the fields of old that next lacks. Equal
// values marshal to equal bytes (encoding/json sorts map keys).
func diffHeader(old, next map[string]json.RawMessage) (changed map[string]json.RawMessage, unset []string) {
	for k, v := range next {
		if prev, ok := old[k]; ok && bytes.Equal(prev, v) {
			continue
		}
		if changed == nil {
			changed = make(map[string]json.RawMessage)
		}
		changed[k] = v
	}
	for k := range old {
		if _, ok := next[k]; !ok {
			unset = append(unset, k)
		}
	}
	slices.Sort(unset)
	return changed, unset
}

// apply merges one line into r, whose header is hdr as merged so far: the
// header fields are set and unset, the agents upserted by id (a new one is
// appended) and the session costs merged. at maps agent ids to their
// position in r.Agents and is kept up to date.
func apply(r *Run, hdr map[string]json.RawMessage, line *journalLine, at map[string]int) {
	maps.Copy(hdr, line.Header)
	for _, k := range line.Unset {
		delete(hdr, k)
	}
	for _, a := range line.Agents {
		i, ok := at[a.ID]
		if d, delta := line.Stacks[a.ID]; delta {
			var prev []Frame
			if ok {
				prev = r.Agents[i].Stack
			}
			a.Stack = append(slices.Clip(prev[:min(d.Keep, len(prev))]), d.Push...)
		}
		if ok {
			r.Agents[i] = a
			continue
		}
		at[a.ID] = len(r.Agents)
		r.Agents = append(r.Agents, a)
	}
	if len(line.SessionCosts) > 0 && r.SessionCosts == nil {
		r.SessionCosts = make(map[string]float64, len(line.SessionCosts))
	}
	maps.Copy(r.SessionCosts, line.SessionCosts)
}

// setHeader replaces the header of r by hdr, the merge of its journal's
// lines, read from path.
func setHeader(r *Run, hdr map[string]json.RawMessage, path string) error {
	data, err := json.Marshal(hdr)
	if err != nil {
		return fmt.Errorf("state journal %s is corrupt: %w", path, err)
	}
	var h Run
	if err := json.Unmarshal(data, &h); err != nil {
		return fmt.Errorf("state journal %s is corrupt: %w", path, err)
	}
	switch {
	case h.Version > Version:
		return fmt.Errorf("run %s was written by a newer raymond (state version %d in %s, this one reads up to %d): upgrade raymond to drive it",
			r.WorkflowID, h.Version, path, Version)
	case h.Version < 1:
		return fmt.Errorf("state journal %s is corrupt: no state version", path)
	case h.WorkflowID != r.WorkflowID:
		return fmt.Errorf("state journal %s is corrupt: it holds run %q", path, h.WorkflowID)
	}
	h.Gen, h.Agents, h.SessionCosts = r.Gen, r.Agents, r.SessionCosts
	*r = h
	return nil
}

// stackDelta is how an agent's stack changed since the journal last wrote
// it: the first Keep frames stay, then Push follows.
type stackDelta struct {
	Keep int     `json:"keep"`
	Push []Frame `json:"push,omitempty"`
}

// sameFrame reports whether two frames are equal.
func sameFrame(a, b *Frame) bool {
	return a.Session == b.Session && a.Ref == b.Ref && a.Cwd == b.Cwd
}
