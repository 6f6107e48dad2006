package state

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrNotFound is matched (errors.Is) by the error of reading a run that does
// not exist.
var ErrNotFound = errors.New("no such run")

// Store is the folder of state files, <project>/.raymond/state.
type Store struct {
	// Dir is the folder.
	Dir string
}

// Open returns the store in dir, creating the folder if needed. The folder is
// private (see Lock).
func Open(dir string) (*Store, error) {
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return nil, fmt.Errorf("open state folder: %w", err)
	}
	_ = MakePrivate(dir)
	return &Store{Dir: dir}, nil
}

// The modes of the state folder and of what it holds, whatever the umask:
// a state file holds prompts' inputs and results, for the user who runs
// raymond only. State files and journals are created 0600 too.
const (
	dirMode  = 0o700
	fileMode = 0o600
)

// MakePrivate takes the permissions of group and others off the folder dir,
// unless it has none already: run state and transcripts hold prompts,
// answers and tool output. Failing to (someone else owns the folder) is not
// a reason to stop: callers ignore its error.
func MakePrivate(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return os.Chmod(dir, perm&^0o077)
	}
	return nil
}

// Path returns the state file of run id.
func (s *Store) Path(id string) string {
	return filepath.Join(s.Dir, id+".json")
}

// journalPath returns the journal of run id, beside its state file.
func (s *Store) journalPath(id string) string {
	return filepath.Join(s.Dir, id+".journal")
}

// Create writes a new run. It fails, with an error that errors.Is fs.ErrExist,
// when a run with that id exists, also when another process creates it at the
// same moment. It sets Version, Gen and UpdatedAt, and CreatedAt when zero.
// The file appears complete: it is written aside and hard-linked into place,
// so the state folder must be on a file system with hard links.
func (s *Store) Create(r *Run) error {
	data, err := encode(r)
	if err != nil {
		return fmt.Errorf("create run %s: %w", r.WorkflowID, err)
	}
	err = createFile(s.Path(r.WorkflowID), r.WorkflowID, data)
	if errors.Is(err, fs.ErrExist) {
		return existsError{id: r.WorkflowID}
	}
	if err != nil {
		return fmt.Errorf("create run %s: %w", r.WorkflowID, err)
	}
	// A journal can only be left over from a run of this id whose state file
	// was deleted; its lines might carry the new run's generation.
	_ = os.Remove(s.journalPath(r.WorkflowID))
	return nil
}

// existsError says a run id is taken; it matches fs.ErrExist.
type existsError struct{ id string }

func (e existsError) Error() string {
	return fmt.Sprintf("run %s already exists: choose another id", e.id)
}

func (e existsError) Is(target error) bool { return target == fs.ErrExist }

// Write replaces the state file of r atomically (protocol.md §9): a reader
// sees the previous content or the new one, and on error the previous file is
// left intact with no temp file beside it. It sets Version, Gen and UpdatedAt,
// and CreatedAt when zero. The new generation makes the lines of any journal
// of the run stale, and the journal file is then removed (best effort): do not
// call Write while a Journal of the run is open.
func (s *Store) Write(r *Run) error {
	data, err := encode(r)
	if err != nil {
		return fmt.Errorf("write run %s: %w", r.WorkflowID, err)
	}
	if err := replaceFile(s.Path(r.WorkflowID), r.WorkflowID, data); err != nil {
		return fmt.Errorf("write run %s: %w", r.WorkflowID, err)
	}
	_ = os.Remove(s.journalPath(r.WorkflowID))
	return nil
}

// encode stamps r as the next generation and marshals it. The JSON is
// compact: indenting a run of 1,000 agents makes it half again as big and
// three times slower to marshal (see BenchmarkWrite); jq shows it indented.
func encode(r *Run) ([]byte, error) {
	if err := ValidID(r.WorkflowID); err != nil {
		return nil, err
	}
	stamp(r)
	r.Gen++
	return marshalRun(r)
}

// stamp sets what every write of r sets: Version and UpdatedAt, and CreatedAt
// when zero.
func stamp(r *Run) {
	now := time.Now().UTC()
	if r.CreatedAt.IsZero() {
		r.CreatedAt = now
	}
	r.UpdatedAt = now
	r.Version = Version
}

// Read reads run id: its state file, merged with the current lines of its
// journal if it has one (see the package comment). A missing run gives an
// error that errors.Is ErrNotFound; a file from a newer raymond, or one that
// is not valid, gives an error naming it and what is wrong.
func (s *Store) Read(id string) (*Run, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		r, settled, err := s.readOnce(id)
		if settled || attempt == readAttempts {
			return r, err
		}
	}
}

// decode parses a state file, migrated to Version when it is older, and
// returns it with the version it was written in. When the file does not
// parse, or parses into a newer version, the version decides the message, so
// that a newer file whose fields changed type is reported as newer rather
// than corrupt.
func decode(path, id string, data []byte) (*Run, int, error) {
	var r Run
	err := json.Unmarshal(data, &r)
	version := r.Version
	if err != nil {
		var head struct {
			Version int `json:"version"`
		}
		if json.Unmarshal(data, &head) != nil {
			return nil, 0, fmt.Errorf("state file %s is corrupt: %w", path, err)
		}
		version = head.Version
	}
	switch {
	case version > Version:
		return nil, 0, fmt.Errorf("run %s was written by a newer raymond (state version %d, this one reads up to %d): upgrade raymond to drive it",
			id, version, Version)
	case err != nil:
		return nil, 0, fmt.Errorf("state file %s is corrupt: %w", path, err)
	case version < 1:
		return nil, 0, fmt.Errorf("state file %s is corrupt: no state version", path)
	case version < Version:
		data, err = migrateRun(data, version)
		if err == nil {
			r = Run{}
			err = json.Unmarshal(data, &r)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("state file %s (state version %d) is corrupt: %w", path, version, err)
		}
	}
	if r.WorkflowID != id {
		return nil, 0, fmt.Errorf("state file %s is corrupt: it holds run %q", path, r.WorkflowID)
	}
	return &r, version, nil
}

// List returns every run in the store, newest first (by CreatedAt, then by id).
// Files that are not state files (temp files, journals, lock files, names that
// are not run ids) are skipped; each run comes merged with its journal. A state file that cannot be read does not hide the
// others: List returns the runs it could read together with an error joining
// one error per unreadable file (errors.Join), so a caller can show both.
func (s *Store) List() ([]*Run, error) {
	entries, err := os.ReadDir(s.Dir)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var (
		runs []*Run
		errs []error
	)
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || ValidID(id) != nil {
			continue
		}
		r, err := s.Read(id)
		switch {
		case errors.Is(err, ErrNotFound):
			// Removed since ReadDir.
		case err != nil:
			errs = append(errs, err)
		default:
			runs = append(runs, r)
		}
	}
	slices.SortFunc(runs, func(a, b *Run) int {
		return cmp.Or(b.CreatedAt.Compare(a.CreatedAt), strings.Compare(b.WorkflowID, a.WorkflowID))
	})
	return runs, errors.Join(errs...)
}
