//go:build !linux

package proc

import (
	"errors"
	"os"
	"syscall"
)

// DetachedAttr starts a step's process in a process group of its own,
// not tied to raymond's life (see detach_linux.go).
func DetachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// MemFile returns a file that holds data, for a child's stdin: without
// memfd, a temporary file removed at once.
func MemFile(name string, data []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "raymond-"+name+"-*")
	if err != nil {
		return nil, err
	}
	_ = os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// WatchExit is not available without pidfds: the caller waits otherwise.
func WatchExit(pid int) (<-chan struct{}, func(), error) {
	return nil, nil, errors.ErrUnsupported
}
