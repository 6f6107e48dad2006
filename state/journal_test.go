package state

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallFloor makes journals compact once they outgrow their snapshot, however
// small, for the rest of the test. Tests that call it must not run in
// parallel.
func smallFloor(t *testing.T, floor int64) {
	saved := compactFloor
	t.Cleanup(func() { compactFloor = saved })
	compactFloor = floor
}

// requireOnDisk fails unless Read returns want, compared as JSON: every
// field, UpdatedAt, Version and Gen included.
func requireOnDisk(t *testing.T, s *Store, want *Run, msgAndArgs ...any) {
	t.Helper()
	got, err := s.Read(want.WorkflowID)
	require.NoError(t, err, msgAndArgs...)
	require.JSONEq(t, jsonOf(t, want), jsonOf(t, got), msgAndArgs...)
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// startRun creates run id with agent main and starts its journal.
func startRun(t *testing.T, s *Store, id string) (*Run, *Journal) {
	t.Helper()
	r := &Run{WorkflowID: id, ScopeDir: "/p/wf", EntryState: "START.md", Status: StatusCreated,
		Agents: []Agent{{ID: "main", CurrentState: "START.md", Status: AgentReady, Cwd: "/p"}}}
	require.NoError(t, s.Create(r))
	r, err := s.Read(id)
	require.NoError(t, err)
	j, err := s.Journal(r)
	require.NoError(t, err)
	t.Cleanup(func() { _ = j.Close() })
	return r, j
}

// crash ends j the way a driver that dies does: its files stay as they are.
func crash(t *testing.T, j *Journal) {
	t.Helper()
	require.NoError(t, j.f.Close())
	j.f = nil
}

// mutate changes r the way a driver does between two saves, and returns the
// agents to save: every agent it changed, in any order, maybe twice.
func mutate(rng *rand.Rand, r *Run) []string {
	switch rng.IntN(7) {
	case 0, 1: // fork
		r.NextAgentSeq++
		id := fmt.Sprintf("main_w%d", r.NextAgentSeq)
		r.Agents = append(r.Agents, Agent{
			ID: id, CurrentState: "WORKER.md", Cwd: "/p", Status: AgentReady, Parent: "main",
			Stack: []Frame{{Session: "s-main", Ref: Ref{State: "JOIN.md"}, Cwd: "/p"}},
			Pending: &Step{Ref: Ref{State: "WORKER.md"}, Mode: SessionBranch, ResumeSession: "s-main", SessionID: id + "-1",
				Vars: map[string]string{"item": id}, Cwd: "/p", Attempt: 1},
		})
		return []string{id, "main"}
	case 2: // some agents step
		var ids []string
		for range 1 + rng.IntN(3) {
			a := &r.Agents[rng.IntN(len(r.Agents))]
			a.Steps++
			a.SessionID = fmt.Sprintf("%s-%d", a.ID, a.Steps)
			switch rng.IntN(3) {
			case 0:
				a.Status, a.Pending, a.Result = AgentCompleted, nil, ptr(fmt.Sprintf("done %d", a.Steps))
			case 1:
				a.Status, a.LastError, a.Attempts = AgentFailed, "no result line", a.Attempts+1
			default:
				a.Status = AgentRunning
				a.Pending = &Step{Ref: Ref{State: "NEXT.md"}, Mode: SessionResume, ResumeSession: a.SessionID, Cwd: a.Cwd, Attempt: 1, Input: ptr("go on")}
			}
			ids = append(ids, a.ID)
		}
		return ids
	case 3: // a session's cost
		if r.SessionCosts == nil {
			r.SessionCosts = map[string]float64{}
		}
		a := r.Agents[rng.IntN(len(r.Agents))]
		cost := rng.Float64()
		r.SessionCosts[a.ID+"-s"] = cost
		r.TotalCostUSD += cost
		return nil
	case 4: // the header
		r.Status = []Status{StatusRunning, StatusWaiting, StatusPaused}[rng.IntN(3)]
		r.Error = fmt.Sprintf("error %d", rng.IntN(100))
		r.Warned = append(r.Warned, "warning")
		r.Options.Model = []string{"", "opus", "sonnet"}[rng.IntN(3)]
		if r.Wait == nil {
			r.Wait = &Wait{Reason: "usage limit"}
		} else {
			r.Wait = nil
		}
		return nil
	case 5: // calls and results: the stack grows and shrinks
		a := &r.Agents[rng.IntN(len(r.Agents))]
		if n := len(a.Stack); n > 0 && rng.IntN(3) == 0 {
			a.Stack = a.Stack[:n-1-rng.IntN(n)]
		} else {
			for range 1 + rng.IntN(3) {
				a.Stack = append(a.Stack, Frame{Session: fmt.Sprintf("s%d", rng.IntN(1000)), Ref: Ref{State: "RET.md"}, Cwd: "/p"})
			}
		}
		return []string{a.ID}
	default: // main, twice
		r.Agents[0].Steps++
		return []string{"main", "main"}
	}
}

// TestJournalRoundTrip saves random sequences of changes, with compactions,
// restarts and crashes among them: after every Save, Read returns the run as
// it is in memory.
func TestJournalRoundTrip(t *testing.T) {
	smallFloor(t, 2<<10)
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 42))
			s := openStore(t)
			r, j := startRun(t, s, "prop")
			compactions, restarts := 0, 0
			for i := range 150 {
				ids := mutate(rng, r)
				rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
				gen := j.gen
				require.NoError(t, j.Save(r, ids...), "save %d", i)
				if j.gen != gen {
					compactions++
				}
				requireOnDisk(t, s, r, "after save %d", i)

				switch rng.IntN(25) {
				case 0: // the driver ends and a resume starts
					require.NoError(t, j.Close())
					require.Equal(t, []string{"prop.json"}, dirNames(t, s.Dir))
				case 1:
					crash(t, j)
				default:
					continue
				}
				restarts++
				requireOnDisk(t, s, r, "after restart %d", i)
				var err error
				r, err = s.Read("prop")
				require.NoError(t, err)
				j, err = s.Journal(r)
				require.NoError(t, err)
			}
			require.NoError(t, j.Close())
			requireOnDisk(t, s, r, "after close")
			t.Logf("%d agents, %d compactions, %d restarts", len(r.Agents), compactions, restarts)
			assert.Positive(t, compactions, "the sequence never compacted")
		})
	}
}

