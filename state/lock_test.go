package state

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestLockInProcess(t *testing.T) {
	s := openStore(t)
	l, err := s.Lock("run")
	must(t, err)

	_, err = s.Lock("run")
	var locked *LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second Lock: %v, want a *LockedError", err)
	}
	if locked.ID != "run" || locked.PID != os.Getpid() {
		t.Errorf("LockedError = %+v, want run held by %d", locked, os.Getpid())
	}
	wantErr(t, err, fmt.Sprintf("run run is being driven by process %d; wait for it to end, or pause it first (Ctrl-C in its terminal, or kill -INT %d)", os.Getpid(), os.Getpid()))

	pid, held, err := s.Holder("run")
	if err != nil || !held || pid != os.Getpid() {
		t.Errorf("Holder = %d, %v, %v; want %d, true", pid, held, err, os.Getpid())
	}

	other, err := s.Lock("other-run")
	must(t, err)
	must(t, other.Release())

	must(t, l.Release())
	must(t, l.Release()) // twice is harmless
	pid, held, err = s.Holder("run")
	if err != nil || held || pid != 0 {
		t.Errorf("Holder after release = %d, %v, %v; want free", pid, held, err)
	}
	l, err = s.Lock("run")
	must(t, err)
	must(t, l.Release())
}

func TestHolderNoLockFile(t *testing.T) {
	s := openStore(t)
	pid, held, err := s.Holder("never-locked")
	if err != nil || held || pid != 0 {
		t.Errorf("Holder = %d, %v, %v; want free", pid, held, err)
	}
	if names := dirNames(t, s.Dir); len(names) != 0 {
		t.Errorf("Holder created files: %q", names)
	}
}

func TestLockWritesPID(t *testing.T) {
	s := openStore(t)
	// A longer stale pid must not leave digits behind.
	must(t, os.WriteFile(s.lockPath("run"), []byte("123456789012\n"), 0o644))
	l, err := s.Lock("run")
	must(t, err)
	defer l.Release()
	got, err := os.ReadFile(s.lockPath("run"))
	must(t, err)
	if want := strconv.Itoa(os.Getpid()) + "\n"; string(got) != want {
		t.Errorf("lock file holds %q, want %q", got, want)
	}
}

func TestLockInvalidID(t *testing.T) {
	s := openStore(t)
	_, err := s.Lock("../run")
	wantErr(t, err, "run id")
	_, _, err = s.Holder("../run")
	wantErr(t, err, "run id")
}

func TestLockedErrorWithoutPID(t *testing.T) {
	err := &LockedError{ID: "r"}
	if got, want := err.Error(), "run r is being driven by another process; wait for it to end, or pause it first (Ctrl-C in its terminal)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// lockHelperEnv names the environment variable that turns the test binary
// into a helper process: "lock:DIR" locks run "run" in DIR, says "locked" and
// waits; "wait" says "ready" and waits. Either waits until killed or until its
// stdin closes.
const lockHelperEnv = "STATE_TEST_LOCK_HELPER"

// TestLockHelper is not a test: it is the helper process of the tests below.
func TestLockHelper(t *testing.T) {
	mode := os.Getenv(lockHelperEnv)
	if mode == "" {
		t.Skip("helper process for TestLockChildProcess")
	}
	if dir, ok := strings.CutPrefix(mode, "lock:"); ok {
		if _, err := (&Store{Dir: dir}).Lock("run"); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
	} else {
		fmt.Println("ready")
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// startHelper starts the helper process in mode and waits for its first line.
// The helper is killed at the end of the test unless the test kills it first.
func startHelper(t *testing.T, mode, want string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelper$")
	cmd.Env = append(os.Environ(), lockHelperEnv+"="+mode)
	stdin, err := cmd.StdinPipe() // keeps the helper waiting while open
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != want+"\n" {
		t.Fatalf("helper said %q, %v; want %s", line, err, want)
	}
	return cmd
}

// TestLockNotInherited releases a lock while a child started under it lives
// on: the run must be free, as when raymond dies and claude does not.
func TestLockNotInherited(t *testing.T) {
	s := openStore(t)
	l, err := s.Lock("run")
	must(t, err)
	startHelper(t, "wait", "ready")
	must(t, l.Release())

	if pid, held, err := s.Holder("run"); err != nil || held {
		t.Fatalf("Holder with the child alive = %d, %v, %v; want free", pid, held, err)
	}
}

func TestLockChildProcess(t *testing.T) {
	s := openStore(t)
	cmd := startHelper(t, "lock:"+s.Dir, "locked")
	child := cmd.Process.Pid

	_, err := s.Lock("run")
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != child {
		t.Fatalf("Lock while the child holds it: %v, want a *LockedError with pid %d", err, child)
	}
	wantErr(t, err, fmt.Sprintf("run run is being driven by process %d; wait for it to end, or pause it first (Ctrl-C in its terminal, or kill -INT %d)", child, child))
	pid, held, err := s.Holder("run")
	if err != nil || !held || pid != child {
		t.Errorf("Holder = %d, %v, %v; want %d, true", pid, held, err, child)
	}

	// The kernel frees the lock when the holder dies without releasing it.
	must(t, cmd.Process.Kill())
	_ = cmd.Wait() // "signal: killed"
	pid, held, err = s.Holder("run")
	if err != nil || held {
		t.Errorf("Holder after the child died = %d, %v, %v; want free", pid, held, err)
	}
	l, err := s.Lock("run")
	must(t, err)
	must(t, l.Release())
}
