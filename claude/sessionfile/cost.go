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
// as its process ends: at the end of its turn, and also on SIGTERM or SIGINT
// before its result line; a SIGKILL leaves none. (Seen with 2.1.330; older
// CLIs may not write it.)
const CostStateType = "cost-state"

// CostState is that line, with the fields raymond reads (the CLI writes more:
// durations, lines added, the usage of each model). TotalCostUSD is the
// cumulative cost of the session's lineage: a resumed session's earlier calls
// and a branch's parent are in it, though a branch's copy of the history
// holds none of the parent's cost-state lines. As the line is written when a
// signal stops the process before its result line, it is what a step stopped
// that way spent.
type CostState struct {
	Type         string  `json:"type"`
	SessionID    string  `json:"sessionId"`
	TotalCostUSD float64 `json:"totalCostUSD"`
}

// Cost is what a session file says of what the session cost.
type Cost struct {
	// TotalUSD is the totalCostUSD of the last cost-state line.
	TotalUSD float64
	// Version is the CLI version the file's last line naming one names
	// (its messages carry it), "" for none.
	Version string
}

// LastCost is what the session file of session id, begun in working
// directory cwd under Claude Code's configuration folder configDir, says
// the session cost: its last cost-state line. The CLI names the folder
// after the directory it finds itself in, cwd with its symbolic links
// resolved, so that one is looked in first, then cwd as given. ok is false
// when the session has no such line or no file; a branch's copy of its
// parent's lines may hold the parent's.
func LastCost(configDir, cwd, id string) (c Cost, ok bool, err error) {
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
			return Cost{}, false, fmt.Errorf("read the cost in Claude Code's session %s: %w", id, err)
		}
		c, ok, err = lastCost(f)
		f.Close()
		if err != nil {
			return Cost{}, false, fmt.Errorf("read the cost in Claude Code's session %s: %w", id, err)
		}
		return c, ok, nil
	}
	return Cost{}, false, nil
}

// costMark is how every cost-state line starts, as the CLI writes it: lines
// without it are passed over unparsed (a session file holds megabytes of
// conversation). versionMark is the key of a message line's version, at the
// line's top level: within a JSON string its quotes would be escaped.
var (
	costMark    = []byte(`"type":"cost-state"`)
	versionMark = []byte(`"version":"`)
)

// lastCost scans a session file for its last well-formed cost-state line
// and the last version a line names. A last line cut short (the CLI was
// killed while writing it) is passed over, as is a negative total, which no
// CLI writes.
func lastCost(r io.Reader) (c Cost, ok bool, err error) {
	br := bufio.NewReaderSize(r, 64*1024)
	for {
		line, err := br.ReadBytes('\n')
		if bytes.Contains(line, costMark) {
			var l CostState
			if json.Unmarshal(line, &l) == nil && l.Type == CostStateType && l.TotalCostUSD >= 0 {
				c.TotalUSD, ok = l.TotalCostUSD, true
			}
		} else if i := bytes.LastIndex(line, versionMark); i >= 0 {
			v := line[i+len(versionMark):]
			if end := bytes.IndexByte(v, '"'); end > 0 {
				c.Version = string(v[:end])
			}
		}
		if errors.Is(err, io.EOF) {
			return c, ok, nil
		}
		if err != nil {
			return Cost{}, false, err
		}
	}
}
