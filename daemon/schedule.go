package daemon

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robfig/cron/v3"

	"raymond/catalog"
	"raymond/internal/spelling"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/state"
)

// ScheduleFile keeps, in the project's .raymond folder, what the daemon's
// schedules did: the last fire time each handled, the run it launched, the
// fires it skipped. A restart reads it back, so it neither loses a
// schedule's place nor fires a missed time twice.
const ScheduleFile = "serve-schedules.json"

// onTime is how late a fire time may be handled and still count as on
// time rather than missed: the daemon woke late, or started just after it.
const onTime = time.Minute

// maxWait is the longest the schedules sleep before they look at the clock
// again, so that a clock that jumps (a suspended machine) is followed.
const maxWait = time.Minute

// Catalog is what schedules and hooks need of the workflows a daemon
// offers (a *catalog.Catalog).
type Catalog interface {
	List() []catalog.Workflow
	Get(id string) (catalog.Workflow, bool)
	Changed() <-chan struct{}
}

// Schedules launches workflows at the times of their schedules: the
// config's [[serve.schedule]] entries and the schedule: of each workflow's
// manifest. Run drives it; the other methods are safe for concurrent use.
type Schedules struct {
	d      *Daemon
	clock  orchestrator.Clock
	cat    Catalog
	config []project.Schedule
	path   string
	note   *notifier

	mu    sync.Mutex
	list  []*schedule               // config first, then manifests by workflow id
	state map[string]*scheduleState // by name, as ScheduleFile holds it
}

// schedule is one schedule as the daemon keeps it.
type schedule struct {
	project.Schedule
	source string        // "config" or "manifest"
	every  cron.Schedule // nil when err is set
	loc    *time.Location
	err    string // why it cannot fire
}

// scheduleState is what ScheduleFile holds of one schedule.
type scheduleState struct {
	// Mark is the last fire time handled (fired, skipped or missed); the
	// next fire time comes after it. A new schedule's mark is when the
	// daemon first saw it.
	Mark time.Time `json:"mark"`
	// LastFire is when it last launched a run, LastRun that run.
	LastFire *time.Time `json:"last_fire,omitempty"`
	LastRun  string     `json:"last_run_id,omitempty"`
	// Skipped counts the fire times that launched nothing; LastSkip says
	// the last one's reason.
	Skipped  int        `json:"skipped"`
	LastSkip *SkipEvent `json:"last_skip,omitempty"`
}

// SkipEvent is a fire time that launched nothing, and why.
type SkipEvent struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// ScheduleStatus is one schedule as GET /api/v1/schedules shows it.
type ScheduleStatus struct {
	Name string `json:"name"`
	// Source is "config" ([[serve.schedule]]) or "manifest" (the
	// workflow's schedule:).
	Source   string   `json:"source"`
	Workflow string   `json:"workflow"`
	Cron     string   `json:"cron"`
	Timezone string   `json:"timezone"`
	Missed   string   `json:"missed"`
	Overlap  string   `json:"overlap"`
	Input    *string  `json:"input"`
	Budget   *float64 `json:"budget"`
	// Next are its next three fire times, in its time zone; empty when it
	// cannot fire.
	Next      []time.Time `json:"next"`
	LastFire  *time.Time  `json:"last_fire"`
	LastRunID *string     `json:"last_run_id"`
	Skipped   int         `json:"skipped"`
	LastSkip  *SkipEvent  `json:"last_skip"`
	// Error says why it does not fire (a bad cron in a manifest, a
	// workflow that is gone); "" when it does.
	Error string `json:"error"`
}

// NewSchedules returns the schedules of the daemon: config are the
// config's, and the catalog gives the workflows and their manifests'.
// clock is the time they fire by (nil: the daemon's). It reads what
// ScheduleFile kept. Nothing fires until Run.
func (d *Daemon) NewSchedules(config []project.Schedule, cat Catalog, clock orchestrator.Clock) *Schedules {
	if clock == nil {
		clock = d.clock
	}
	s := &Schedules{d: d, clock: clock, cat: cat, config: config, path: filepath.Join(d.dir, ScheduleFile),
		note: newNotifier(), state: make(map[string]*scheduleState)}
	if data, err := os.ReadFile(s.path); err == nil {
		var f scheduleFile
		if err := json.Unmarshal(data, &f); err != nil {
			d.log.Warn("cannot read the schedules' state; each schedule starts afresh from now", "file", s.path, "err", err)
		}
		for name, st := range f.Schedules {
			if st != nil {
				s.state[name] = st
			}
		}
	}
	s.reload()
	return s
}

// scheduleFile is ScheduleFile's content.
type scheduleFile struct {
	Schedules map[string]*scheduleState `json:"schedules"`
}

// CheckSchedule says what is wrong with a config's schedule for the
// workflows of cat: a workflow it does not list, or an input its manifest
// refuses. The error names the schedule; the caller names the file.
func CheckSchedule(c project.Schedule, cat Catalog) error {
	wf, ok := cat.Get(c.Workflow)
	if !ok {
		return fmt.Errorf("[[serve.schedule]] %q: %s", c.Name, noWorkflow(cat, c.Workflow))
	}
	if msg := inputProblem(wf, c.Input); msg != "" {
		return fmt.Errorf("[[serve.schedule]] %q: %s", c.Name, msg)
	}
	return nil
}

