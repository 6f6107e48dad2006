package proc

import (
	"fmt"
	"os"
	"syscall"
)

// ExitStatus returns the exit code (-1 after a signal or when unknown) and
// the name of the signal that ended the process, if one did.
func ExitStatus(ps *os.ProcessState) (code int, signal string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal = SignalName(ws.Signal())
	}
	return ps.ExitCode(), signal
}

// signalNames are the signals a step's process is likely to die of, by
// the names people write them with.
var signalNames = map[syscall.Signal]string{
	syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
	syscall.SIGILL: "SIGILL", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
	syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
	syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
}

// SignalName names sig as people write it ("SIGTERM"); a signal without a
// common name is given by number and Go's description.
func SignalName(sig syscall.Signal) string {
	if n, ok := signalNames[sig]; ok {
		return n
	}
	return fmt.Sprintf("signal %d (%s)", int(sig), sig)
}
