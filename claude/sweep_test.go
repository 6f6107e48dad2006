//go:build linux

package claude

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"raymond/step"
)

// startMarked starts `sleep 300` in a session of its own with env added to
// the test's environment, and kills it at the end of the test.
func startMarked(t *testing.T, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "300")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	must(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
	})
	return cmd
}

// TestSweepEndsMarkedOnly: Sweep ends the processes whose environment
// carries the marker, wherever their process group, and leaves alone one
// with another marker and one with the marker as a prefix.
func TestSweepEndsMarkedOnly(t *testing.T) {
	marker := "run-" + NewSessionID() + "/main/3"
	mine := startMarked(t, step.MarkerEnv+"="+marker)
	other := startMarked(t, step.MarkerEnv+"="+marker+"0")
	unmarked := startMarked(t)

	pids, err := Sweep(marker, time.Minute)
	must(t, err)
	eq(t, "pids", pids, []int{mine.Process.Pid})
	if !exitsWithin(t, mine.Process.Pid, time.Minute) {
		t.Errorf("the marked process %d survived the sweep", mine.Process.Pid)
	}
	for _, c := range []*exec.Cmd{other, unmarked} {
		if exitsWithin(t, c.Process.Pid, 0) {
			t.Errorf("process %d without the marker was ended", c.Process.Pid)
		}
	}
	pids, err = Sweep(marker, time.Minute)
	must(t, err)
	eq(t, "pids of a second sweep", len(pids), 0)
}

// TestRunSweepsAfterAKill: a step killed by its context takes with it the
// descendants that left its process group, when the request has a marker.
// (TestRunDescendantLeftTheGroup shows that, without one, they survive.)
func TestRunSweepsAfterAKill(t *testing.T) {
	req, pidFile := hangRequest(t, helperEscape+"=1")
	req.KillGrace = 100 * time.Millisecond
	req.Marker = "run-" + NewSessionID() + "/main/1"
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	res := runHelper(t, ctx, req, Handler{OnLine: func([]byte) { cancel() }})
	eq(t, "Outcome", res.Outcome, Canceled)
	if pid := grandchild(t, pidFile); !exitsWithin(t, pid, time.Minute) {
		_ = syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("grandchild %d that left the group survived the step", pid)
	}
}

// TestChildEnvMarker: the child gets the request's marker, never one it
// would inherit.
func TestChildEnvMarker(t *testing.T) {
	r := Request{Env: []string{"A=1", step.MarkerEnv + "=outer/main/1", "CLAUDECODE=1"}, Marker: "inner/main/2"}
	eq(t, "env", r.childEnv(), []string{"A=1", step.MarkerEnv + "=inner/main/2"})
	r.Marker = ""
	eq(t, "env without a marker", r.childEnv(), []string{"A=1", step.MarkerEnv + "=outer/main/1"})
}
