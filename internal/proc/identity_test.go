package proc

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"raymond/step"
)

// TestRunning: a process is the step's own only with its pid, its start
// time and the step's marker; another start time (the pid reused) or
// another marker is not it, and SignalGroup leaves it alone.
func TestRunning(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	cmd := exec.Command("sleep", "60")
	cmd.Env = append(os.Environ(), step.MarkerEnv+"=r/main/1")
	cmd.SysProcAttr = DetachedAttr()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	id, err := Identify(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "running", Running(id, "r/main/1"), true)
	eq(t, "another start time", Running(Identity{PID: id.PID, Start: id.Start + 1}, "r/main/1"), false)
	eq(t, "another marker", Running(id, "r/main/2"), false)
	eq(t, "signaled with another start time", SignalGroup(Identity{PID: id.PID, Start: id.Start + 1}, "r/main/1", 0), false)
	found, ok := Leader("r/main/1")
	eq(t, "leader found", ok, true)
	eq(t, "leader", found, id)
	_, ok = Leader("r/main/9")
	eq(t, "leader of another step", ok, false)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	eq(t, "running after its end", Running(id, "r/main/1"), false)
}

// TestFollower: a follower reads what is appended as it is, waits at the
// end, and after done reads what came last, then ends.
func TestFollower(t *testing.T) {
	f, err := OpenSpool(filepath.Join(t.TempDir(), "a", "s.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	done := make(chan struct{})
	r := NewFollower(f, 0, done)
	_, _ = f.WriteString("one\n")
	buf := make([]byte, 16)
	n, err := r.Read(buf)
	eq(t, "first read", string(buf[:n]), "one\n")
	eq(t, "first error", err, nil)
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	_, _ = f.WriteString("two\n")
	_, _ = f.WriteString("three")
	close(done)
	eq(t, "the rest", <-got, "two\nthree")
}

// TestWatchExit: the watch of a process's end does not end while the
// process runs, signals to raymond notwithstanding (the runtime preempts
// goroutines with SIGURG, which interrupts a poll), and ends once it has.
func TestWatchExit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs pidfds")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	done, unwatch, err := WatchExit(cmd.Process.Pid)
	if err != nil {
		t.Skipf("no pidfd: %v", err)
	}
	defer unwatch()
	for range 200 {
		_ = syscall.Kill(os.Getpid(), syscall.SIGURG)
		select {
		case <-done:
			t.Fatal("the watch ended while the process runs")
		default:
		}
	}
	_ = cmd.Process.Kill()
	<-done
	_ = cmd.Wait()
}
