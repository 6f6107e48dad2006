package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"
)

// compactFloor is the journal size up to which Save never compacts, however
// small the snapshot; a variable so that tests can compact often.
var compactFloor int64 = 64 << 10

// Journal persists a run that a process drives, one transition at a time,
// without rewriting the whole state file each time: Save appends a line with
// what changed to <id>.journal, and compacts now and then (see the package
// comment). It is got from Store.Journal and ended with Close. A Journal is
// not safe for concurrent use: the run's driver owns it.
type Journal struct {
	// SyncEach fsyncs every line before Save returns. Without it a line is
	// written (it survives a crash of raymond) but not synced (an operating
	// system crash may lose the last lines: the steps they recorded run
	// again, which the protocol's at-least-once rule already allows).
	// Snapshots are always synced. Off by default: an fsync costs about
	// 0.3 ms, more than the rest of a step's overhead together.
	SyncEach bool

	store *Store
	id    string
	path  string
	f     journalFile // nil once closed
	run   *Run        // the run last given, which Close writes

	gen      int                        // generation of the snapshot on disk, that lines are written against
	size     int64                      // bytes of the lines acknowledged since that snapshot
	snapSize int64                      // bytes of that snapshot
	header   map[string]json.RawMessage // the header the disk holds, as header returns it
	costs    map[string]float64         // the session costs the disk holds
	stacks   map[string][]Frame         // the non-empty stacks the disk holds, by agent
	index    AgentIndex                 // the run's agents by id, for Save's picks
	// dirty is set when the journal may hold bytes past size (a failed
	// append), or the snapshot on disk is in doubt (a failed compaction):
	// Save then compacts instead of appending, until a compaction succeeds.
	dirty bool
}

// Journal starts persisting r through a journal. It is called by the process
// that holds the run's lock (Store.Lock), with the run as read: it writes r in
// full as a new generation, then starts an empty journal, truncating any old
// one (its lines are in the snapshot now, and stale). From then on the caller
// persists r only through the Journal, and ends with Journal.Close.
func (s *Store) Journal(r *Run) (*Journal, error) {
	j := &Journal{store: s, id: r.WorkflowID, path: s.journalPath(r.WorkflowID), run: r, gen: r.Gen}
	// Snapshot first: a crash before the truncation then loses nothing.
	if err := j.snapshot(r); err != nil {
		return nil, fmt.Errorf("start journal of run %s: %w", r.WorkflowID, err)
	}
	f, err := openJournal(j.path)
	if err != nil {
		return nil, fmt.Errorf("start journal of run %s: %w", r.WorkflowID, err)
	}
	// The journal's name must survive a crash, or its lines would not.
	if err := SyncDir(s.Dir); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start journal of run %s: %w", r.WorkflowID, err)
	}
	j.f = f
	return j, nil
}

// Save makes r durable as far as the changes Save is told of: r's header
// (every field but Agents and SessionCosts), the agents named (in full;
// duplicates are fine) and the session costs (entries are never removed). It
// appends to the journal one line holding the header fields and session costs
// that changed since the last save, and the agents named, then syncs it: when
// Save returns nil a reader, and a resume after a crash, sees that state. Save
// sets r's Version and UpdatedAt (and CreatedAt when zero), and Gen to the
// generation of the snapshot the line is written against; on error it leaves
// them as they were.
//
// The agents are written in their order in r.Agents, and a reader appends an
// agent it does not know yet: name a new agent in the Save that follows its
// creation, before any agent created after it. Naming an id that r does not
// have is an error.
//
// After the journal outgrows the snapshot (and 64 KiB), Save compacts: it
// writes r in full as a new generation and empties the journal. On error the
// state on disk is the one of the previous successful Save (or the state
// saved now, when only the compaction failed), and the next Save compacts.
//
// Save compares every entry of r.SessionCosts with what the disk holds,
// which takes time in proportion to the sessions of the whole run; a driver
// that knows which entries it changed calls Commit instead.
func (j *Journal) Save(r *Run, agents ...string) error {
	if err := j.save(r, agents, nil, true); err != nil {
		return fmt.Errorf("save run %s: %w", j.id, err)
	}
	return nil
}

