package state

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// On Linux a driver holds two locks on the lock file: an flock, which older
// raymonds take and test too, and an open file description lock (fcntl
// F_OFD_SETLK). Both belong to the open file, not to the process, so a
// second Lock in the same process is refused, and both go when the file is
// closed or the process dies. A reader tests the second with F_OFD_GETLK,
// which only asks: it never holds the lock, even for an instant, so a driver
// that starts while `raymond status` looks is never refused because of it.

// The fcntl commands of open file description locks (Linux 3.15), the same
// on every architecture; package syscall does not name them.
const (
	fOFDGETLK = 36
	fOFDSETLK = 37
)

// wholeFile is a write lock on all of a file, for F_OFD_SETLK and GETLK.
func wholeFile() syscall.Flock_t {
	return syscall.Flock_t{Type: syscall.F_WRLCK, Whence: io.SeekStart}
}

// fcntlLock runs an fcntl lock command, again after EINTR.
func fcntlLock(f *os.File, cmd int, lk *syscall.Flock_t) error {
	for {
		err := syscall.FcntlFlock(f.Fd(), cmd, lk)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// tryLock takes both locks on f without waiting. held is true when another
// open file description holds either. On held or error the caller closes
// f, which drops whatever was taken.
func tryLock(f *os.File) (held bool, err error) {
	if held, err := tryFlock(f); held || err != nil {
		return held, err
	}
	lk := wholeFile()
	err = fcntlLock(f, fOFDSETLK, &lk)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, syscall.EAGAIN), errors.Is(err, syscall.EACCES):
		return true, nil
	case errors.Is(err, syscall.EINVAL):
		// A kernel or file system without OFD locks: the flock alone
		// keeps drivers apart, and readers go by the pid (probeLock).
		return false, nil
	default:
		return false, &os.SyscallError{Syscall: "fcntl", Err: err}
	}
}

// probeLock reports whether some open file description holds the lock of f
// and the pid written in it, without taking the lock.
func probeLock(f *os.File) (pid int, held bool, err error) {
	lk := wholeFile()
	err = fcntlLock(f, fOFDGETLK, &lk)
	if errors.Is(err, syscall.EINVAL) {
		pid, held = probeByPID(f)
		return pid, held, nil
	}
	if err != nil {
		return 0, false, &os.SyscallError{Syscall: "fcntl", Err: err}
	}
	if lk.Type == syscall.F_UNLCK {
		return 0, false, nil
	}
	return readPID(f), true, nil
}
