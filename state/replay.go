package state

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// readAttempts is how many times Read reads a run that a writer compacts
// under it before it settles for a consistent state that may be a moment old.
const readAttempts = 3

// readOnce reads the state file of run id, then its journal, and merges them.
// settled is false when the reads may have straddled a new snapshot: the
// state file was replaced meanwhile, or the journal holds lines of a newer
// generation. The run is then a state the writer did persist, but maybe not
// the latest; and a journal read while it was truncated may look corrupt, so
// err is not to be trusted either. Read tries again.
func (s *Store) readOnce(id string) (r *Run, settled bool, err error) {
	path := s.Path(id)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, fmt.Errorf("%w %s in %s: raymond list --all shows the runs there", ErrNotFound, id, s.Dir)
	}
	if err != nil {
		return nil, true, fmt.Errorf("read run %s: %w", id, err)
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, true, fmt.Errorf("read run %s: %w", id, err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, true, fmt.Errorf("read run %s: %w", id, err)
	}
	// The state file is replaced atomically, never torn: a bad one is bad.
	r, version, err := decode(path, id, data)
	if err != nil {
		return nil, true, err
	}

	jpath := s.journalPath(id)
	lines, err := os.ReadFile(jpath)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, true, fmt.Errorf("read run %s: %w", id, err)
	}
	newer, err := replay(r, version, jpath, lines)
	// A compaction replaces the state file before it truncates the journal,
	// and Close before it removes it: if the state file read is still in
	// place, the journal read did not overlap either. Not quite: a journal
	// read that began just after the replace can straddle the truncation
	// and the appends that follow it, and splice an old line's start to a
	// new line's end. Such a line looks corrupt, so a journal that does not
	// parse is read again; one that is really corrupt is so every time.
	after, serr := os.Stat(path)
	settled = !newer && err == nil && serr == nil && os.SameFile(before, after)
	if err != nil {
		return nil, settled, err
	}
	return r, settled, nil
}

// replay applies to r, in order, the lines of journal data whose generation is
// r's (see apply), migrated from version, the version of r's snapshot on
// disk, which they were written against. Lines of an older generation are stale and skipped; newer
// reports lines of a newer one. The last line is ignored when it is torn (no
// newline) or does not parse: it was never acknowledged. Any other line that
// does not parse is an error naming path and the line number.
func replay(r *Run, version int, path string, data []byte) (newer bool, err error) {
	var (
		hdr map[string]json.RawMessage // r's header, merged so far; nil until a line applies
		at  map[string]int             // position of each agent in r.Agents
	)
	for n := 1; len(data) > 0; n++ {
		text, rest, complete := bytes.Cut(data, []byte{'\n'})
		data = rest
		if !complete {
			break
		}
		var line journalLine
		err := json.Unmarshal(text, &line)
		if err == nil && version < Version {
			if text, err = migrateLine(text, version); err == nil {
				line = journalLine{}
				err = json.Unmarshal(text, &line)
			}
		}
		if err != nil {
			if len(data) == 0 {
				break
			}
			return newer, fmt.Errorf("state journal %s:%d is corrupt: %w", path, n, err)
		}
		if line.Gen != r.Gen {
			newer = newer || line.Gen > r.Gen
			continue
		}
		if hdr == nil {
			if hdr, err = header(r); err != nil {
				return newer, err
			}
			at = make(map[string]int, len(r.Agents))
			for i := len(r.Agents) - 1; i >= 0; i-- { // the first of duplicate ids wins, as in Run.Agent
				at[r.Agents[i].ID] = i
			}
		}
		apply(r, hdr, &line, at)
	}
	if hdr == nil {
		return newer, nil
	}
	return newer, setHeader(r, hdr, path)
}
