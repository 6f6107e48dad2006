//go:build !linux

package proc

import (
	"os"
	"syscall"
)

// DetachedAttr starts a step's process in a session of its own (see
// detach_linux.go).
func DetachedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
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
