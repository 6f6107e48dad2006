package loadtest

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"raymond/state"
)

// TestServeHeldConnections holds more idle connections than the daemon has
// descriptors (ulimit -n 256, 300 connections, each opened again when the
// daemon closes it) while runs are in flight: every run completes, as the
// connections wait for a slot in the kernel's queue rather than take the
// descriptors the steps' pipes need. Before the cap, every step that
// started during the flood failed its agent with "pipe2: too many open
// files".
func TestServeHeldConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("builds raymond and runs a daemon")
	}
	const nofile, holders, runs = 256, 300, 3
	p := newProject(t, 1)
	p.nofile = nofile
	d := startDaemon(t, p, "--max-steps", "16")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ids, err := d.launchAll(ctx, runs)
	if err != nil {
		t.Fatal(err)
	}

	addr := strings.TrimPrefix(d.base, "http://")
	flood, stopFlood := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var dials atomic.Int64
	for range holders {
		wg.Go(func() { hold(flood, addr, &dials) })
	}
	defer func() {
		stopFlood()
		wg.Wait()
	}()

	// The API waits behind the held connections too: read the state files.
	store := p.store(t)
	for _, id := range ids {
		for {
			r, err := store.Read(id)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status == state.StatusCompleted || r.Status == state.StatusFailed || r.Status == state.StatusBudgetExceeded {
				if err := checkRun(r); err != nil {
					t.Fatalf("with %d connections held against a daemon of %d descriptors: %v", holders, nofile, err)
				}
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("run %s did not end: %s", id, r.Status)
			case <-d.exited:
				t.Fatalf("raymond serve exited during the flood: %v", d.cmd.ProcessState)
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	if n := dials.Load(); n < holders {
		t.Fatalf("only %d connections were made: the test proves nothing", n)
	}
	t.Logf("%d connections made while %d runs completed", dials.Load(), runs)
}

// hold keeps one idle connection open to addr until ctx ends, opening it
// again whenever the server closes it.
func hold(ctx context.Context, addr string, dials *atomic.Int64) {
	var dialer net.Dialer
	buf := make([]byte, 1)
	for ctx.Err() == nil {
		c, err := dialer.DialContext(ctx, "tcp", addr)
		if err != nil {
			select { // the daemon gone or the test over
			case <-ctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		dials.Add(1)
		for ctx.Err() == nil {
			_ = c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := c.Read(buf); err != nil {
				var ne net.Error
				if errors.As(err, &ne) && ne.Timeout() {
					continue
				}
				break
			}
		}
		c.Close()
	}
}
