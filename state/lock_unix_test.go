//go:build unix

package state

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
)

// TestHolderTakesNoLock: status, list, recover and transcript --follow ask
// Holder while a driver may be starting; if Holder took the lock, even for
// an instant, that driver would be refused (issue 9, item 11).
func TestHolderTakesNoLock(t *testing.T) {
	s := openStore(t)
	var mu sync.Mutex
	calls := 0
	saved := flock
	t.Cleanup(func() { flock = saved })
	flock = func(fd, how int) error {
		mu.Lock()
		calls++
		mu.Unlock()
		return saved(fd, how)
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return calls
	}

	l, err := s.Lock("run")
	must(t, err)
	before := count()
	if pid, held, err := s.Holder("run"); err != nil || !held || pid != os.Getpid() {
		t.Errorf("Holder of a held run = %d, %v, %v; want %d, true", pid, held, err, os.Getpid())
	}
	must(t, l.Release())
	if _, held, err := s.Holder("run"); err != nil || held {
		t.Errorf("Holder of a free run = %v, %v; want free", held, err)
	}
	if n := count() - before; n != 0 {
		t.Errorf("Holder took the flock %d times, want never", n)
	}

	// Readers in a tight loop never make a driver's Lock fail.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				_, _, _ = s.Holder("run")
			}
		}
	})
	for i := range 2000 {
		l, err := s.Lock("run")
		if err != nil {
			close(stop)
			wg.Wait()
			t.Fatalf("Lock %d beside a reader: %v", i, err)
		}
		must(t, l.Release())
	}
	close(stop)
	wg.Wait()
}

// deadPID returns the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	must(t, cmd.Run())
	return cmd.Process.Pid
}

// TestLockRefusalNamesOnlyALiveDriver: a driver that has just taken the
// lock has not written its pid yet; the file still names the last driver,
// long dead. The refusal must not name that one.
func TestLockRefusalNamesOnlyALiveDriver(t *testing.T) {
	s := openStore(t)
	l, err := s.Lock("run")
	must(t, err)
	defer l.Release()
	must(t, os.WriteFile(s.lockPath("run"), []byte(strconv.Itoa(deadPID(t))+"\n"), 0o600))

	_, err = s.Lock("run")
	var locked *LockedError
	if !errors.As(err, &locked) || locked.PID != 0 {
		t.Fatalf("Lock = %v, want a *LockedError without a pid", err)
	}
	wantErr(t, err, "run run is being driven by another process; wait for it to end, or pause it first (Ctrl-C in its terminal)")
}

// TestProbeByPID is how readers tell a held lock where it cannot be tested
// without taking it (macOS, the BSDs): by a live pid in the file.
func TestProbeByPID(t *testing.T) {
	s := openStore(t)
	for _, tc := range []struct {
		content string
		held    bool
	}{
		{"", false},
		{strconv.Itoa(os.Getpid()) + "\n", true},
		{strconv.Itoa(deadPID(t)) + "\n", false},
		{"garbage\n", false},
	} {
		must(t, os.WriteFile(s.lockPath("run"), []byte(tc.content), 0o600))
		f, err := os.Open(s.lockPath("run"))
		must(t, err)
		_, held := probeByPID(f)
		f.Close()
		if held != tc.held {
			t.Errorf("probeByPID(%q) held = %v, want %v", tc.content, held, tc.held)
		}
	}
}

// TestReleaseClearsPID: a reader that goes by the pid sees a released run
// free.
func TestReleaseClearsPID(t *testing.T) {
	s := openStore(t)
	l, err := s.Lock("run")
	must(t, err)
	must(t, l.Release())
	got, err := os.ReadFile(s.lockPath("run"))
	must(t, err)
	if len(got) != 0 {
		t.Errorf("lock file after Release holds %q, want nothing", got)
	}
}
