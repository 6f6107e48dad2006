package step

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

// TestStartFailed: running out of descriptors, processes or memory while
// starting a step (as os/exec reports it) is transient; other start
// errors fail.
func TestStartFailed(t *testing.T) {
	tests := []struct {
		err  error
		want Outcome
	}{
		{fmt.Errorf("start claude: %w", os.NewSyscallError("pipe2", syscall.EMFILE)), Transient},
		{fmt.Errorf("start claude: %w", &fs.PathError{Op: "fork/exec", Path: "/usr/bin/claude", Err: syscall.EAGAIN}), Transient},
		{&fs.PathError{Op: "open", Path: "/dev/null", Err: syscall.ENFILE}, Transient},
		{&fs.PathError{Op: "fork/exec", Path: "/bin/bash", Err: syscall.ENOMEM}, Transient},
		{&fs.PathError{Op: "chdir", Path: "/gone", Err: syscall.ENOENT}, Failed},
		{errors.New("empty prompt"), Failed},
	}
	for _, tc := range tests {
		res := StartFailed(tc.err)
		if res.Outcome != tc.want || !res.NotStarted || res.Reason != tc.err.Error() {
			t.Errorf("StartFailed(%v) = %v (not started %v, %q), want %v", tc.err, res.Outcome, res.NotStarted, res.Reason, tc.want)
		}
	}
}
