package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/catalog"
	"raymond/project"
	"raymond/script"
	"raymond/state"
	"raymond/workflow"
)

// fakeCatalog is a catalog of fixed workflows.
type fakeCatalog struct{ wfs []catalog.Workflow }

func (c *fakeCatalog) List() []catalog.Workflow { return c.wfs }
func (c *fakeCatalog) Get(id string) (catalog.Workflow, bool) {
	for _, w := range c.wfs {
		if w.ID == id {
			return w, true
		}
	}
	return catalog.Workflow{}, false
}
func (c *fakeCatalog) Changed() <-chan struct{} { return nil }

// scheduleDaemon opens a daemon over a workflow "wf" answered from replies,
// with a manual clock at 10:05 UTC.
func scheduleDaemon(t *testing.T, replies string) (*Daemon, *fakeCatalog, *manualClock, string) {
	t.Helper()
	p, wf, r := testProject(t, map[string]string{"START.md": "Go.\n"}, replies)
	clock := newManualClock()
	clock.now = time.Date(2026, 11, 24, 10, 5, 0, 0, time.UTC)
	d, err := Open(Config{Project: p, Runner: r, Scripts: r.Scripts(&script.Runner{}), Clock: clock})
	require.NoError(t, err)
	t.Cleanup(func() {
		d.Shutdown(t.Context())
		d.Close()
	})
	cat := &fakeCatalog{wfs: []catalog.Workflow{{ID: "wf", Path: wf, Usable: true, Input: catalog.Input{Mode: "optional"}}}}
	return d, cat, clock, p.Dir
}

func launched(t *testing.T, d *Daemon) []*state.Run {
	t.Helper()
	runs, err := d.p.Runs()
	require.NoError(t, err)
	return runs
}

func status(t *testing.T, s *Schedules, name string) ScheduleStatus {
	t.Helper()
	for _, st := range s.List() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no schedule %s", name)
	return ScheduleStatus{}
}

const quickReplies = "replies:\n  START.md:\n    - text: \"<result>done</result>\"\n      repeat: true\n"

func TestScheduleFiresAtItsTimes(t *testing.T) {
	d, cat, clock, _ := scheduleDaemon(t, quickReplies)
	in := "nightly work"
	s := d.NewSchedules([]project.Schedule{{Name: "ten", Workflow: "wf", Cron: "*/10 * * * *", Timezone: "UTC", Input: &in}}, cat, nil)
	s.tick()
	assert.Empty(t, launched(t, d), "a new schedule never fires for the past")
	st := status(t, s, "ten")
	require.Len(t, st.Next, 3)
	assert.Equal(t, "2026-11-24T10:10:00Z", st.Next[0].Format(time.RFC3339))
	assert.Equal(t, "2026-11-24T10:30:00Z", st.Next[2].Format(time.RFC3339))

	clock.advance(4 * time.Minute)
	s.tick()
	assert.Empty(t, launched(t, d))
	clock.advance(time.Minute)
	s.tick()
	runs := launched(t, d)
	require.Len(t, runs, 1)
	st = status(t, s, "ten")
	require.NotNil(t, st.LastRunID)
	assert.Equal(t, runs[0].WorkflowID, *st.LastRunID)
	assert.Equal(t, "2026-11-24T10:20:00Z", st.Next[0].Format(time.RFC3339))
	waitStatus(t, d, runs[0].WorkflowID, state.StatusCompleted)
	require.NotNil(t, runs[0].Options.Input)
	assert.Equal(t, in, *runs[0].Options.Input)
	s.tick()
	assert.Len(t, launched(t, d), 1, "a fire time fires once")
}

func TestScheduleMissedAcrossARestart(t *testing.T) {
	for _, tt := range []struct {
		missed  string
		runs    int
		skipped int
	}{{"once", 1, 5}, {"skip", 0, 6}} {
		t.Run(tt.missed, func(t *testing.T) {
			d, cat, clock, dir := scheduleDaemon(t, quickReplies)
			cfg := []project.Schedule{{Name: "ten", Workflow: "wf", Cron: "*/10 * * * *", Timezone: "UTC", Missed: tt.missed}}
			d.NewSchedules(cfg, cat, nil).tick()
			// Down from 10:05 to 11:05: six fire times passed.
			clock.advance(time.Hour)
			s := d.NewSchedules(cfg, cat, nil)
			s.tick()
			s.tick()
			assert.Len(t, launched(t, d), tt.runs)
			st := status(t, s, "ten")
			assert.Equal(t, tt.skipped, st.Skipped)
			assert.Equal(t, "2026-11-24T11:10:00Z", st.Next[0].Format(time.RFC3339))
			if tt.missed == "skip" {
				require.NotNil(t, st.LastSkip)
				assert.Equal(t, "6 fire times missed while the daemon was not running (missed = skip)", st.LastSkip.Reason)
			}
			// And a third start fires nothing more.
			d.NewSchedules(cfg, cat, nil).tick()
			assert.Len(t, launched(t, d), tt.runs)
			data, err := os.ReadFile(filepath.Join(dir, ".raymond", ScheduleFile))
			require.NoError(t, err)
			var f scheduleFile
			require.NoError(t, json.Unmarshal(data, &f))
			assert.Equal(t, "2026-11-24T11:00:00Z", f.Schedules["ten"].Mark.UTC().Format(time.RFC3339))
		})
	}
}

