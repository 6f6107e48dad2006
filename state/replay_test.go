package state

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jline returns a journal line of generation gen: the header fields in the
// JSON object hdr ("" for none), then the session costs and agents given.
func jline(t *testing.T, gen int, hdr string, costs map[string]float64, agents ...Agent) string {
	t.Helper()
	line := journalLine{Gen: gen, SessionCosts: costs, Agents: agents}
	if hdr != "" {
		require.NoError(t, json.Unmarshal([]byte(hdr), &line.Header))
	}
	data, err := json.Marshal(&line)
	require.NoError(t, err)
	return string(data) + "\n"
}

// summary shows a run as "status agent:status… cost=value…".
func summary(r *Run) string {
	parts := []string{string(r.Status)}
	if r.Error != "" {
		parts = append(parts, "error="+r.Error)
	}
	for _, a := range r.Agents {
		parts = append(parts, a.ID+":"+string(a.Status))
	}
	for _, k := range sortedKeys(r.SessionCosts) {
		parts = append(parts, fmt.Sprintf("%s=%g", k, r.SessionCosts[k]))
	}
	return strings.Join(parts, " ")
}

func sortedKeys(m map[string]float64) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestReadJournal(t *testing.T) {
	// The snapshot: generation 1, main ready, one session cost.
	snapshot := &Run{WorkflowID: "x", Status: StatusRunning,
		Agents:       []Agent{{ID: "main", Status: AgentReady}},
		SessionCosts: map[string]float64{"s-main": 1}}
	var (
		mainRunning = Agent{ID: "main", Status: AgentRunning}
		w1Ready     = Agent{ID: "w1", Status: AgentReady}
		w1Done      = Agent{ID: "w1", Status: AgentCompleted}
		w2Ready     = Agent{ID: "w2", Status: AgentReady}
	)
	first := jline(t, 1, `{"status":"waiting","error":"boom"}`, map[string]float64{"s-w1": 2}, mainRunning, w1Ready)
	second := jline(t, 1, `{"status":"paused"}`, map[string]float64{"s-main": 3}, w2Ready, w1Done)
	const (
		start      = "running main:ready s-main=1"
		afterFirst = "waiting error=boom main:running w1:ready s-main=1 s-w1=2"
	)

	tests := []struct {
		name      string
		journal   string
		want      string // summary of the run read
		wantErr   []string
		noJournal bool
	}{
		{name: "no journal", noJournal: true, want: start},
		{name: "empty journal", want: start},
		{name: "one line", journal: first, want: afterFirst},
		{name: "lines merge", journal: first + second, want: "paused error=boom main:running w1:completed w2:ready s-main=3 s-w1=2"},
		{name: "field unset", journal: first + `{"gen":1,"unset":["error"]}` + "\n", want: "waiting main:running w1:ready s-main=1 s-w1=2"},
		{name: "torn last line", journal: first + strings.TrimSuffix(second, "\n"), want: afterFirst},
		{name: "last line half written", journal: first + second[:len(second)/2], want: afterFirst},
		{name: "last line garbled", journal: first + `{"gen":1,"hea` + "\n", want: afterFirst},
		{name: "corrupt line", journal: first + "not json\n" + second, wantErr: []string{"x.journal:2 is corrupt", "invalid character"}},
		{name: "empty line", journal: first + "\n" + second, wantErr: []string{"x.journal:2 is corrupt"}},
		{name: "not an object", journal: "[1]\n" + second, wantErr: []string{"x.journal:1 is corrupt"}},
		{name: "stale lines", journal: jline(t, 0, `{"status":"failed"}`, nil, w2Ready) + first, want: afterFirst},
		{
			name:    "lines of a newer snapshot",
			journal: first + jline(t, 2, `{"status":"failed"}`, nil, w2Ready),
			want:    afterFirst, // after the retries: a state that was on disk
		},
		{name: "bad field", journal: jline(t, 1, `{"total_cost_usd":"lots"}`, nil) + first, wantErr: []string{"x.journal is corrupt", "total_cost_usd"}},
		{name: "another run", journal: first + jline(t, 1, `{"workflow_id":"y"}`, nil), wantErr: []string{"x.journal is corrupt", `holds run "y"`}},
		{name: "no version", journal: `{"gen":1,"unset":["version"]}` + "\n" + first, wantErr: []string{"x.journal is corrupt: no state version"}},
		{
			name:    "newer raymond",
			journal: jline(t, 1, fmt.Sprintf(`{"version":%d}`, Version+1), nil) + first,
			wantErr: []string{fmt.Sprintf("run x was written by a newer raymond (state version %d in", Version+1), "x.journal", "upgrade raymond"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			snap := *snapshot
			require.NoError(t, s.Write(&snap))
			require.Equal(t, 1, snap.Gen)
			if !tt.noJournal {
				require.NoError(t, os.WriteFile(s.journalPath("x"), []byte(tt.journal), 0o600))
			}
			r, err := s.Read("x")
			if tt.wantErr != nil {
				assert.Nil(t, r)
				wantErr(t, err, tt.wantErr...)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, summary(r))
			assert.Equal(t, 1, r.Gen)
		})
	}
}