func TestJournalAgentOrder(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "order")
	r.Agents = append(r.Agents, Agent{ID: "main_a"}, Agent{ID: "main_b"}, Agent{ID: "main_c"})
	require.NoError(t, j.Save(r, "main_c", "main_a", "main_b", "main_a"))
	got, err := s.Read("order")
	require.NoError(t, err)
	assert.Equal(t, []string{"main", "main_a", "main_b", "main_c"}, agentIDs(got))
}

func agentIDs(r *Run) []string {
	var ids []string
	for _, a := range r.Agents {
		ids = append(ids, a.ID)
	}
	return ids
}

func TestJournalSaveRefuses(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "refuse")
	before := jsonOf(t, r)

	r.Status = StatusRunning
	err := j.Save(r, "main", "nobody")
	require.EqualError(t, err, `save run refuse: it has no agent "nobody"`)
	err = j.Save(&Run{WorkflowID: "other"})
	require.EqualError(t, err, "save run refuse: the journal is run refuse's, not run other's")
	fi, err := os.Stat(s.journalPath("refuse"))
	require.NoError(t, err)
	assert.Zero(t, fi.Size(), "a refused save wrote to the journal")
	got, err := s.Read("refuse")
	require.NoError(t, err)
	assert.JSONEq(t, before, jsonOf(t, got))

	require.NoError(t, j.Close())
	require.NoError(t, j.Close(), "a second close")
	require.EqualError(t, j.Save(r), "save run refuse: its journal is closed")
}

func TestJournalClose(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "end")
	r.Agents[0].Status = AgentRunning
	require.NoError(t, j.Save(r, "main"))
	// Close writes the run as it is, unsaved changes too.
	r.Status, r.Result = StatusCompleted, ptr("all done")
	gen := r.Gen
	require.NoError(t, j.Close())

	assert.Equal(t, []string{"end.json"}, dirNames(t, s.Dir))
	assert.Equal(t, gen+1, r.Gen)
	data, err := os.ReadFile(s.Path("end"))
	require.NoError(t, err)
	assert.JSONEq(t, jsonOf(t, r), string(data), "the state file alone holds the run")
}

// TestJournalStartsEmpty: a journal left by a driver that died is in the
// snapshot Journal writes, and then truncated.
func TestJournalStartsEmpty(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "again")
	r.Status = StatusRunning
	require.NoError(t, j.Save(r))
	crash(t, j)

	r, err := s.Read("again")
	require.NoError(t, err)
	require.Equal(t, StatusRunning, r.Status)
	gen := r.Gen
	j, err = s.Journal(r)
	require.NoError(t, err)
	defer j.Close()
	assert.Equal(t, gen+1, r.Gen)
	fi, err := os.Stat(s.journalPath("again"))
	require.NoError(t, err)
	assert.Zero(t, fi.Size())
	requireOnDisk(t, s, r)
}

// TestWriteDropsJournal: Write makes the journal stale and removes it.
func TestWriteDropsJournal(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "rewrite")
	r.Status = StatusPaused
	require.NoError(t, j.Save(r))
	crash(t, j)
	r.Status = StatusFailed
	require.NoError(t, s.Write(r))
	assert.Equal(t, []string{"rewrite.json"}, dirNames(t, s.Dir))
	requireOnDisk(t, s, r)
}

