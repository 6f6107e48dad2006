package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"raymond/state"
)

// beforeSuffix is the suffix of a step's snapshot of the run.
const beforeSuffix = ".before.json"

// Before writes <name>.before.json: the run as it stood when the step
// started (data, the state file's JSON of it). raymond rewind makes a new
// run from it. It is written once, when the step starts, beside the
// prompt; a step without one (a run made before it existed, a crash before
// it was written) cannot be rewound to.
func (s *StepLog) Before(data []byte) {
	if s == nil || data == nil {
		return
	}
	if err := writeFile(s.path(beforeSuffix), data); err != nil {
		s.w.fail(err)
	}
}

// ReadBefore reads the snapshot of the run taken when step name of the
// transcript folder dir started (see StepLog.Before).
func ReadBefore(dir, name string) (*state.Run, error) {
	if name == "" || strings.ContainsAny(name, `/\`) {
		return nil, fmt.Errorf("%q is not a step name", name)
	}
	data, err := os.ReadFile(filepath.Join(dir, name+beforeSuffix))
	if err != nil {
		return nil, err
	}
	var r state.Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name+beforeSuffix), err)
	}
	return &r, nil
}
