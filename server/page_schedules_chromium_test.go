//go:build unix

package server

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/catalog"
	"raymond/daemon"
	"raymond/project"
	"raymond/script"
	"raymond/scripted"
)

// stepClock is a clock a test moves by hand.
type stepClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []chan time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After fires at the next move, whatever d: the schedules look at the
// clock again then.
func (c *stepClock) After(time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waiters = append(c.waiters, ch)
	return ch
}

func (c *stepClock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
	for _, w := range c.waiters {
		w <- t
	}
	c.waiters = nil
}

// TestPageSchedules drives the page's Schedules section in Chromium against
// the real daemon: the schedules of the config and of a manifest with
// their next fire times, a broken one with its reason, and a fire's run.
func TestPageSchedules(t *testing.T) {
	const token = "T0KEN-sched"
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".raymond"), 0o755))
	p, err := project.Open(dir)
	require.NoError(t, err)
	require.NoError(t, p.Init())
	root := filepath.Join(dir, "workflows")
	for name, text := range map[string]string{
		"nightly/START.md":     "Work.\n",
		"tidy/START.md":        "Tidy.\n",
		"tidy/workflow.yaml":   "name: Tidy\nschedule:\n  cron: \"@hourly\"\n  timezone: UTC\n",
		"broken/START.md":      "Never.\n",
		"broken/workflow.yaml": "schedule:\n  cron: \"0 3 * *\"\n",
	} {
		path := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	replies := filepath.Join(dir, "replies.yaml")
	require.NoError(t, os.WriteFile(replies, []byte("replies:\n  START.md:\n    - text: \"<result>done</result>\"\n      repeat: true\n"), 0o644))
	r, err := scripted.Load(replies)
	require.NoError(t, err)
	d, err := daemon.Open(daemon.Config{Project: p, Runner: r, Scripts: r.Scripts(&script.Runner{})})
	require.NoError(t, err)
	cat, err := catalog.New([]string{root}, nil)
	require.NoError(t, err)
	clock := &stepClock{now: time.Date(2026, 11, 24, 10, 5, 0, 0, time.UTC)}
	sched := d.NewSchedules([]project.Schedule{{Name: "every-ten", Workflow: "nightly", Cron: "*/10 * * * *", Timezone: "UTC"}}, cat, clock)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = d.Watch(ctx) })
	wg.Go(func() { sched.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
		d.Shutdown(context.Background())
		_ = d.Close()
	})
	srv := httptest.NewServer(New(Config{Daemon: d, Workflows: cat, Token: token, Version: "test", Page: Page(), Schedules: sched}))
	t.Cleanup(srv.Close)
	t.Cleanup(srv.CloseClientConnections)

	pd := newPageDriver(t, srv.URL, token)
	pd.shots = "/tmp/sched-"
	pd.open("/")
	pd.waitText("#schedules [data-key=every-ten]", "*/10 * * * *")
	pd.waitText("#schedules [data-key=every-ten]", "from [[serve.schedule]]")
	pd.waitText("#schedules [data-key=every-ten] .schedule-last", "none yet")
	pd.until("the next fire times, as dates", `() => document.querySelectorAll("#schedules [data-key=every-ten] .schedule-next time").length === 3 &&
		document.querySelector("#schedules [data-key=every-ten] .schedule-next time").dateTime === "2026-11-24T10:10:00Z"`)
	pd.waitText("#schedules [data-key=tidy]", "from the workflow's manifest")
	pd.waitText("#schedules [data-key=broken] .schedule-next", `Does not fire: schedule.cron "0 3 * *"`)

	// 10:10: it fires, and the page shows the run, linked.
	clock.set(time.Date(2026, 11, 24, 10, 10, 0, 0, time.UTC))
	pd.until("the run of the fire", `() => { const a = document.querySelector("#schedules [data-key=every-ten] .schedule-last a"); return a && a.getAttribute("href").startsWith("#/runs/"); }`)
	pd.until("the next fire time moved on", `() => document.querySelector("#schedules [data-key=every-ten] .schedule-next time").dateTime === "2026-11-24T10:20:00Z"`)
	pd.screenshotOf("#schedules-section", "schedules")
	pd.click("#schedules [data-key=every-ten] .schedule-last a")
	pd.until("the run's page", `() => location.hash.startsWith("#/runs/")`)
	pd.waitText("#run-title", "Run")
	assert.Empty(t, unexpected(pd.Problems()), "the page wrote errors to the console")
}