// TestReadAfterCompactionCrash: a driver died between a compaction's new
// snapshot and the truncation of the journal, whose lines are now stale; and
// a journal that still holds them when new lines are appended.
func TestReadAfterCompactionCrash(t *testing.T) {
	s := openStore(t)
	r, j := startRun(t, s, "cc")
	for i := range 3 {
		r.Agents = append(r.Agents, Agent{ID: fmt.Sprintf("main_w%d", i), Status: AgentReady})
		require.NoError(t, j.Save(r, r.Agents[len(r.Agents)-1].ID))
	}
	old, err := os.ReadFile(s.journalPath("cc"))
	require.NoError(t, err)

	r.Agents[1].Status, r.Status = AgentCompleted, StatusRunning
	require.NoError(t, j.compact(r))
	require.NoError(t, os.WriteFile(s.journalPath("cc"), old, 0o600))
	requireOnDisk(t, s, r)

	r.Agents[2].Status = AgentFailed
	require.NoError(t, j.Save(r, "main_w1"))
	require.NoError(t, j.Save(r, "main_w1", "main_w2"))
	requireOnDisk(t, s, r)
}

func TestListMergesJournals(t *testing.T) {
	s := openStore(t)
	at := func(min int) time.Time { return time.Date(2026, 1, 1, 0, min, 0, 0, time.UTC) }
	require.NoError(t, s.Create(&Run{WorkflowID: "plain", CreatedAt: at(1)}))
	r := &Run{WorkflowID: "driven", CreatedAt: at(2), Status: StatusCreated, Agents: []Agent{{ID: "main"}}}
	require.NoError(t, s.Create(r))
	j, err := s.Journal(r)
	require.NoError(t, err)
	r.Status = StatusRunning
	r.Agents = append(r.Agents, Agent{ID: "main_w1", Status: AgentRunning})
	require.NoError(t, j.Save(r, "main_w1"))
	crash(t, j)
	// A journal without a state file is not a run.
	require.NoError(t, os.WriteFile(filepath.Join(s.Dir, "orphan.journal"), []byte(jline(t, 1, `{"status":"failed"}`, nil)), 0o600))
	l, err := s.Lock("driven")
	require.NoError(t, err)
	defer l.Release()

	runs, err := s.List()
	require.NoError(t, err)
	require.Equal(t, []string{"driven", "plain"}, runIDs(runs))
	assert.JSONEq(t, jsonOf(t, r), jsonOf(t, runs[0]))

	require.NoError(t, os.WriteFile(s.journalPath("plain"), []byte("junk\n"+jline(t, 1, "", nil)), 0o600))
	runs, err = s.List()
	wantErr(t, err, "plain.journal:1 is corrupt")
	assert.Equal(t, []string{"driven"}, runIDs(runs))
}

// TestReadDuringCompactions reads a run in a loop while its driver saves it
// 300 times, compacting every few saves, then closes the journal: every read
// must succeed and be a state the driver saved.
func TestReadDuringCompactions(t *testing.T) {
	smallFloor(t, 1<<10)
	s := openStore(t)
	r, j := startRun(t, s, "busy")

	const saves = 300
	done := make(chan struct{})
	var wg sync.WaitGroup
	defer wg.Wait() // a failed read must not end the test under the writer
	wg.Go(func() {
		defer close(done)
		for i := 1; i <= saves; i++ {
			if i%4 == 0 {
				r.NextAgentSeq++
				r.Agents = append(r.Agents, Agent{ID: fmt.Sprintf("main_w%d", r.NextAgentSeq), Status: AgentReady})
			}
			// Invariants of every saved state: one agent per fork plus main,
			// and the latest step numbers both an agent and the cost.
			a := &r.Agents[i%len(r.Agents)]
			a.Steps, r.TotalCostUSD = i, float64(i)
			if err := j.Save(r, a.ID, r.Agents[len(r.Agents)-1].ID); err != nil {
				t.Error(err)
				return
			}
		}
		if err := j.Close(); err != nil {
			t.Error(err)
		}
	})
	reads := 0
	for {
		select {
		case <-done:
			wg.Wait()
			require.Positive(t, reads, "the reader never read")
			requireOnDisk(t, s, r)
			t.Logf("%d reads during %d saves", reads, saves)
			return
		default:
		}
		got, err := s.Read("busy")
		require.NoError(t, err, "read %d", reads)
		require.Len(t, got.Agents, got.NextAgentSeq+1, "read %d: agents and forks disagree", reads)
		steps := 0
		for _, a := range got.Agents {
			steps = max(steps, a.Steps)
		}
		require.Equal(t, float64(steps), got.TotalCostUSD, "read %d mixes two saves", reads)
		reads++
	}
}

// FuzzReplay feeds replay arbitrary journals: it must not panic, and what it
// accepts must be a run that marshals again.
func FuzzReplay(f *testing.F) {
	f.Add([]byte(`{"gen":1,"header":{"status":"paused"},"agents":[{"id":"main","status":"running"},{"id":"w1"}],"session_costs":{"s":1}}` + "\n"))
	f.Add([]byte(`{"gen":1,"unset":["error","wait"]}` + "\n" + `{"gen":2}` + "\n" + `{"gen":1,"hea`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, journal []byte) {
		r := &Run{Version: Version, Gen: 1, WorkflowID: "x", Status: StatusRunning, Error: "e",
			Agents: []Agent{{ID: "main"}}, SessionCosts: map[string]float64{"s": 0.5}}
		if _, err := replay(r, Version, "x.journal", journal); err != nil {
			return
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatalf("replay accepted %q into a run that does not marshal: %v", journal, err)
		}
	})
}
