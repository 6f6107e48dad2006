package state

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Lock is the exclusive right to drive a run, held from Store.Lock until
// Release or the end of the process (the kernel drops it then, however the
// process ends). The lock is per Lock value, not per process: a second Lock of
// the same run in the same process is refused too. Child processes do not
// inherit it (Go opens files close-on-exec), so a claude process that outlives
// raymond does not keep the run locked.
type Lock struct {
	f  *os.File
	id string
}

// LockedError is returned by Store.Lock when another process, or another Lock
// of this one, holds the run.
type LockedError struct {
	// ID is the run.
	ID string
	// PID is the holder's pid; 0 when it could not be read (the holder had
	// not written it yet).
	PID int
}

// Error says who drives the run and what to do.
func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("run %s is being driven by process %d; wait for it to end, or pause it first (Ctrl-C in its terminal, or kill -INT %d)", e.ID, e.PID, e.PID)
	}
	return fmt.Sprintf("run %s is being driven by another process; wait for it to end, or pause it first (Ctrl-C in its terminal)", e.ID)
}

// lockPath returns the lock file of run id.
func (s *Store) lockPath(id string) string {
	return filepath.Join(s.Dir, id+".lock")
}

// Lock takes the lock of run id without waiting, and writes this process's pid
// into the lock file. When the run is held it returns a *LockedError naming the
// holder's pid.
//
// Lock also makes the state folder private (0700) when an older raymond
// created it open to others: whoever drives a run tightens it.
func (s *Store) Lock(id string) (*Lock, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	_ = MakePrivate(s.Dir)
	f, err := os.OpenFile(s.lockPath(id), os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", id, err)
	}
	held, err := tryLock(f)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock run %s: %w", id, err)
	}
	if held {
		// The pid is the holder's, unless it has only just taken the lock
		// and not written it yet: then it is a dead driver's, or none.
		pid := readPID(f)
		if pid > 0 && !alive(pid) {
			pid = 0
		}
		_ = f.Close()
		return nil, &LockedError{ID: id, PID: pid}
	}
	// Write before truncating: a reader never sees an empty file where a pid
	// was, only the old pid or the new one.
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	_, err = f.WriteAt(pid, 0)
	if err == nil {
		err = f.Truncate(int64(len(pid)))
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("lock run %s: write pid: %w", id, err)
	}
	return &Lock{f: f, id: id}, nil
}

// Release gives the lock up. The lock file stays (see the package comment),
// emptied of the pid, so that a reader that goes by the pid (where the lock
// cannot be tested without taking it) sees the run free. Releasing twice is
// harmless.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	_ = l.f.Truncate(0) // a reader that finds no pid takes the run for free
	err := l.f.Close()  // closing the last descriptor drops the locks
	l.f = nil
	if err != nil {
		return fmt.Errorf("release run %s: %w", l.id, err)
	}
	return nil
}

// Holder reports whether some process holds the lock of run id, and its pid
// (0 when the holder has not written it yet). It never takes the lock, so a
// Lock at the same instant is not refused because of it: status, list,
// recover and transcript --follow call it while a driver may be starting.
func (s *Store) Holder(id string) (pid int, held bool, err error) {
	if err := ValidID(id); err != nil {
		return 0, false, err
	}
	f, err := os.Open(s.lockPath(id))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("probe lock of run %s: %w", id, err)
	}
	defer f.Close()
	pid, held, err = probeLock(f)
	if err != nil {
		return 0, false, fmt.Errorf("probe lock of run %s: %w", id, err)
	}
	return pid, held, nil
}

// readPID reads the pid at the start of a lock file, 0 when there is none.
func readPID(f *os.File) int {
	if _, err := f.Seek(0, 0); err != nil {
		return 0
	}
	line, _ := bufio.NewReader(f).ReadString('\n')
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid < 0 {
		return 0
	}
	return pid
}
