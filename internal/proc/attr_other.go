//go:build !linux

package proc

import "syscall"

// Attr puts the child in its own process group, so that stopping a step
// stops everything it started. Only Linux can also tie the child's life to
// raymond's (see attr_linux.go).
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
