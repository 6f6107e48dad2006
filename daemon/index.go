package daemon

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"raymond/project"
	"raymond/state"
)

// index is the daemon's view of every run of the project: each run's
// listing row and pending asks, read once per change and shared by every
// request and every client of the event stream. It follows the state folder
// with fsnotify, so runs the command line drives show up too.
type index struct {
	store *state.Store
	log   *slog.Logger
	note  *notifier

	mu      sync.Mutex
	rows    map[string]*row
	seq     uint64
	changes []change // the latest changes, oldest first
	dirty   map[string]bool
	kick    chan struct{}
	// ping carries a watchdog's probe to the watch loop, which passes it
	// to the reader (see alive); watching says the loop runs.
	ping     chan chan struct{}
	watching atomic.Bool
}

// row is one run as the index holds it.
type row struct {
	Listing project.Listing
	Asks    []project.PendingAsk
	seq     uint64
}

// change says run ID changed (or went away) at seq.
type change struct {
	seq     uint64
	id      string
	removed bool
}

// maxChanges is how many changes the index remembers; a client further
// behind gets the whole list again.
const maxChanges = 4096

// settle is how long the index gathers changes before it reads them: a
// step's end saves the run more than once. Changes go on being gathered
// while the index waits and reads: whatever the load, a run is read at most
// once per round, and a round starts settle after the first change.
const settle = 100 * time.Millisecond

func newIndex(store *state.Store, log *slog.Logger) *index {
	return &index{store: store, log: log, note: newNotifier(), rows: make(map[string]*row),
		dirty: make(map[string]bool), kick: make(chan struct{}, 1), ping: make(chan chan struct{})}
}

// load reads every run once.
func (x *index) load() error {
	runs, err := x.store.List()
	for _, r := range runs {
		x.put(r)
	}
	return err
}

// put stores run r's row. x.mu is not held.
func (x *index) put(r *state.Run) {
	l, err := project.Describe(x.store, r)
	if err != nil {
		x.log.Warn("cannot describe run", "run", r.WorkflowID, "err", err)
		return
	}
	asks := project.NewAsking(r).Asks
	x.mu.Lock()
	x.seq++
	x.rows[r.WorkflowID] = &row{Listing: l, Asks: asks, seq: x.seq}
	x.record(change{seq: x.seq, id: r.WorkflowID})
	x.mu.Unlock()
}

// record appends a change. x.mu is held.
func (x *index) record(c change) {
	x.changes = append(x.changes, c)
	if len(x.changes) > maxChanges {
		x.changes = slices.Clone(x.changes[len(x.changes)-maxChanges/2:])
	}
}

// touch marks run id to be read again soon.
func (x *index) touch(id string) {
	x.mu.Lock()
	x.dirty[id] = true
	x.mu.Unlock()
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// watch follows the state folder until ctx ends: its loop only marks the
// runs that changed, and a reader of its own reads them in rounds, so a
// burst of changes never waits behind the reads (nor the reads behind a
// sleep per change).
func (x *index) watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	if err := w.Add(x.store.Dir); err != nil {
		return err
	}
	x.watching.Store(true)
	defer x.watching.Store(false)
	var reader sync.WaitGroup
	defer reader.Wait()
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	pings := make(chan chan struct{})
	reader.Go(func() { x.read(ctx, pings) })
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if id, ok := runOfFile(ev.Name); ok {
				x.touch(id)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			x.log.Warn("watching the state folder", "err", err)
			// Events may be lost (a queue overflow): read everything again.
			x.touchAll()
		case p := <-x.ping:
			select {
			case pings <- p:
			case <-ctx.Done():
				return nil
			}
		}
	}
}

// read reads the runs marked changed, in rounds, until ctx ends, and
// answers the pings the watch loop passes on.
func (x *index) read(ctx context.Context, pings <-chan chan struct{}) {
	check := time.NewTicker(driverCheck)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-check.C:
			x.checkDrivers()
		case p := <-pings:
			close(p)
		case <-x.kick:
			timer := time.NewTimer(settle)
			for waiting := true; waiting; {
				select {
				case <-ctx.Done():
					timer.Stop()
					return
				case p := <-pings:
					close(p)
				case <-timer.C:
					waiting = false
				}
			}
			x.flush()
		}
	}
}

