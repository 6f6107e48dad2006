package daemon

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"raymond/orchestrator"
	"raymond/state"
)

// BenchmarkIndexLag200 measures how far the daemon's list of runs lags the
// state folder under load: 200 runs, each saved 5 times in a burst (a step's
// end saves its run more than once), as 200 runs driven at once do. An
// operation is one burst; lag-ms is the time from the burst's last save
// until GET /runs would show every run as saved (the index's rows).
//
//	go test -run '^$' -bench IndexLag -benchtime 5x ./daemon
func BenchmarkIndexLag200(b *testing.B) {
	const runs, saves = 200, 5
	p, wf, _ := testProject(b, twoSteps, twoStepReplies)
	journals := make([]*state.Journal, runs)
	live := make([]*state.Run, runs)
	for i := range runs {
		r, err := orchestrator.Create(p.Store, orchestrator.NewRun{Workflow: wf, Cwd: p.Dir})
		if err != nil {
			b.Fatal(err)
		}
		r.Status = state.StatusRunning
		if journals[i], err = p.Store.Journal(r); err != nil {
			b.Fatal(err)
		}
		live[i] = r
	}
	b.Cleanup(func() {
		for _, j := range journals {
			_ = j.Close()
		}
	})
	x := newIndex(p.Store, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err := x.load(); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		_ = x.watch(ctx)
	}()
	b.Cleanup(func() {
		cancel()
		<-watched
	})

	var lag time.Duration
	b.ResetTimer()
	for n := 1; n <= b.N; n++ {
		for s := range saves {
			for i, r := range live {
				r.TotalCostUSD = float64(n) + float64(s)/10
				if err := journals[i].Save(r); err != nil {
					b.Fatal(err)
				}
			}
		}
		saved := time.Now()
		want := float64(n) + float64(saves-1)/10
		for !current(x, want, runs) {
			time.Sleep(time.Millisecond) // polling interval of the measurement
		}
		lag += time.Since(saved)
	}
	b.ReportMetric(float64(lag.Milliseconds())/float64(b.N), "lag-ms")
}

// current says whether the index shows all runs at cost want.
func current(x *index, want float64, runs int) bool {
	rows := x.list()
	if len(rows) != runs {
		return false
	}
	for _, r := range rows {
		if r.Listing.TotalCostUSD != want {
			return false
		}
	}
	return true
}
