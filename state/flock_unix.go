//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// flock is the seam through which every flock is taken: a test checks that
// readers take none.
var flock = syscall.Flock

// tryFlock takes an exclusive flock on f without waiting. held is true when
// another open file description holds it.
func tryFlock(f *os.File) (held bool, err error) {
	for {
		err = flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, &os.SyscallError{Syscall: "flock", Err: err}
	}
	return false, nil
}

// alive reports whether process pid exists (signal 0 is only checked, not
// sent; EPERM means it exists under another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// probeByPID is how a reader tells whether the lock of f is held where the
// lock itself cannot be tested without taking it: by the pid in the file,
// which a driver writes when it takes the lock and clears when it releases
// it, and whether that process lives. A driver killed outright leaves its
// pid, so only a new process of the same pid could make a dead driver's run
// look driven; a Lock is still refused only by a real lock.
func probeByPID(f *os.File) (pid int, held bool) {
	pid = readPID(f)
	return pid, pid > 0 && alive(pid)
}