// Change names what changed in a run since the last Commit or Save.
type Change struct {
	// Agents are the ids of the agents changed or created (in any order;
	// duplicates are fine).
	Agents []string
	// Sessions are the ids of the sessions whose entry in SessionCosts was
	// added or changed. An entry changed but not named here may not be saved.
	Sessions []string
}

// Commit is Save told which session costs changed: it saves the header, the
// agents of c and the entries of r.SessionCosts that c names, in time that
// does not grow with the run's other agents and sessions. Everything Save
// says about durability, order and errors holds for Commit.
func (j *Journal) Commit(r *Run, c Change) error {
	if err := j.save(r, c.Agents, c.Sessions, false); err != nil {
		return fmt.Errorf("save run %s: %w", j.id, err)
	}
	return nil
}

// save saves r with the agents ids; allCosts compares every session cost
// with the disk's, else only those of sessions.
func (j *Journal) save(r *Run, ids, sessions []string, allCosts bool) error {
	switch {
	case j.f == nil:
		return errors.New("its journal is closed")
	case r.WorkflowID != j.id:
		return fmt.Errorf("the journal is run %s's, not run %s's", j.id, r.WorkflowID)
	}
	agents, err := j.pick(r, ids)
	if err != nil {
		return err
	}
	j.run = r
	if j.dirty {
		return j.compact(r)
	}

	before := stampsOf(r)
	stamp(r)
	r.Gen = j.gen
	line := journalLine{Gen: j.gen, Agents: agents}
	line.Stacks = j.stackDeltas(agents)
	if allCosts {
		line.SessionCosts = j.changedCosts(r)
	} else {
		line.SessionCosts = j.namedCosts(r, sessions)
	}
	hdr, err := header(r)
	var data []byte
	if err == nil {
		line.Header, line.Unset = diffHeader(j.header, hdr)
		data, err = marshalLine(&line)
	}
	if err == nil {
		err = j.append(append(data, '\n'))
	}
	if err != nil {
		before.restore(r)
		return err
	}
	j.header = hdr
	j.wroteStacks(agents, line.Stacks)
	if j.costs == nil {
		j.costs = make(map[string]float64, len(line.SessionCosts))
	}
	maps.Copy(j.costs, line.SessionCosts)

	if j.size > max(j.snapSize, compactFloor) {
		return j.compact(r)
	}
	return nil
}

// pick returns the agents of r named by ids, once each, in their order in
// r.Agents.
func (j *Journal) pick(r *Run, ids []string) ([]Agent, error) {
	at := make([]int, 0, len(ids))
	for _, id := range ids {
		i := j.index.Find(r.Agents, id)
		if i < 0 {
			return nil, fmt.Errorf("it has no agent %q", id)
		}
		at = append(at, i)
	}
	slices.Sort(at)
	at = slices.Compact(at)
	agents := make([]Agent, len(at))
	for k, i := range at {
		agents[k] = r.Agents[i]
	}
	return agents, nil
}

// changedCosts returns the entries of r.SessionCosts that the disk does not
// hold yet, nil when there are none.
func (j *Journal) changedCosts(r *Run) map[string]float64 {
	var changed map[string]float64
	for k, v := range r.SessionCosts {
		if old, ok := j.costs[k]; ok && old == v {
			continue
		}
		if changed == nil {
			changed = make(map[string]float64)
		}
		changed[k] = v
	}
	return changed
}

// namedCosts returns the entries of r.SessionCosts among sessions that the
// disk does not hold yet, nil when there are none.
func (j *Journal) namedCosts(r *Run, sessions []string) map[string]float64 {
	var changed map[string]float64
	for _, k := range sessions {
		v, ok := r.SessionCosts[k]
		if !ok {
			continue
		}
		if old, ok := j.costs[k]; ok && old == v {
			continue
		}
		if changed == nil {
			changed = make(map[string]float64)
		}
		changed[k] = v
	}
	return changed
}

// append writes one line at the end of the journal (and syncs it with
// SyncEach). On error it
// takes back what it wrote, so that readers keep seeing the previous state,
// and marks the journal dirty: after a failed write or sync the file is not
// trusted.
func (j *Journal) append(line []byte) error {
	op := "write"
	_, err := j.f.Write(line)
	if err == nil && j.SyncEach {
		op = "sync"
		err = j.f.Sync()
	}
	if err == nil {
		j.size += int64(len(line))
		return nil
	}
	j.dirty = true
	_ = j.f.Truncate(j.size) // if this fails too, the next Save's compaction makes the tail stale
	return fmt.Errorf("%s %s: %w", op, j.path, err)
}