// noWorkflow says that the catalog has no workflow id, and which it may
// have meant.
func noWorkflow(cat Catalog, id string) string {
	var ids []string
	for _, w := range cat.List() {
		ids = append(ids, w.ID)
	}
	msg := fmt.Sprintf("no workflow %q under the daemon's roots", id)
	if near := spelling.Suggest(id, ids); near != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", near)
	}
	if len(ids) > 0 {
		return msg + "; the workflows are " + strings.Join(ids, ", ")
	}
	return msg
}

// inputProblem says what is wrong with input for wf's manifest, "" when
// nothing is.
func inputProblem(wf catalog.Workflow, input *string) string {
	switch wf.Input.Mode {
	case "required":
		if input == nil || strings.TrimSpace(*input) == "" {
			return fmt.Sprintf("workflow %s needs an input: give input = \"…\"", wf.ID)
		}
	case "none":
		if input != nil && *input != "" {
			return fmt.Sprintf("workflow %s takes no input: leave input out", wf.ID)
		}
	}
	return ""
}

// reload rebuilds the list from the config and the catalog's manifests.
func (s *Schedules) reload() {
	var list []*schedule
	names := make(map[string]bool)
	for _, c := range s.config {
		list = append(list, newSchedule(c, "config"))
		names[c.Name] = true
	}
	wfs := s.cat.List()
	// A workflow's schedule is named for it unless it says otherwise: those
	// that say otherwise come last, and are the ones refused on a clash.
	named := func(w catalog.Workflow) bool { return w.Schedule != nil && w.Schedule.Name != "" }
	slices.SortFunc(wfs, func(a, b catalog.Workflow) int {
		if named(a) != named(b) {
			if named(a) {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.ID, b.ID)
	})
	for _, wf := range wfs {
		m := wf.Schedule
		if m == nil {
			continue
		}
		c := project.Schedule{Name: cmp.Or(m.Name, wf.ID), Workflow: wf.ID, Cron: m.Cron, Timezone: m.Timezone,
			Missed: m.Missed, Overlap: m.Overlap, Input: m.Input, Budget: m.Budget}
		sc := newSchedule(c, "manifest")
		switch {
		case names[c.Name]:
			sc.err = fmt.Sprintf("another schedule is named %q: give this one its own name (schedule: name: …)", c.Name)
		case sc.err != "":
		case !wf.Usable:
			sc.err = fmt.Sprintf("workflow %s has lint errors (raymond lint %s)", wf.ID, wf.Path)
		default:
			if msg := inputProblem(wf, c.Input); msg != "" {
				sc.err = msg
			}
		}
		names[c.Name] = true
		list = append(list, sc)
	}
	s.mu.Lock()
	s.list = list
	s.mu.Unlock()
}

func newSchedule(c project.Schedule, source string) *schedule {
	c.Missed = cmp.Or(c.Missed, project.MissedSkip)
	c.Overlap = cmp.Or(c.Overlap, project.OverlapSkip)
	sc := &schedule{Schedule: c, source: source}
	if key, err := c.Check(); err != nil {
		sc.err = fmt.Sprintf("schedule.%v (fix %s)", err, key)
		return sc
	}
	sc.loc, _ = project.ParseTimezone(c.Timezone)
	sc.every, _ = project.ParseCron(c.Cron, c.Timezone)
	return sc
}

// Changed returns a channel closed at the next change of the schedules.
func (s *Schedules) Changed() <-chan struct{} { return s.note.Changed() }

// List returns every schedule, config's first.
func (s *Schedules) List() []ScheduleStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	out := make([]ScheduleStatus, 0, len(s.list))
	for _, sc := range s.list {
		st := ScheduleStatus{Name: sc.Name, Source: sc.source, Workflow: sc.Workflow, Cron: sc.Cron,
			Timezone: cmp.Or(sc.Timezone, "Local"), Missed: sc.Missed, Overlap: sc.Overlap, Input: sc.Input, Budget: sc.Budget,
			Next: []time.Time{}, Error: sc.err}
		if k := s.state[sc.Name]; k != nil {
			st.LastFire, st.Skipped, st.LastSkip = k.LastFire, k.Skipped, k.LastSkip
			if k.LastRun != "" {
				id := k.LastRun
				st.LastRunID = &id
			}
		}
		if sc.every != nil {
			t := now
			if k := s.state[sc.Name]; k != nil && k.Mark.Before(t) {
				t = k.Mark
			}
			for range 3 {
				t = sc.every.Next(t)
				st.Next = append(st.Next, t.In(sc.loc))
			}
		}
		out = append(out, st)
	}
	return out
}