// TestCreateDropsOrphanJournal: a journal whose state file was deleted does
// not leak into a new run of the same id.
func TestCreateDropsOrphanJournal(t *testing.T) {
	s := openStore(t)
	orphan := `{"gen":1,"header":{"status":"failed"},"agents":[{"id":"ghost"}]}` + "\n"
	require.NoError(t, os.WriteFile(s.journalPath("re"), []byte(orphan), 0o600))
	r := &Run{WorkflowID: "re", Status: StatusCreated}
	require.NoError(t, s.Create(r))
	assert.Equal(t, []string{"re.json"}, dirNames(t, s.Dir))
	requireOnDisk(t, s, r)
}

func TestJournalStartFullDisk(t *testing.T) {
	s := openStore(t)
	r := &Run{WorkflowID: "full", Status: StatusCreated}
	require.NoError(t, s.Create(r))
	before := jsonOf(t, r)
	fullDisk(t, "write")
	_, err := s.Journal(r)
	wantErr(t, err, "start journal of run full", "no space left")
	assert.Equal(t, []string{"full.json"}, dirNames(t, s.Dir))
	got, err := s.Read("full")
	require.NoError(t, err)
	assert.JSONEq(t, before, jsonOf(t, got))
}

func TestJournalFanoutSmoke(t *testing.T) {
	s := openStore(t)
	var bytes int64
	countWrites(t, &bytes, false)
	_, final := fanout(t, s, 50)
	assert.Greater(t, bytes, final)
	got, err := s.Read("fanout")
	require.NoError(t, err)
	assert.Len(t, got.Agents, 51)
	assert.Equal(t, StatusCompleted, got.Status)
	assert.True(t, slices.ContainsFunc(got.Agents, func(a Agent) bool { return a.Status == AgentCompleted }))
}

// TestJournalCommitRoundTrip is TestJournalRoundTrip through Commit, told
// the session costs that changed: Read still returns the run as it is in
// memory.
func TestJournalCommitRoundTrip(t *testing.T) {
	smallFloor(t, 2<<10)
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 43))
			s := openStore(t)
			r, j := startRun(t, s, "prop")
			for i := range 150 {
				costs := maps.Clone(r.SessionCosts)
				ids := mutate(rng, r)
				var sessions []string
				for k, v := range r.SessionCosts {
					if old, ok := costs[k]; !ok || old != v {
						sessions = append(sessions, k)
					}
				}
				require.NoError(t, j.Commit(r, Change{Agents: ids, Sessions: sessions}), "commit %d", i)
				requireOnDisk(t, s, r, "after commit %d", i)
				if rng.IntN(25) == 0 {
					crash(t, j)
					var err error
					r, err = s.Read("prop")
					require.NoError(t, err)
					j, err = s.Journal(r)
					require.NoError(t, err)
				}
			}
			require.NoError(t, j.Close())
			requireOnDisk(t, s, r, "after close")
		})
	}
}

// TestJournalCommitNamesSessions: Commit writes the session costs it is
// told of, and those only.
func TestJournalCommitNamesSessions(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "named")
	r.SessionCosts = map[string]float64{"s1": 0.5, "s2": 0.25}
	require.NoError(t, j.Commit(r, Change{Sessions: []string{"s1", "gone"}}))
	got, err := s.Read("named")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"s1": 0.5}, got.SessionCosts)
	require.NoError(t, j.Commit(r, Change{Sessions: []string{"s2"}}))
	requireOnDisk(t, s, r)
}

// Issue 9 item 6: saving an agent with a deep stack writes what changed in
// the stack, not the whole stack again: a recursion's writes do not grow
// with its depth, and Read still gives every frame.
func TestJournalStackWritesDoNotGrowWithDepth(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "deep")
	a := &r.Agents[0]
	var sizes []int64
	for depth := 1; depth <= 200; depth++ {
		a.Stack = append(a.Stack, Frame{Session: fmt.Sprintf("session-%04d", depth), Ref: Ref{State: "RET.md"}, Cwd: "/p/work"})
		a.Steps++
		before := j.size
		require.NoError(t, j.Save(r, "main"))
		if j.size > before { // not a compaction
			sizes = append(sizes, j.size-before)
		}
		if depth%50 == 0 {
			requireOnDisk(t, s, r, "depth %d", depth)
		}
	}
	require.Greater(t, len(sizes), 100)
	slices.Sort(sizes)
	assert.Less(t, sizes[len(sizes)-1], sizes[0]+200, "a line at depth 200 is about as long as one at depth 2")
	// Pops, and a push after them, read back too.
	a.Stack = a.Stack[:120]
	require.NoError(t, j.Save(r, "main"))
	a.Stack = append(a.Stack, Frame{Session: "again", Ref: Ref{State: "X.md"}, Cwd: "/p"})
	require.NoError(t, j.Save(r, "main"))
	requireOnDisk(t, s, r)
	crash(t, j)
	requireOnDisk(t, s, r, "after a crash, from the snapshot and the journal")
}
