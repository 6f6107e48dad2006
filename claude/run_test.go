package claude

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"raymond/step"
)

// runHelper runs req and fails the test if Run returns an error.
func runHelper(t *testing.T, ctx context.Context, req Request, h Handler) *Result {
	t.Helper()
	res, err := Run(ctx, req, h)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestRunReplaysFixtures(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(fixturesDir, "resume-unknown.stderr.txt"))
	must(t, err)
	stderrText := string(data)
	tests := []struct {
		file   string
		stderr string
		exit   int
		want   Outcome
	}{
		{"success.stream.jsonl", "", 0, Success},
		{"tool-use.stream.jsonl", "", 0, Success},
		{"api-429.stream.jsonl", "", 1, APIError},
		{"max-turns.stream.jsonl", "", 1, Exhausted},
		{"sigint-midturn.stream.jsonl", "", 0, Crash},
		{"resume-unknown.stream.jsonl", stderrText, 1, SessionNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := fixture(t, tc.file)
			data, err := os.ReadFile(path)
			must(t, err)
			req := helperRequest(t, "replay", helperFixture+"="+path, helperStderr+"="+tc.stderr, helperExit+"="+strconv.Itoa(tc.exit))
			var lines [][]byte
			var stderrLines []string
			var mu sync.Mutex
			res := runHelper(t, t.Context(), req, Handler{
				OnLine: func(raw []byte) { lines = append(lines, bytes.Clone(raw)) },
				OnStderr: func(line string) {
					mu.Lock()
					defer mu.Unlock()
					stderrLines = append(stderrLines, line)
				},
			})
			want, _ := decodeOutput(t, string(data), tc.stderr, tc.exit)
			eq(t, "Outcome", res.Outcome, tc.want)
			eq(t, "SessionID", res.SessionID, want.SessionID)
			eq(t, "Text", res.Text, want.Text)
			eq(t, "ExitCode", res.ExitCode, tc.exit)
			eq(t, "Signal", res.Signal, "")
			eq(t, "Stderr", res.Stderr, tc.stderr)
			eq(t, "OnLine", string(bytes.Join(lines, []byte("\n")))+"\n", string(data))
			eq(t, "Lines", res.Lines, len(lines))
			if tc.stderr != "" {
				eq(t, "OnStderr", stderrLines, []string{strings.TrimSuffix(tc.stderr, "\n")})
			}
			if !res.Started.Before(res.Ended) {
				t.Errorf("Started %v is not before Ended %v", res.Started, res.Ended)
			}
		})
	}
}

// sysPidfdOpen is pidfd_open(2), the same number on every Linux architecture.
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

// hangRequest starts the hang helper, which spawns a `sleep` grandchild
// sharing its stdout, writes the grandchild's pid and prints one line.
func hangRequest(t *testing.T, settings ...string) (Request, string) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	return helperRequest(t, "hang", append(settings, helperPidFile+"="+pidFile)...), pidFile
}

func grandchild(t *testing.T, pidFile string) int {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	must(t, err)
	pid, err := strconv.Atoi(string(data))
	must(t, err)
	return pid
}

func TestRunIdleTimeoutKillsTheGroup(t *testing.T) {
	req, pidFile := hangRequest(t)
	// Generous enough for the helper to start on a busy machine: the test
	// checks that the helper got as far as its first line.
	req.IdleTimeout = 2 * time.Second
	var sawLine bool
	res := runHelper(t, t.Context(), req, Handler{OnLine: func([]byte) { sawLine = true }})
	if !sawLine {
		t.Fatal("the helper printed nothing before the timeout")
	}
	eq(t, "Outcome", res.Outcome, Timeout)
	eq(t, "Signal", res.Signal, "SIGTERM")
	eq(t, "SessionID", res.SessionID, "hang")
	if pid := grandchild(t, pidFile); !exitsWithin(t, pid, 10*time.Second) {
		t.Errorf("grandchild %d survived the timeout", pid)
	}
}

func TestRunCancelKillsTheGroup(t *testing.T) {
	req, pidFile := hangRequest(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res := runHelper(t, ctx, req, Handler{OnLine: func([]byte) { cancel() }})
	eq(t, "Outcome", res.Outcome, Canceled)
	eq(t, "Signal", res.Signal, "SIGTERM")
	if pid := grandchild(t, pidFile); !exitsWithin(t, pid, 10*time.Second) {
		t.Errorf("grandchild %d survived the cancellation", pid)
	}
}

func TestRunKillAfterGrace(t *testing.T) {
	req, pidFile := hangRequest(t, helperIgnoreTerm+"=1")
	req.KillGrace = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res := runHelper(t, ctx, req, Handler{OnLine: func([]byte) { cancel() }})
	eq(t, "Outcome", res.Outcome, Canceled)
	eq(t, "Signal", res.Signal, "SIGKILL")
	eq(t, "ExitCode", res.ExitCode, -1)
	if pid := grandchild(t, pidFile); !exitsWithin(t, pid, 10*time.Second) {
		t.Errorf("grandchild %d survived", pid)
	}
}

func TestRunCanceledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res := runHelper(t, ctx, helperRequest(t, "replay"), Handler{})
	eq(t, "Outcome", res.Outcome, Canceled)
	eq(t, "NotStarted", res.NotStarted, true)
	eq(t, "neutral NotStarted", Neutral(res, step.Request{}).NotStarted, true)
}

