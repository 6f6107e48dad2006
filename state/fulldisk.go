package state

import (
	"os"
	"syscall"
)

// SimulateFullDisk makes every write of a state file or a journal fail with
// ENOSPC, as a full disk does, while full reports true; it returns a function
// that undoes it. It is for the tests of the packages that drive runs (the
// driver, the daemon, the command line's scripts): it swaps this package's
// write seams, so it must not be called while runs are being saved.
func SimulateFullDisk(full func() bool) (undo func()) {
	savedTemp, savedJournal := createTemp, openJournal
	createTemp = func(dir, pattern string) (tempFile, error) {
		if full() {
			return nil, &os.PathError{Op: "open", Path: dir, Err: syscall.ENOSPC}
		}
		return savedTemp(dir, pattern)
	}
	openJournal = func(path string) (journalFile, error) {
		f, err := savedJournal(path)
		if err != nil {
			return nil, err
		}
		return &fullJournal{journalFile: f, path: path, full: full}, nil
	}
	return func() { createTemp, openJournal = savedTemp, savedJournal }
}

// fullJournal is a journal file whose writes fail while full says so.
type fullJournal struct {
	journalFile
	path string
	full func() bool
}

func (f *fullJournal) Write(p []byte) (int, error) {
	if f.full() {
		return 0, &os.PathError{Op: "write", Path: f.path, Err: syscall.ENOSPC}
	}
	return f.journalFile.Write(p)
}
