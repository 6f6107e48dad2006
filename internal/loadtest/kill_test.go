package loadtest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"raymond/state"
)

// killResult is what one kill -9 trial found.
type killResult struct {
	inFlight   int           // agents running in the state files right after the kill
	duplicates int           // paid calls beyond the runs' steps
	lockWait   time.Duration // how long serve.lock stayed held after the kill
}

// killTrial launches n runs, kills the daemon with SIGKILL once killAt
// returns, starts it again and waits for every run to end (nil killAt: no
// kill, an uninterrupted trial). Every run must
// complete with the result an uninterrupted run has, and the paid calls of
// the fake claude may exceed the runs' steps by no more than the steps in
// flight at the kill.
func killTrial(tb testing.TB, n int, delays float64, killAt func(*testProject)) killResult {
	tb.Helper()
	p := newProject(tb, delays)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	d := startDaemon(tb, p, "--max-steps", fmt.Sprint(loadMaxSteps))
	ids, err := d.launchAll(ctx, n)
	if err != nil {
		tb.Fatal(err)
	}
	var res killResult
	store := p.store(tb)
	if killAt != nil {
		killAt(p)
		d.kill()
		for _, id := range ids {
			r, err := store.Read(id)
			if err != nil {
				tb.Fatalf("run %s after the kill: %v", id, err)
			}
			for _, a := range r.Agents {
				if a.Status == state.AgentRunning {
					res.inFlight++
				}
			}
		}
		res.lockWait = waitUnlocked(tb, filepath.Join(p.dir, ".raymond", "serve.lock"))
		d = startDaemon(tb, p, "--max-steps", fmt.Sprint(loadMaxSteps))
	}
	if err := d.waitEnded(ctx, ids, 50*time.Millisecond); err != nil {
		tb.Fatalf("after the restart: %v", err)
	}
	d.stop()
	for _, id := range ids {
		r, err := store.Read(id)
		if err != nil {
			tb.Fatalf("run %s lost: %v", id, err)
		}
		if err := checkRun(r); err != nil {
			tb.Fatalf("after a kill -9 and a restart: %v", err)
		}
	}
	paid := p.paidCalls(tb)
	res.duplicates = paid - n*stepsPerRun
	switch {
	case res.duplicates < 0:
		tb.Fatalf("the fake claude was paid for %d calls, fewer than the %d steps of %d runs", paid, n*stepsPerRun, n)
	case res.duplicates > res.inFlight:
		tb.Fatalf("%d paid steps ran twice, more than the %d in flight at the kill", res.duplicates, res.inFlight)
	}
	return res
}

// TestServeKill9Recovers kills the daemon with five runs in flight and
// starts it again: every run completes as if nothing had happened, and no
// paid step ran twice beyond those in flight.
func TestServeKill9Recovers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds raymond and runs a daemon twice")
	}
	res := killTrial(t, 5, 0.1, func(p *testProject) {
		// Kill once the first workers' steps have ended: some workers are
		// done, others are in flight.
		waitLines(t, filepath.Join(p.fake, "calls.jsonl"), 5+10)
	})
	if res.inFlight == 0 {
		t.Errorf("no step was in flight at the kill: the test proves nothing")
	}
	t.Logf("in flight at the kill: %d; paid twice: %d", res.inFlight, res.duplicates)
}

// BenchmarkServeKill9 runs 20 trials: launch 20 runs, kill -9 the daemon
// at a random moment within an uninterrupted run's time, start it again,
// and check every run. Reported: the trials, the duplicate paid steps in
// all and at most in one trial, and the steps in flight at the kills.
func BenchmarkServeKill9(b *testing.B) {
	const trials, runs, delays = 20, 20, 0.25
	for range b.N {
		// An uninterrupted trial gives the time a kill may fall in.
		start := time.Now()
		if res := killTrial(b, runs, delays, nil); res.duplicates != 0 {
			b.Fatalf("an uninterrupted trial paid %d steps twice", res.duplicates)
		}
		span := time.Since(start)
		rng := rand.New(rand.NewPCG(9, 9))
		total, most, inFlight, lockWaits := 0, 0, 0, 0
		var lockWait time.Duration
		for range trials {
			after := time.Duration(rng.Int64N(int64(span)))
			res := killTrial(b, runs, delays, func(*testProject) { time.Sleep(after) })
			total += res.duplicates
			most = max(most, res.duplicates)
			inFlight += res.inFlight
			if res.lockWait > 5*time.Millisecond {
				lockWaits++
			}
			lockWait = max(lockWait, res.lockWait)
		}
		b.ReportMetric(trials, "trials")
		b.ReportMetric(float64(total), "duplicates")
		b.ReportMetric(float64(most), "duplicates-max/trial")
		b.ReportMetric(float64(inFlight), "in-flight")
		b.ReportMetric(0, "runs-lost") // a lost run fails the benchmark
		b.ReportMetric(float64(lockWaits), "lock-held-after-kill")
		b.ReportMetric(ms(lockWait), "lock-wait-max-ms")
	}
}

// waitUnlocked waits until nobody holds the flock on path, and says how
// long that took. Right after a kill -9 the daemon's lock can stay held for
// a moment: a child forked but not yet exec'd holds a copy of the
// descriptor until its exec closes it.
func waitUnlocked(tb testing.TB, path string) time.Duration {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for n := 0; ; n++ {
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return time.Since(start)
		}
		if n == 0 {
			tb.Logf("%s still locked after the kill, held by: %s", path, holders(path))
		}
		select {
		case <-tick.C:
		case <-deadline:
			tb.Fatalf("%s was still locked 30 s after the daemon was killed", path)
		}
	}
}

// holders lists the processes that have path open, with their command
// lines.
func holders(path string) string {
	var out []string
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && target == path {
			pid := strings.Split(fd, "/")[2]
			cmd, _ := os.ReadFile("/proc/" + pid + "/cmdline")
			out = append(out, fmt.Sprintf("pid %s (%s)", pid, bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		}
	}
	if out == nil {
		return "no process now"
	}
	return strings.Join(out, ", ")
}

// waitLines waits until the file at path has at least n lines, or fails
// after a minute.
func waitLines(tb testing.TB, path string, n int) {
	tb.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(time.Minute)
	for {
		if data, err := os.ReadFile(path); err == nil && countNL(data) >= n {
			return
		}
		select {
		case <-tick.C:
		case <-deadline:
			tb.Fatalf("%s never had %d lines", path, n)
		}
	}
}

func countNL(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
