package state

import (
	"encoding/json"
	"errors"
	"fmt"
)

// A migration turns the JSON of a run of one schema version into the next:
// migrations[v] reads version v and writes version v+1. It is given the
// run's top-level fields; for a journal line, the header fields the line
// changes and its "agents", so it must cope with fields that are absent.
// Readers run the chain from a file's version up to Version, so that a state
// file, and the journal beside it, written by an older raymond still load;
// writers write Version only.
type migration func(doc map[string]json.RawMessage) error

var migrations = [Version]migration{
	1: migrate1to2,
	2: migrate2to3,
}

// migrate1to2: version 2 names a state by a Ref, which may hold a scope
// ("scope_dir") beside the state's name: in a step, a frame and an agent.
// A version 1 run never left its workflow, and a Ref without a scope means
// the run's own, so the fields keep their shape and meaning; only the
// version changes. The bump keeps an older raymond, which would ignore a
// scope_dir it does not know and run a state of the wrong workflow, from
// driving a run of version 2.
func migrate1to2(doc map[string]json.RawMessage) error {
	doc["version"] = json.RawMessage("2")
	return nil
}

// migrate2to3: version 3 (issue 11) adds asking agents and runs, scopes
// that are YAML files, zip archives and URLs, workflow chains and task
// folders. A version 2 run has none of them, so its fields keep their shape
// and meaning; the bump keeps an older raymond, which would take an asking
// agent for one that is stuck and run a zip's state as a folder's, from
// driving a run of version 3.
func migrate2to3(doc map[string]json.RawMessage) error {
	doc["version"] = json.RawMessage("3")
	return nil
}

// upgrade runs the migrations of doc from version from up to Version.
func upgrade(doc map[string]json.RawMessage, from int) error {
	for v := from; v < Version; v++ {
		if err := migrations[v](doc); err != nil {
			return fmt.Errorf("migrate state version %d to %d: %w", v, v+1, err)
		}
	}
	return nil
}

// migrateRun returns data, the JSON of a state file of version from, as the
// JSON of a state file of version Version.
func migrateRun(data []byte, from int) ([]byte, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc == nil {
		return nil, errors.New("a state file is an object, not null")
	}
	if err := upgrade(doc, from); err != nil {
		return nil, err
	}
	return json.Marshal(doc)
}

// migrateLine returns text, a journal line written against a snapshot of
// version from, as a line of version Version. Its gen, unset and
// session_costs are kept as they are.
func migrateLine(text []byte, from int) ([]byte, error) {
	var line map[string]json.RawMessage
	if err := json.Unmarshal(text, &line); err != nil {
		return nil, err
	}
	if line == nil {
		return nil, errors.New("a journal line is an object, not null")
	}
	var doc map[string]json.RawMessage
	if h, ok := line["header"]; ok {
		if err := json.Unmarshal(h, &doc); err != nil {
			return nil, err
		}
	}
	if doc == nil {
		doc = map[string]json.RawMessage{}
	}
	if a, ok := line["agents"]; ok {
		doc["agents"] = a
	}
	if err := upgrade(doc, from); err != nil {
		return nil, err
	}
	if a, ok := doc["agents"]; ok {
		line["agents"] = a
		delete(doc, "agents")
	}
	h, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	line["header"] = h
	return json.Marshal(line)
}