// Run fires the schedules until ctx ends.
func (s *Schedules) Run(ctx context.Context) {
	changed := s.cat.Changed()
	for {
		if s.d.Stopping() {
			return // it launches nothing more: the next start handles what comes
		}
		next := s.tick()
		wait := maxWait
		if !next.IsZero() {
			wait = min(max(next.Sub(s.clock.Now()), 0), maxWait)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
			changed = s.cat.Changed()
			s.reload()
			s.note.Notify()
		case <-s.clock.After(wait):
		}
	}
}

// tick handles every fire time that has come, and returns the next one
// (zero for none).
func (s *Schedules) tick() time.Time {
	now := s.clock.Now()
	s.mu.Lock()
	list := slices.Clone(s.list)
	s.mu.Unlock()
	var next time.Time
	for _, sc := range list {
		if sc.every == nil {
			continue
		}
		if n := s.handle(sc, now); next.IsZero() || n.Before(next) {
			next = n
		}
	}
	return next
}

// handle fires sc when a fire time of it has come by now, and returns its
// next fire time.
func (s *Schedules) handle(sc *schedule, now time.Time) time.Time {
	s.mu.Lock()
	st := s.state[sc.Name]
	if st == nil {
		// New: it fires from now on, never for the past.
		st = &scheduleState{Mark: now}
		s.state[sc.Name] = st
		s.saveLocked()
		s.mu.Unlock()
		return sc.every.Next(now)
	}
	due := sc.every.Next(st.Mark)
	if due.After(now) {
		s.mu.Unlock()
		return due
	}
	// Every fire time that has come: the last one decides.
	latest, n := due, 1
	for ; n < 100000; n++ {
		t := sc.every.Next(latest)
		if t.After(now) {
			break
		}
		latest = t
	}
	before := *st
	st.Mark = latest
	late := now.Sub(latest) > onTime
	var reason string
	switch {
	case late && sc.Missed == project.MissedSkip:
		reason = fmt.Sprintf("%s missed while the daemon was not running (missed = skip)", times(n))
	case sc.Overlap != project.OverlapAllow && st.LastRun != "" && s.going(st.LastRun):
		r, _ := s.d.Detail(st.LastRun)
		reason = fmt.Sprintf("run %s of the previous fire is still going (%s; overlap = skip)", st.LastRun, r.Status)
		if late {
			reason = fmt.Sprintf("%s missed while the daemon was not running, and %s", times(n), reason)
		}
	}
	if reason != "" {
		s.skip(st, now, n, reason)
		s.saveLocked()
		s.mu.Unlock()
		s.d.log.Info("schedule skipped", "schedule", sc.Name, "reason", reason)
		s.note.Notify()
		return sc.every.Next(latest)
	}
	// Written before the launch: a crash between the two loses this fire
	// rather than firing it again at the next start.
	s.saveLocked()
	s.mu.Unlock()
	run, err := s.launch(sc)
	s.mu.Lock()
	switch {
	case errors.Is(err, ErrClosing):
		// The daemon stops: the next start handles this time as missed.
		*st = before
		s.saveLocked()
	case err != nil && run == nil:
		s.skip(st, now, 1, fmt.Sprintf("the launch failed: %v", err))
		s.saveLocked()
		s.d.log.Error("schedule could not launch its workflow", "schedule", sc.Name, "err", err)
	default:
		t := now
		st.LastFire, st.LastRun = &t, run.WorkflowID
		if late {
			st.LastSkip = nil
			s.skip(st, now, n-1, "")
		}
		s.saveLocked()
		s.d.log.Info("schedule launched a run", "schedule", sc.Name, "run", run.WorkflowID, "missed", n-1)
	}
	s.mu.Unlock()
	s.note.Notify()
	return sc.every.Next(latest)
}

// skip counts n fire times that launched nothing, for reason ("" keeps
// the last reason).
func (s *Schedules) skip(st *scheduleState, now time.Time, n int, reason string) {
	st.Skipped += n
	if reason != "" {
		st.LastSkip = &SkipEvent{At: now, Reason: reason}
	}
}

func times(n int) string {
	if n == 1 {
		return "1 fire time"
	}
	return fmt.Sprintf("%d fire times", n)
}

// going says whether run id has not ended.
func (s *Schedules) going(id string) bool {
	if s.d.Driving(id) {
		return true
	}
	r, err := s.d.Detail(id) // the file, fresher than the index
	return err == nil && !project.Ended(r.Status)
}

// launch starts a run of sc's workflow.
func (s *Schedules) launch(sc *schedule) (*state.Run, error) {
	wf, ok := s.cat.Get(sc.Workflow)
	if !ok {
		return nil, errorf(ErrNotFound, "%s", noWorkflow(s.cat, sc.Workflow))
	}
	return s.d.Launch(Launch{Workflow: wf.Path, Input: sc.Input, Budget: sc.Budget})
}

// saveLocked writes ScheduleFile; s.mu is held.
func (s *Schedules) saveLocked() {
	data, err := json.MarshalIndent(scheduleFile{Schedules: s.state}, "", "  ")
	if err == nil {
		err = writeFileAtomic(s.path, append(data, '\n'))
	}
	if err != nil {
		s.d.health.failed("write the schedules' state", err)
		s.d.log.Error("cannot write the schedules' state", "file", s.path, "err", err)
	}
}
