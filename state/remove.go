package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Remove deletes run id from the store: its state file, journal and lock
// file. It takes the run's lock first, so a run that a process drives is
// refused with a *LockedError and a process cannot start driving it midway.
// A run that does not exist is ErrNotFound.
func (s *Store) Remove(id string) error {
	if _, err := os.Stat(s.Path(id)); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w %s in %s", ErrNotFound, id, s.Dir)
	}
	l, err := s.Lock(id)
	if err != nil {
		return err
	}
	defer l.Release()
	if err := os.RemoveAll(s.MCPDir(id)); err != nil {
		return fmt.Errorf("remove run %s: %w", id, err)
	}
	for _, path := range []string{s.Path(id), s.journalPath(id), s.lockPath(id)} {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove run %s: %w", id, err)
		}
	}
	return SyncDir(s.Dir)
}

// MCPDir is the folder of run id's private copies of its states' MCP
// configurations (mcp_config), which claude reads; Remove removes it.
func (s *Store) MCPDir(id string) string { return filepath.Join(s.Dir, "mcp", id) }
