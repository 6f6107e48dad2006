package script

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"raymond/state"
	"raymond/step"
)

const sysPidfdOpen = 434

// exitsWithin reports whether process pid (not our child) ends within d. It
// waits on a pidfd, which becomes readable when the process exits.
func exitsWithin(t *testing.T, pid int, d time.Duration) bool {
	t.Helper()
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	switch {
	case errno == syscall.ESRCH:
		return true
	case errno != 0:
		t.Fatalf("pidfd_open %d: %v", pid, errno)
	}
	defer syscall.Close(int(fd))
	deadline := time.Now().Add(d)
	for {
		var set syscall.FdSet
		set.Bits[fd/64] |= 1 << (fd % 64)
		tv := syscall.NsecToTimeval(max(0, time.Until(deadline).Nanoseconds()))
		n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			t.Fatalf("select on pidfd: %v", err)
		}
		return n > 0
	}
}

// readPid reads the pid a script wrote to path.
func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	must(t, err)
	return pid
}

// TestRunIdleTimeout: a script silent for longer than its state's timeout
// is stopped with its whole group, and fails saying why.
func TestRunIdleTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	req := withTimeout(request(t, `sleep 30 & echo $! > "`+pidFile+`.tmp"; mv "`+pidFile+`.tmp" "`+pidFile+`"; wait`), 100*time.Millisecond)
	res := run(t, t.Context(), req, step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Failed)
	eq(t, "Class", res.Class, "timeout")
	eq(t, "Reason", res.Reason, "no output for 100ms (from the state's timeout)")
	eq(t, "Signal", res.Signal, "SIGTERM")
	// A machine slow enough to take the whole timeout to start bash stops
	// the script before it started its child: nothing is left to check.
	if _, err := os.Stat(pidFile); err == nil {
		if pid := readPid(t, pidFile); !exitsWithin(t, pid, time.Minute) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the script's child %d survived the timeout", pid)
		}
	}

	req = request(t, `sleep 30`)
	req.Options.Timeout = state.Duration(100 * time.Millisecond)
	res = run(t, t.Context(), req, step.Handler{})
	eq(t, "Reason from --timeout", res.Reason, "no output for 100ms (from --timeout)")
}

// TestRunCancelKillsBackgroundChild: canceling the step's context stops
// the script and what it started in the background.
func TestRunCancelKillsBackgroundChild(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	req := request(t, `sleep 300 & echo $! > "`+pidFile+`"; echo started; wait`)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := step.Handler{OnOutput: func(stderr bool, chunk []byte) {
		if strings.Contains(string(chunk), "started") {
			cancel()
		}
	}}
	res := run(t, ctx, req, h)
	eq(t, "Outcome", res.Outcome, step.Canceled)
	if pid := readPid(t, pidFile); !exitsWithin(t, pid, time.Minute) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the script's background child %d survived the cancellation", pid)
	}
}

// TestRunSweepsWhatLeftTheGroup: a child that left the script's process
// group (setsid) but carries the step's marker is ended with the step.
func TestRunSweepsWhatLeftTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The child writes its pid once it has left the group, and the script
	// says it started only then.
	req := request(t, `setsid sh -c 'echo $$ > "$0.tmp"; mv "$0.tmp" "$0"; exec sleep 300' "`+pidFile+`" >/dev/null 2>&1 < /dev/null &
while [ ! -e "`+pidFile+`" ]; do sleep 0.01; done
echo started; sleep 300`)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	h := step.Handler{OnOutput: func(stderr bool, chunk []byte) {
		if strings.Contains(string(chunk), "started") {
			cancel()
		}
	}}
	res := run(t, ctx, req, h)
	eq(t, "Outcome", res.Outcome, step.Canceled)
	if pid := readPid(t, pidFile); !exitsWithin(t, pid, time.Minute) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the child %d that left the group survived the step", pid)
	}
}