// driverCheck is how often the index looks whether the other processes
// that drive runs (raymond run, resume) still hold them.
const driverCheck = time.Second

// checkDrivers reads again the runs whose driver, another process, no
// longer holds them: one killed with -9 changes no file, only drops its
// lock, and its run is interrupted (as raymond list says), not running.
func (x *index) checkDrivers() {
	self := os.Getpid()
	type driven struct {
		id  string
		pid int
	}
	var others []driven
	x.mu.Lock()
	for id, r := range x.rows {
		if p := r.Listing.DrivenBy; p != nil && *p != self {
			others = append(others, driven{id, *p})
		}
	}
	x.mu.Unlock()
	for _, o := range others {
		if pid, held, err := x.store.Holder(o.id); err == nil && (!held || pid != o.pid) {
			x.touch(o.id)
		}
	}
}

// alive says whether the watch loop and its reader answer, until ctx ends.
// Without a watch loop (it could not start: its error is logged) there is
// nothing to ask: a restart would not give it one.
func (x *index) alive(ctx context.Context) error {
	if !x.watching.Load() {
		return nil
	}
	p := make(chan struct{})
	select {
	case x.ping <- p:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-p:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// touchAll marks every run, and every file in the state folder, dirty.
func (x *index) touchAll() {
	entries, _ := os.ReadDir(x.store.Dir)
	x.mu.Lock()
	for id := range x.rows {
		x.dirty[id] = true
	}
	for _, e := range entries {
		if id, ok := runOfFile(e.Name()); ok {
			x.dirty[id] = true
		}
	}
	x.mu.Unlock()
	select {
	case x.kick <- struct{}{}:
	default:
	}
}

// runOfFile returns the run a state folder file belongs to.
func runOfFile(name string) (string, bool) {
	base := filepath.Base(name)
	for _, ext := range []string{".json", ".journal"} {
		if id, ok := strings.CutSuffix(base, ext); ok && state.ValidID(id) == nil {
			return id, true
		}
	}
	return "", false
}

// flush reads the dirty runs again and tells the waiters.
func (x *index) flush() {
	x.mu.Lock()
	ids := make([]string, 0, len(x.dirty))
	for id := range x.dirty {
		ids = append(ids, id)
	}
	clear(x.dirty)
	x.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	for _, id := range ids {
		r, err := x.store.Read(id)
		switch {
		case errors.Is(err, state.ErrNotFound) || errors.Is(err, os.ErrNotExist):
			x.mu.Lock()
			if _, ok := x.rows[id]; ok {
				delete(x.rows, id)
				x.seq++
				x.record(change{seq: x.seq, id: id, removed: true})
			}
			x.mu.Unlock()
		case err != nil:
			// A file caught mid-replace reads again at its next change.
			x.log.Debug("cannot read run", "run", id, "err", err)
		default:
			x.put(r)
		}
	}
	x.note.Notify()
}

// Since returns the runs changed and removed after seq, and the sequence
// number to ask from next time; full says seq was too old and ids are every
// run.
func (x *index) since(seq uint64) (changed, removed []string, next uint64, full bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	next = x.seq
	if len(x.changes) == 0 || seq+1 < x.changes[0].seq {
		if seq == x.seq {
			return nil, nil, next, false
		}
		for id := range x.rows {
			changed = append(changed, id)
		}
		return changed, nil, next, true
	}
	seen := make(map[string]bool)
	for i := len(x.changes) - 1; i >= 0 && x.changes[i].seq > seq; i-- {
		c := x.changes[i]
		if seen[c.id] {
			continue
		}
		seen[c.id] = true
		if c.removed {
			removed = append(removed, c.id)
		} else if _, ok := x.rows[c.id]; ok {
			changed = append(changed, c.id)
		}
	}
	return changed, removed, next, false
}

// get returns the row of run id.
func (x *index) get(id string) (row, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	r, ok := x.rows[id]
	if !ok {
		return row{}, false
	}
	return *r, true
}

// list returns every row, newest run first.
func (x *index) list() []row {
	x.mu.Lock()
	out := make([]row, 0, len(x.rows))
	for _, r := range x.rows {
		out = append(out, *r)
	}
	x.mu.Unlock()
	slices.SortFunc(out, func(a, b row) int {
		if c := b.Listing.CreatedAt.Compare(a.Listing.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.Listing.RunID, a.Listing.RunID)
	})
	return out
}
