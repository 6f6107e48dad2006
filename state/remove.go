package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
	for _, path := range []string{s.Path(id), s.journalPath(id), s.lockPath(id)} {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove run %s: %w", id, err)
		}
	}
	return SyncDir(s.Dir)
}
