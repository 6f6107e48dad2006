package claude

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// openFDs counts this process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count descriptors: %v", err)
	}
	return len(entries)
}

// checkGoroutines fails the test if more than want goroutines remain. A
// goroutine that has signalled its WaitGroup may still be on its way out, so
// it waits up to a second for the count to come down.
func checkGoroutines(t *testing.T, want int) {
	t.Helper()
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); n > want && time.Now().Before(deadline); n = runtime.NumGoroutine() {
		runtime.Gosched()
	}
	if n > want {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines before Run, %d after:\n%s", want, n, buf[:runtime.Stack(buf, true)])
	}
}

// TestRunLeaksNothing runs every way a step can end and checks that Run
// leaves no goroutine and no descriptor behind once it has returned.
func TestRunLeaksNothing(t *testing.T) {
	path := fixture(t, "success.stream.jsonl")
	tests := []struct {
		name string
		req  func(t *testing.T) Request
		ctx  func(ctx context.Context) (context.Context, func(), func([]byte))
		want Outcome
	}{
		{name: "success", want: Success,
			req: func(t *testing.T) Request { return helperRequest(t, "replay", helperFixture+"="+path) }},
		{name: "prompt on stdin, not read", want: Crash,
			req: func(t *testing.T) Request {
				r := helperRequest(t, "noread", helperExit+"=3")
				r.Prompt = strings.Repeat("x", 300<<10)
				return r
			}},
		{name: "invocation error", want: InvocationError,
			req: func(t *testing.T) Request {
				return helperRequest(t, "replay", helperExit+"=1", helperStderr+"=error: unknown option '--x'\n")
			}},
		{name: "idle timeout", want: Timeout,
			req: func(t *testing.T) Request {
				r, _ := hangRequest(t)
				r.IdleTimeout = 2 * time.Second
				return r
			}},
		{name: "canceled, SIGTERM ignored", want: Canceled,
			req: func(t *testing.T) Request {
				r, _ := hangRequest(t, helperIgnoreTerm+"=1")
				r.KillGrace = 50 * time.Millisecond
				return r
			},
			ctx: func(ctx context.Context) (context.Context, func(), func([]byte)) {
				ctx, cancel := context.WithCancel(ctx)
				return ctx, cancel, func([]byte) { cancel() }
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req(t)
			ctx, done, onLine := t.Context(), func() {}, func([]byte) {}
			if tc.ctx != nil {
				ctx, done, onLine = tc.ctx(ctx)
			}
			defer done()
			goroutines, fds := runtime.NumGoroutine(), openFDs(t)
			res := runHelper(t, ctx, req, Handler{OnLine: onLine})
			eq(t, "Outcome", res.Outcome, tc.want)
			checkGoroutines(t, goroutines)
			if n := openFDs(t); n > fds {
				t.Errorf("%d descriptors open before Run, %d after", fds, n)
			}
		})
	}
}

// TestRunStartFailureLeaksNothing: the pipes made for a process that could
// not start are closed again.
func TestRunStartFailureLeaksNothing(t *testing.T) {
	req := helperRequest(t, "replay")
	req.Cwd = filepath.Join(req.Cwd, "missing")
	req.Prompt = strings.Repeat("x", 200<<10) // more than a pipe's buffer
	goroutines, fds := runtime.NumGoroutine(), openFDs(t)
	if _, err := Run(t.Context(), req, Handler{}); err == nil {
		t.Fatal("Run in a missing folder succeeded")
	}
	checkGoroutines(t, goroutines)
	if n := openFDs(t); n > fds {
		t.Errorf("%d descriptors open before Run, %d after", fds, n)
	}
}

// TestRunGrandchildOutlivesChild: the child exits after its result line but
// leaves a grandchild holding its output. The output is a file, not a pipe
// whose end waits for every holder: Run ends with the child, long before
// the idle timeout, and the result line decides.
func TestRunGrandchildOutlivesChild(t *testing.T) {
	req, pidFile := hangRequest(t)
	req.Env = append(req.Env, helperLeave+"=1")
	req.IdleTimeout = time.Minute
	t.Cleanup(func() {
		if data, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(string(data)); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	res := runHelper(t, t.Context(), req, Handler{})
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "Text", res.Text, "left")
	eq(t, "ExitCode", res.ExitCode, 0)
	if d := res.Ended.Sub(res.Started); d >= req.IdleTimeout {
		t.Errorf("Run took %s: it waited for the grandchild", d)
	}
}

// TestRunDescendantLeftTheGroup: a grandchild that left the process group
// keeps stdout open after the group was killed. Run closes its end of the
// pipes a grace period after SIGKILL rather than wait for the grandchild.
func TestRunDescendantLeftTheGroup(t *testing.T) {
	req, pidFile := hangRequest(t, helperEscape+"=1")
	req.KillGrace = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	t.Cleanup(func() {
		if data, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(string(data)); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	res := runHelper(t, ctx, req, Handler{OnLine: func([]byte) { cancel() }})
	eq(t, "Outcome", res.Outcome, Canceled)
	eq(t, "Signal", res.Signal, "SIGTERM")
	if pid := grandchild(t, pidFile); exitsWithin(t, pid, 0) {
		t.Errorf("grandchild %d is gone: the test proves nothing", pid)
	}
}
