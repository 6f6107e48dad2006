//go:build !linux

package claude

import "syscall"

// procAttr puts the child in its own process group, so that stopping a step
// stops everything it started. Only Linux can also tie the child's life to
// raymond's (see procattr_linux.go).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
