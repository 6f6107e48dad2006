package proc

import "syscall"

// Attr puts the child in its own process group, so that stopping a step
// stops everything it started, and asks the kernel to send it SIGTERM when
// raymond dies: a claude or a script left running after a kill -9 of
// raymond would go on editing files while the resumed run runs the same
// step again. (The signal fires when the thread that started the child
// exits; Go keeps its threads for the life of the process unless a
// goroutine locked to one ends, which raymond never does.)
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
