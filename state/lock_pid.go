//go:build unix && !linux

package state

import "os"

// Without open file description locks (macOS, the BSDs) a driver holds an
// flock, and a reader, which must not take it even for an instant, goes by
// the pid the lock file names (probeByPID).

// tryLock takes an exclusive flock on f without waiting.
func tryLock(f *os.File) (held bool, err error) { return tryFlock(f) }

// probeLock reports whether a live process holds the lock of f, by the pid
// written in it.
func probeLock(f *os.File) (pid int, held bool, err error) {
	pid, held = probeByPID(f)
	return pid, held, nil
}