func TestRunHugeLine(t *testing.T) {
	const size = 5 << 20
	req := helperRequest(t, "bigline", helperBigLine+"="+strconv.Itoa(size))
	var longest int
	res := runHelper(t, t.Context(), req, Handler{OnEvent: func(e Event) {
		if e.Kind == EventText {
			longest = max(longest, len(e.Text))
		}
	}})
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "Text", res.Text, "big")
	eq(t, "longest text event", longest, size)
}

func TestRunStdinClosedEarly(t *testing.T) {
	// The child exits without reading a prompt far larger than a pipe
	// buffer: the write fails with EPIPE, which must neither kill the test
	// process (SIGPIPE) nor hang, nor be anything but a failed step.
	req := helperRequest(t, "noread", helperExit+"=3")
	req.Prompt = strings.Repeat("x", 300<<10)
	res := runHelper(t, t.Context(), req, Handler{})
	eq(t, "Outcome", res.Outcome, Crash)
	eq(t, "ExitCode", res.ExitCode, 3)
}

// TestBrokenPipeIsAnError pins what Run relies on when a child exits without
// reading its prompt: Go ignores SIGPIPE for pipes other than stdout and
// stderr, so the write returns EPIPE instead of killing raymond.
func TestBrokenPipeIsAnError(t *testing.T) {
	r, w, err := os.Pipe()
	must(t, err)
	defer w.Close()
	must(t, r.Close())
	_, err = w.Write([]byte("prompt"))
	if !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe without reader: %v, want EPIPE", err)
	}
}

func TestRunPassesPromptAndEnvironment(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 300<<10/16) + "\nend"
	tests := []struct {
		name   string
		prompt string
		env    bool // use Request.Env rather than os.Environ()
	}{
		{"small prompt, explicit env", "hello -- world", true},
		{"large prompt, inherited env", big, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			recFile := filepath.Join(t.TempDir(), "record.json")
			req := helperRequest(t, "record", helperRecord+"="+recFile, "CLAUDECODE=1", "CLAUDECODE=")
			if !tc.env {
				t.Setenv("GORACE", "atexit_sleep_ms=0")
				t.Setenv(helperEnv, "record")
				t.Setenv(helperRecord, recFile)
				t.Setenv("CLAUDECODE", "1")
				req.Env = nil
			}
			req.Prompt = tc.prompt
			res := runHelper(t, t.Context(), req, Handler{})
			eq(t, "Outcome", res.Outcome, Success)
			data, err := os.ReadFile(recFile)
			must(t, err)
			var rec record
			must(t, json.Unmarshal(data, &rec))
			argv, stdin := Args(req)
			eq(t, "argv", rec.Argv, argv)
			eq(t, "stdin", len(rec.Stdin), len(stdin))
			if rec.Stdin != stdin {
				t.Error("stdin arrived altered")
			}
			if rec.Stdin != tc.prompt {
				t.Error("the prompt did not arrive on stdin")
			}
			for _, a := range rec.Argv {
				if strings.Contains(a, tc.prompt) {
					t.Errorf("the prompt is on the command line: %q", a)
				}
			}
			for _, kv := range rec.Env {
				if strings.HasPrefix(kv, "CLAUDECODE") {
					t.Errorf("child environment has %q", kv)
				}
			}
		})
	}
}

func TestRunStderrTail(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "stderr line %04d\n", i)
	}
	req := helperRequest(t, "replay", helperStderr+"="+b.String(), helperExit+"=2")
	var n int
	res := runHelper(t, t.Context(), req, Handler{OnStderr: func(string) { n++ }})
	eq(t, "Outcome", res.Outcome, InvocationError)
	eq(t, "OnStderr calls", n, 2000)
	if len(res.Stderr) > stderrTail || !strings.HasSuffix(res.Stderr, "stderr line 1999\n") {
		t.Errorf("Stderr tail has %d bytes ending %q", len(res.Stderr), res.Stderr[max(0, len(res.Stderr)-40):])
	}
	if len(res.Stderr) < stderrTail-100 {
		t.Errorf("Stderr tail kept only %d bytes", len(res.Stderr))
	}
}

func TestRunRootGuard(t *testing.T) {
	req := helperRequest(t, "replay", helperExit+"=1",
		helperStderr+"=--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n")
	req.SkipPermissions = true
	res := runHelper(t, t.Context(), req, Handler{})
	eq(t, "Outcome", res.Outcome, InvocationError)
	eq(t, "RootRefused", res.RootRefused, true)
	eq(t, "Transient", res.Outcome.Transient(), false)
}

func TestRunStartFailures(t *testing.T) {
	tests := []struct {
		name     string
		req      Request
		notFound bool
	}{
		{"not on PATH", Request{Executable: "raymond-no-such-claude", Prompt: "x"}, true},
		{"no such path", Request{Executable: "/nonexistent/claude", Prompt: "x"}, true},
		{"missing working directory", Request{Executable: os.Args[0], Prompt: "x", Cwd: "/nonexistent/dir"}, false},
		{"invalid request", Request{Executable: os.Args[0]}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Run(t.Context(), tc.req, Handler{})
			if err == nil {
				t.Fatalf("Run = %+v, want an error", res)
			}
			eq(t, "errors.Is(ErrNotFound)", errors.Is(err, ErrNotFound), tc.notFound)
			if tc.notFound && !strings.Contains(err.Error(), "npm install -g @anthropic-ai/claude-code") {
				t.Errorf("error %q does not say how to install Claude Code", err)
			}
		})
	}
}
