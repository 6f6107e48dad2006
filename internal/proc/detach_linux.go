package proc

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// DetachedAttr starts a step's process in a process group of its own, so
// that stopping the step stops the group, without tying its life to
// raymond's (no parent-death signal): a step started so goes on when
// raymond dies (kill -9, a crash, an upgrade of the daemon); its output
// goes to a file (see [Follower]) and the driver that comes next adopts
// it. Not a session of its own: where the kernel groups the tasks of each
// session for the scheduler (sched_autogroup, on by default), setsid
// costs a new group per step, 5-8 ms of a step's start on a loaded
// machine. Being in raymond's session is harmless: the step reads no
// terminal (stdin is a file), and a process group left orphaned by
// raymond's death gets no signal unless it holds stopped processes.
func DetachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// MemFile returns a file that holds data and has no name, for a child's
// stdin: a memfd, which costs no file in any folder and outlives the
// process that made it for as long as the child holds it. The caller
// closes its copy once the child has started.
func MemFile(name string, data []byte) (*os.File, error) {
	fd, err := unix.MemfdCreate(name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("memfd for %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, fmt.Errorf("memfd for %s: %w", name, err)
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("memfd for %s: %w", name, err)
	}
	return f, nil
}

// WatchExit returns a channel closed once process pid has ended (a child
// is not reaped: Wait still does that), and a func that stops watching.
// It waits through the runtime's poller on a pidfd, as a pipe's end is
// waited for, rather than in a thread blocked in wait. It works for a
// process that is not our child too; a kernel without pidfds (before 5.10)
// gives an error.
func WatchExit(pid int) (<-chan struct{}, func(), error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil, nil, fmt.Errorf("pidfd of %d: %w", pid, err)
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		exited := false
		err := rc.Read(func(fd uintptr) bool {
			exited = pidfdReady(int(fd), 0)
			return exited
		})
		if !exited && err == nil {
			// Not pollable after all: wait in this goroutine's thread.
			_ = rc.Control(func(fd uintptr) { pidfdReady(int(fd), -1) })
		}
	}()
	return done, func() {
		f.Close() // ends the wait, if the process has not
		<-done
	}, nil
}

// pidfdReady reports whether the process of pidfd fd has ended, waiting
// up to timeout ms for it (-1: until it has). A signal that interrupts the
// wait (the runtime's own, to preempt a goroutine) is no answer: it asks
// again.
func pidfdReady(fd, timeout int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, timeout)
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return true // a pidfd that cannot be polled: nothing to wait for
		}
		return n > 0
	}
}
