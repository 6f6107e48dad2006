package loadtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"raymond/state"
)

// killResult is what one kill -9 trial found.
type killResult struct {
	inFlight   int // agents running in the state files right after the kill
	duplicates int // paid calls beyond the runs' steps
}

// killTrial launches n runs, kills the daemon with SIGKILL once killAt
// returns, starts it again and waits for every run to end. Every run must
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
	killAt(p)
	d.kill()

	var res killResult
	store := p.store(tb)
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

	d = startDaemon(tb, p, "--max-steps", fmt.Sprint(loadMaxSteps))
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
		killTrial(b, runs, delays, func(p *testProject) {
			waitLines(b, filepath.Join(p.fake, "calls.jsonl"), runs*stepsPerRun)
		})
		span := time.Since(start)
		rng := rand.New(rand.NewPCG(9, 9))
		total, most, inFlight := 0, 0, 0
		for range trials {
			after := time.Duration(rng.Int64N(int64(span)))
			res := killTrial(b, runs, delays, func(*testProject) { time.Sleep(after) })
			total += res.duplicates
			most = max(most, res.duplicates)
			inFlight += res.inFlight
		}
		b.ReportMetric(trials, "trials")
		b.ReportMetric(float64(total), "duplicates")
		b.ReportMetric(float64(most), "duplicates-max/trial")
		b.ReportMetric(float64(inFlight), "in-flight")
		b.ReportMetric(0, "runs-lost") // a lost run fails the benchmark
	}
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
