package proc

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// DetachedAttr starts a step's process in a session of its own, which is
// also a process group of its own: stopping the step stops the group, and
// nothing ties the process's life to raymond's. A step started so goes on
// when raymond dies (kill -9, a crash, an upgrade of the daemon); its
// output goes to a file (see [Follower]) and the driver that comes next
// adopts it.
func DetachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
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
