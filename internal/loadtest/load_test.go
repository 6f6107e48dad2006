package loadtest

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"
)

// The load: runs launched at once, clients following their event streams
// (each follows two runs), and the daemon's cap on concurrent steps.
const (
	loadRuns     = 100
	loadClients  = 50
	loadMaxSteps = 64
)

// BenchmarkServeLoad launches 100 runs of the ten-worker workflow at once
// against a daemon whose fake claude takes 100–800 ms a step, while 50
// clients follow the runs' event streams (dropping and resuming their
// connections with Last-Event-ID) and a sampler times GET /api/v1/runs and
// GET /api/v1/runs/{id} every 20 ms. Every run must complete with its
// result, and every client must see every persisted event once, in order.
//
// --max-steps is 64: a hundred runs could start a thousand steps at once,
// far more than one account's rate limits would bear; 64 keeps the
// daemon's gate full (each run's own max_parallel of 8 queues behind it)
// while the fake claudes, which mostly sleep, do not crowd two cores.
//
// RAYMOND_LOAD_DELAYS scales the fake's delays (default 1: 100–800 ms a
// step, a stress far above a real claude's pace; 10 gives 1–8 s steps,
// closer to one, with the same number of steps and clients).
//
// Reported: peak-rss-MiB (VmHWM of the daemon; target < 200),
// list-p50-ms/list-p99-ms and run-p50-ms/run-p99-ms (the two GETs; target
// p99 < 50), wall-s (first launch to last run ended) and steps/s.
func BenchmarkServeLoad(b *testing.B) {
	for range b.N {
		serveLoad(b)
	}
}

func serveLoad(b *testing.B) {
	scale := 1.0
	if v, err := strconv.ParseFloat(os.Getenv("RAYMOND_LOAD_DELAYS"), 64); err == nil && v > 0 {
		scale = v
	}
	p := newProject(b, scale)
	d := startDaemon(b, p, "--max-steps", "64")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	var launched atomic.Pointer[[]string]
	sampleCtx, stopSampling := context.WithCancel(ctx)
	var list, detail, health []time.Duration
	var sampleErr error
	var sampler sync.WaitGroup
	sampler.Go(func() {
		list, detail, health, sampleErr = sample(sampleCtx, d, &launched)
	})

	start := time.Now()
	ids, err := d.launchAll(ctx, loadRuns)
	if err != nil {
		stopSampling()
		b.Fatal(err)
	}
	launched.Store(&ids)

	followers := make([]*follower, len(ids))
	var g errgroup.Group
	for c := range loadClients {
		rng := rand.New(rand.NewPCG(uint64(c), 13))
		seeds := [2]uint64{rng.Uint64(), rng.Uint64()}
		for j := range 2 {
			i := 2*c + j
			followers[i] = &follower{run: ids[i]}
			g.Go(func() error {
				return followers[i].follow(ctx, d, rand.New(rand.NewPCG(seeds[j], 1)))
			})
		}
	}
	if err := d.waitEnded(ctx, ids, 100*time.Millisecond); err != nil {
		stopSampling()
		b.Fatal(err)
	}
	wall := time.Since(start)
	followErr := g.Wait()
	stopSampling()
	sampler.Wait()
	rss, rssErr := d.peakRSS()
	cpu, childCPU, cpuErr := d.cpu()
	d.stop()

	if followErr != nil {
		b.Error(followErr)
	}
	if sampleErr != nil && !errors.Is(sampleErr, context.Canceled) {
		b.Error(sampleErr)
	}
	store := p.store(b)
	steps, reconnects, live := 0, 0, 0
	for i, id := range ids {
		r, err := store.Read(id)
		if err != nil {
			b.Fatal(err)
		}
		if err := checkRun(r); err != nil {
			b.Error(err)
		}
		for _, a := range r.Agents {
			steps += a.Steps
		}
		if err := followers[i].checkAllSeen(p.dir); err != nil {
			b.Error(err)
		}
		reconnects += followers[i].connects - 1
		live += followers[i].liveEvents
	}
	if err := errors.Join(rssErr, cpuErr); err != nil {
		b.Error(err)
	}
	b.ReportMetric(float64(rss)/(1<<20), "peak-rss-MiB")
	b.ReportMetric(ms(percentile(list, 50)), "list-p50-ms")
	b.ReportMetric(ms(percentile(list, 99)), "list-p99-ms")
	b.ReportMetric(ms(percentile(detail, 50)), "run-p50-ms")
	b.ReportMetric(ms(percentile(detail, 99)), "run-p99-ms")
	b.ReportMetric(ms(percentile(health, 50)), "healthz-p50-ms")
	b.ReportMetric(ms(percentile(health, 99)), "healthz-p99-ms")
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(float64(steps)/wall.Seconds(), "steps/s")
	b.ReportMetric(float64(reconnects), "reconnects")
	b.ReportMetric(float64(live), "live-events")
	b.ReportMetric(cpu.Seconds(), "daemon-cpu-s")
	b.ReportMetric(childCPU.Seconds(), "claude-cpu-s")
	b.ReportMetric(loadAverage(), "loadavg")
	b.ReportMetric(float64(len(list)+len(detail)), "samples")
}

// sample times GET /api/v1/runs and GET /api/v1/runs/{id} of a launched
// run every 20 ms until ctx ends. It times GET /healthz too, which does
// nothing: its latency is the machine's and the HTTP stack's, the floor of
// the others.
func sample(ctx context.Context, d *daemonProc, launched *atomic.Pointer[[]string]) (list, detail, health []time.Duration, err error) {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	rng := rand.New(rand.NewPCG(1, 2))
	timed := func(path string, into *[]time.Duration) error {
		t := time.Now()
		if _, err := d.request(ctx, http.MethodGet, path, nil, nil); err != nil {
			return err
		}
		*into = append(*into, time.Since(t))
		return nil
	}
	for n := 0; n < 100_000; n++ { // 2,000 s at most
		select {
		case <-ctx.Done():
			return list, detail, health, nil
		case <-tick.C:
		}
		if err := timed("/api/v1/runs", &list); err != nil {
			return list, detail, health, err
		}
		if ids := launched.Load(); ids != nil {
			if err := timed("/api/v1/runs/"+(*ids)[rng.IntN(len(*ids))], &detail); err != nil {
				return list, detail, health, err
			}
		}
		if err := timed("/healthz", &health); err != nil {
			return list, detail, health, err
		}
	}
	return list, detail, health, nil
}

// percentile returns the p-th percentile of ds (nearest rank).
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(i, len(s))-1)]
}

// loadAverage is the machine's load average over the last minute: the
// latencies mean little when it is far above the number of cores.
func loadAverage() float64 {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