// compact writes r in full as a new generation, which makes every journal
// line stale, then empties the journal. A crash in between leaves a journal
// of stale lines beside a complete snapshot.
func (j *Journal) compact(r *Run) error {
	j.dirty = true // until the journal is known empty
	if err := j.snapshot(r); err != nil {
		return fmt.Errorf("compact: %w", err)
	}
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("compact: truncate %s: %w", j.path, err)
	}
	j.size, j.dirty = 0, false
	return nil
}

// snapshot writes r in full, atomically, as the generation after the one on
// disk. On error it leaves r's stamps as they were: what is on disk.
func (j *Journal) snapshot(r *Run) error {
	r.Gen = j.gen
	before := stampsOf(r)
	data, err := encode(r)
	var hdr map[string]json.RawMessage
	if err == nil {
		hdr, err = header(r)
	}
	if err == nil {
		err = replaceFile(j.store.Path(j.id), j.id, data)
	}
	if err != nil {
		before.restore(r)
		return err
	}
	j.gen, j.snapSize, j.header = r.Gen, int64(len(data)), hdr
	j.costs = maps.Clone(r.SessionCosts)
	j.stacks = make(map[string][]Frame, len(r.Agents))
	for i := range r.Agents {
		if a := &r.Agents[i]; len(a.Stack) > 0 {
			j.stacks[a.ID] = slices.Clone(a.Stack)
		}
	}
	return nil
}

// stackDeltas writes the stacks of agents as changes to what the disk
// holds: for an agent whose stack on disk is known and shares frames with
// its stack now, the line says how many frames stay and which follow, and
// the agent is written without its stack. So a save costs what changed, not
// the depth of the stack.
func (j *Journal) stackDeltas(agents []Agent) map[string]stackDelta {
	var out map[string]stackDelta
	for k := range agents {
		a := &agents[k]
		old, ok := j.stacks[a.ID]
		if !ok || len(old) == 0 {
			continue
		}
		keep := 0
		for keep < len(old) && keep < len(a.Stack) && sameFrame(&old[keep], &a.Stack[keep]) {
			keep++
		}
		if out == nil {
			out = make(map[string]stackDelta)
		}
		out[a.ID] = stackDelta{Keep: keep, Push: a.Stack[keep:]}
		a.Stack = nil // in the line, not in the run: agents are copies
	}
	return out
}

// wroteStacks records the stacks a line written with agents and deltas put
// on disk.
func (j *Journal) wroteStacks(agents []Agent, deltas map[string]stackDelta) {
	if j.stacks == nil {
		j.stacks = make(map[string][]Frame)
	}
	for k := range agents {
		a := &agents[k]
		if d, ok := deltas[a.ID]; ok {
			j.stacks[a.ID] = append(j.stacks[a.ID][:d.Keep], d.Push...)
			continue
		}
		if len(a.Stack) == 0 {
			delete(j.stacks, a.ID)
			continue
		}
		j.stacks[a.ID] = slices.Clone(a.Stack)
	}
}

// stamps are the fields of a run that a write sets, kept to undo them when
// the write fails.
type stamps struct {
	gen, version     int
	created, updated time.Time
}

func stampsOf(r *Run) stamps {
	return stamps{gen: r.Gen, version: r.Version, created: r.CreatedAt, updated: r.UpdatedAt}
}

func (s stamps) restore(r *Run) {
	r.Gen, r.Version, r.CreatedAt, r.UpdatedAt = s.gen, s.version, s.created, s.updated
}

// Close writes the run last given to Store.Journal or Save, as it is now, in
// full, then removes the journal: an ended run is one plain state file. When
// the write fails the journal stays, and a reader still sees the last saved
// state. Closing again does nothing.
func (j *Journal) Close() error {
	if j.f == nil {
		return nil
	}
	err := j.snapshot(j.run)
	cerr := j.f.Close()
	j.f = nil
	if err != nil {
		return fmt.Errorf("close journal of run %s: %w", j.id, err)
	}
	_ = os.Remove(j.path) // best effort: its lines are stale now
	if cerr != nil {
		return fmt.Errorf("close journal of run %s: %w", j.id, cerr)
	}
	return nil
}
