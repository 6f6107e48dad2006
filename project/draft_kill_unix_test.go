//go:build unix

package project

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"raymond/workspace"
)

// TestKillTrials kills publish and discard with kill -9 at random moments,
// then runs the same call again and checks the repository: the user's
// branch and checkout, the run's branches and worktrees, the run's record.
// RAYMOND_KILL_TRIALS sets how many (default 9; the figures in the
// issue's closing note are from 240).
func TestKillTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the kill trials start a process each")
	}
	trials := 9
	if n, err := strconv.Atoi(os.Getenv("RAYMOND_KILL_TRIALS")); err == nil && n > 0 {
		trials = n
	}
	ops := []struct {
		op     string
		squash bool
	}{{"publish", false}, {"publish", true}, {"discard", false}}

	// How long an uninterrupted call takes, for each kind: the kills are
	// spread over it.
	took := make([]time.Duration, len(ops))
	for i, o := range ops {
		f := newDraftFixture(t, "r1")
		cmd := f.helper(o.op, squashEnv(o.squash)...)
		start := time.Now()
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		took[i] = time.Since(start)
	}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 22))
	var killed, finished int
	left := map[string]int{} // where the kills left the runs
	for i := range trials {
		o := ops[i%len(ops)]
		f := newDraftFixture(t, "r1")
		before := f.git(f.dir, "rev-parse", "main")
		cmd := f.helper(o.op, squashEnv(o.squash)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		require.NoError(t, cmd.Start())
		delay := time.Duration(rng.Int64N(int64(took[i%len(ops)])))
		timer := time.AfterFunc(delay, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
		err := cmd.Wait()
		timer.Stop()
		if err == nil {
			finished++
		} else {
			killed++
		}
		// What the killed process started (git) may still run: wait until
		// its process group is empty before going on, as a person would
		// find it.
		waitGroupGone(t, cmd.Process.Pid)
		if err != nil {
			// Where the kill left the run: its draft's status, and whether
			// main had moved.
			r, rerr := f.p.Store.Read(f.id)
			require.NoError(t, rerr)
			where := r.Workspace.Status
			if f.git(f.dir, "rev-parse", "main") != before {
				where += ", main moved"
			}
			left[where]++
		}
		ctx := context.Background()
		if o.op == "publish" {
			_, _, err = PublishRun(ctx, f.p, f.id, workspace.PublishOptions{Squash: o.squash})
			var de *DraftError
			if errors.As(err, &de) {
				err = nil // published already: the killed call had finished
			}
			require.NoError(t, err, "trial %d (%s, killed after %s)", i, o.op, delay)
			f.checkPublished(o.squash)
		} else {
			_, _, err = DiscardRun(ctx, f.p, f.id)
			var de *DraftError
			if errors.As(err, &de) {
				err = nil
			}
			require.NoError(t, err, "trial %d (%s, killed after %s)", i, o.op, delay)
			f.checkDiscarded(before)
		}
		if t.Failed() {
			t.Fatalf("trial %d (%s squash=%v) killed after %s left the repository wrong", i, o.op, o.squash, delay)
		}
	}
	t.Logf("%d kill trials: %d killed mid-way, %d had finished; uninterrupted publish %s, squash %s, discard %s; the kills left: %v",
		trials, killed, finished, took[0].Round(time.Millisecond), took[1].Round(time.Millisecond), took[2].Round(time.Millisecond), left)
}

func squashEnv(squash bool) []string {
	if squash {
		return []string{"RAYMOND_KILL_SQUASH=1"}
	}
	return nil
}

// waitGroupGone waits until process group pgid has no process left.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still runs 30s after its leader was killed", pgid)
		}
		time.Sleep(time.Millisecond)
	}
}