func TestScheduleOverlap(t *testing.T) {
	replies := "replies:\n  START.md:\n    - text: \"<result>done</result>\"\n      wait_for: release\n      repeat: true\n"
	for _, overlap := range []string{"skip", "allow"} {
		t.Run(overlap, func(t *testing.T) {
			d, cat, clock, dir := scheduleDaemon(t, replies)
			s := d.NewSchedules([]project.Schedule{{Name: "ten", Workflow: "wf", Cron: "*/10 * * * *", Overlap: overlap}}, cat, nil)
			s.tick()
			clock.advance(5 * time.Minute)
			s.tick()
			require.Len(t, launched(t, d), 1)
			first := *status(t, s, "ten").LastRunID
			clock.advance(10 * time.Minute)
			s.tick()
			if overlap == "allow" {
				assert.Len(t, launched(t, d), 2)
				require.NoError(t, os.WriteFile(filepath.Join(dir, "release"), nil, 0o644))
				return
			}
			assert.Len(t, launched(t, d), 1, "no second run while the first goes on")
			st := status(t, s, "ten")
			assert.Equal(t, 1, st.Skipped)
			require.NotNil(t, st.LastSkip)
			assert.Contains(t, st.LastSkip.Reason, "run "+first+" of the previous fire is still going")
			require.NoError(t, os.WriteFile(filepath.Join(dir, "release"), nil, 0o644))
			waitStatus(t, d, first, state.StatusCompleted)
			clock.advance(10 * time.Minute)
			s.tick()
			assert.Len(t, launched(t, d), 2, "the next fire after the run ended launches")
		})
	}
}

func TestManifestSchedules(t *testing.T) {
	d, cat, _, _ := scheduleDaemon(t, quickReplies)
	daily := "@daily"
	cat.wfs[0].Schedule = &workflow.ManifestSchedule{Cron: daily, Timezone: "Europe/Paris"}
	cat.wfs = append(cat.wfs,
		catalog.Workflow{ID: "broken", Usable: true, Schedule: &workflow.ManifestSchedule{Cron: "0 3 * *"}},
		catalog.Workflow{ID: "same", Usable: true, Schedule: &workflow.ManifestSchedule{Name: "wf", Cron: daily}},
		catalog.Workflow{ID: "needs", Usable: true, Input: catalog.Input{Mode: "required"}, Schedule: &workflow.ManifestSchedule{Cron: daily}})
	s := d.NewSchedules(nil, cat, nil)
	list := s.List()
	require.Len(t, list, 4)
	byName := map[string]ScheduleStatus{}
	for _, st := range list {
		byName[st.Name+"/"+st.Workflow] = st
	}
	ok := byName["wf/wf"]
	assert.Equal(t, "manifest", ok.Source)
	assert.Empty(t, ok.Error)
	require.Len(t, ok.Next, 3)
	assert.Equal(t, "2026-11-25T00:00:00+01:00", ok.Next[0].Format(time.RFC3339), "midnight in Paris, shown in Paris")
	assert.Contains(t, byName["broken/broken"].Error, `schedule.cron "0 3 * *"`)
	assert.Empty(t, byName["broken/broken"].Next)
	assert.Contains(t, byName["wf/same"].Error, `another schedule is named "wf"`)
	assert.Contains(t, byName["needs/needs"].Error, "needs an input")
}

func TestCheckSchedule(t *testing.T) {
	cat := &fakeCatalog{wfs: []catalog.Workflow{{ID: "nightly"}, {ID: "quiet", Input: catalog.Input{Mode: "none"}}}}
	err := CheckSchedule(project.Schedule{Name: "n", Workflow: "nigthly"}, cat)
	assert.EqualError(t, err, `[[serve.schedule]] "n": no workflow "nigthly" under the daemon's roots (did you mean "nightly"?)`)
	in := "x"
	err = CheckSchedule(project.Schedule{Name: "q", Workflow: "quiet", Input: &in}, cat)
	assert.EqualError(t, err, `[[serve.schedule]] "q": workflow quiet takes no input: leave input out`)
	assert.NoError(t, CheckSchedule(project.Schedule{Name: "n", Workflow: "nightly"}, cat))
}

// Run fires as the clock moves, and ends with its context.
func TestScheduleRun(t *testing.T) {
	d, cat, clock, _ := scheduleDaemon(t, quickReplies)
	s := d.NewSchedules([]project.Schedule{{Name: "ten", Workflow: "wf", Cron: "*/10 * * * *"}}, cat, nil)
	changed := s.Changed()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	// The first look at the clock is written down before it moves.
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(d.dir, ScheduleFile))
		return err == nil
	}, 10*time.Second, time.Millisecond)
	clock.advance(5 * time.Minute)
	<-changed
	require.Len(t, launched(t, d), 1)
	cancel()
	wg.Wait()
}
