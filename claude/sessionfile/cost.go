package sessionfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CostStateType is the type of the line Claude Code appends to a session file
// after every API request (2.1.330 does; older CLIs may not).
const CostStateType = "cost-state"

// CostState is that line, with the fields raymond reads (the CLI writes more:
// durations, lines added, the usage of each model). TotalCostUSD is the
// cumulative cost of the session's lineage: a resumed session's earlier calls
// and a branch's parent are in it. The line is written whether or not the
// process lives to write its result line, so it is what a killed step spent.
type CostState struct {
	Type         string  `json:"type"`
	SessionID    string  `json:"sessionId"`
	TotalCostUSD float64 `json:"totalCostUSD"`
}

// LastCost is the TotalCostUSD of the last cost-state line of session id,
// begun in working directory cwd, under Claude Code's configuration folder
// configDir. The CLI names the folder after the directory it finds itself
// in, cwd with its symbolic links resolved, so that one is looked in first,
// then cwd as given. ok is false when the session has no such line or no
// file; a branch's copy of its parent's lines may hold the parent's.
func LastCost(configDir, cwd, id string) (total float64, ok bool, err error) {
	dirs := []string{cwd}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
		dirs = []string{real, cwd}
	}
	for _, dir := range dirs {
		f, err := os.Open(Path(configDir, dir, id))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return 0, false, fmt.Errorf("read the cost in Claude Code's session %s: %w", id, err)
		}
		total, ok, err = lastCost(f)
		f.Close()
		if err != nil {
			return 0, false, fmt.Errorf("read the cost in Claude Code's session %s: %w", id, err)
		}
		return total, ok, nil
	}
	return 0, false, nil
}

// costMark is how every cost-state line starts, as the CLI writes it: lines
// without it are passed over unparsed (a session file holds megabytes of
// conversation).
var costMark = []byte(`"type":"cost-state"`)

// lastCost scans a session file for its last well-formed cost-state line. A
// last line cut short (the CLI was killed while writing it) is passed over,
// as is a negative total, which no CLI writes.
func lastCost(r io.Reader) (total float64, ok bool, err error) {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadBytes('\n')
		if bytes.Contains(line, costMark) {
			var c CostState
			if json.Unmarshal(line, &c) == nil && c.Type == CostStateType && c.TotalCostUSD >= 0 {
				total, ok = c.TotalCostUSD, true
			}
		}
		if errors.Is(err, io.EOF) {
			return total, ok, nil
		}
		if err != nil {
			return 0, false, err
		}
	}
}
