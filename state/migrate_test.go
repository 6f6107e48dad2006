package state

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// v1Run is a state file as raymond wrote it at state version 1: main waits in
// a call (a frame on its stack) for a worker it forked.
const v1Run = `{"version":1,"gen":4,"workflow_id":"old","scope_dir":"/p/wf","entry_state":"START.md","status":"running",` +
	`"created_at":"2026-11-24T06:00:00Z","updated_at":"2026-11-24T06:00:01Z","options":{"max_parallel":4,"timeout":"0s","debug":false},` +
	`"agents":[` +
	`{"id":"main","current_state":"SUB.md","session_id":"s-main","cwd":"/p","stack":[{"session":"s-0","state":"RET.md","cwd":"/p"}],"status":"running",` +
	`"pending":{"state":"SUB.md","mode":"resume","resume_session":"s-main","cwd":"/p","attempt":1},"steps":3,"attempts":1},` +
	`{"id":"main_w1","current_state":"WORKER.md","session_id":"","cwd":"/p","stack":[],"status":"ready",` +
	`"pending":{"state":"WORKER.md","mode":"new","session_id":"s-w1","vars":{"item":"a"},"cwd":"/p","attempt":1},"steps":0,"attempts":0,"parent":"main"}],` +
	`"total_cost_usd":0.25,"budget_usd":0,"session_costs":{"s-main":0.25},"next_agent_seq":1}` + "\n"

// v1Journal holds lines written against v1Run's snapshot: main returns from
// its call, the worker starts, and a new worker appears.
const v1Journal = `{"gen":4,"header":{"total_cost_usd":0.5,"updated_at":"2026-11-24T06:00:02Z"},` +
	`"agents":[{"id":"main","current_state":"RET.md","session_id":"s-0","cwd":"/p","stack":[],"status":"ready",` +
	`"pending":{"state":"RET.md","mode":"resume","resume_session":"s-0","input":"42","cwd":"/p","attempt":1},"steps":4,"attempts":0}],` +
	`"session_costs":{"s-main":0.5}}` + "\n" +
	`{"gen":4,"header":{"next_agent_seq":2,"updated_at":"2026-11-24T06:00:03Z"},` +
	`"agents":[{"id":"main_w1","current_state":"WORKER.md","session_id":"","cwd":"/p","stack":[],"status":"running",` +
	`"pending":{"state":"WORKER.md","mode":"new","session_id":"s-w1","vars":{"item":"a"},"cwd":"/p","attempt":1},"steps":0,"attempts":0,"parent":"main"},` +
	`{"id":"main_w2","current_state":"WORKER.md","session_id":"","cwd":"/p","stack":[],"status":"ready",` +
	`"pending":{"state":"WORKER.md","mode":"new","session_id":"s-w2","cwd":"/p","attempt":1},"steps":0,"attempts":0,"parent":"main"}]}` + "\n"

func TestEveryOlderVersionHasAMigration(t *testing.T) {
	for v := 1; v < Version; v++ {
		assert.NotNil(t, migrations[v], "no migration from state version %d", v)
	}
}

func TestMigrate1to2(t *testing.T) {
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(v1Run), &doc))
	before := len(doc)
	require.NoError(t, migrate1to2(doc))
	assert.JSONEq(t, "2", string(doc["version"]))
	assert.Len(t, doc, before, "version 2 has the fields of version 1")

	data, err := migrateRun([]byte(v1Run), 1)
	require.NoError(t, err)
	var step2 map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &step2))
	assert.JSONEq(t, "3", string(step2["version"]))
	assert.Len(t, step2, before, "version 3 has the fields of version 1")
	require.NoError(t, err)
	var r Run
	require.NoError(t, json.Unmarshal(data, &r))
	assert.Equal(t, Version, r.Version, "the chain runs up to the newest version")
	main := r.Agent("main")
	require.NotNil(t, main)
	assert.Equal(t, Ref{State: "SUB.md"}, main.Pending.Ref, "a bare state name is a reference into the run's scope")
	assert.Equal(t, []Frame{{Session: "s-0", Ref: Ref{State: "RET.md"}, Cwd: "/p"}}, main.Stack)
	assert.Equal(t, Ref{State: "SUB.md"}, main.Ref())
	assert.Equal(t, Ref{Scope: "/p/wf", State: "SUB.md"}, main.Ref().In(r.ScopeDir))
}

func TestReadVersion1(t *testing.T) {
	s := openStore(t)
	require.NoError(t, os.WriteFile(s.Path("old"), []byte(v1Run), 0o644))
	require.NoError(t, os.WriteFile(s.journalPath("old"), []byte(v1Journal), 0o644))

	r, err := s.Read("old")
	require.NoError(t, err)
	assert.Equal(t, Version, r.Version, "read runs are of the current version")
	assert.Equal(t, 4, r.Gen)
	assert.InDelta(t, 0.5, r.TotalCostUSD, 1e-9)
	assert.Equal(t, 2, r.NextAgentSeq)
	assert.Equal(t, map[string]float64{"s-main": 0.5}, r.SessionCosts)
	require.Len(t, r.Agents, 3)
	main := r.Agents[0]
	assert.Empty(t, main.Stack, "the journal's return popped the frame")
	assert.Equal(t, Ref{State: "RET.md"}, main.Pending.Ref)
	assert.Equal(t, "42", *main.Pending.Input)
	assert.Equal(t, AgentRunning, r.Agents[1].Status)
	assert.Equal(t, map[string]string{"item": "a"}, r.Agents[1].Pending.Vars)
	assert.Equal(t, "main_w2", r.Agents[2].ID)

	// Driving it writes version 2, and the journal's lines are in the new
	// snapshot.
	j, err := s.Journal(r)
	require.NoError(t, err)
	require.NoError(t, j.Close())
	data, err := os.ReadFile(s.Path("old"))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), `{"version":3,`), "the file on disk: %.40s", data)
	again, err := s.Read("old")
	require.NoError(t, err)
	r.UpdatedAt = again.UpdatedAt
	assert.Equal(t, r, again)
}

func TestReadVersion1Corrupt(t *testing.T) {
	tests := []struct {
		name, file, journal string
		want                string
	}{
		{name: "journal line", file: v1Run, journal: "[1]\n" + v1Journal, want: "old.journal:1 is corrupt"},
		{name: "null line", file: v1Run, journal: "null\n" + v1Journal, want: "old.journal:1 is corrupt"},
		{name: "torn last line", file: v1Run, journal: v1Journal + `{"gen":4,"hea`, want: ""},
		{name: "no version", file: strings.Replace(v1Run, `"version":1`, `"version":0`, 1), want: "old.json is corrupt: no state version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			require.NoError(t, os.WriteFile(s.Path("old"), []byte(tt.file), 0o644))
			require.NoError(t, os.WriteFile(s.journalPath("old"), []byte(tt.journal), 0o644))
			r, err := s.Read("old")
			if tt.want == "" {
				require.NoError(t, err)
				assert.Len(t, r.Agents, 3)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestMigrateLineKeepsItsFrame(t *testing.T) {
	in := `{"gen":7,"unset":["error"],"session_costs":{"s":1},"agents":[{"id":"main","pending":{"state":"A.md"}}]}`
	out, err := migrateLine([]byte(in), 1)
	require.NoError(t, err)
	assert.JSONEq(t, `{"gen":7,"unset":["error"],"session_costs":{"s":1},"header":{"version":3},"agents":[{"id":"main","pending":{"state":"A.md"}}]}`, string(out))
}

// FuzzReplayVersion1 feeds replay arbitrary journals written against a
// snapshot of version 1: migrating their lines must not panic, and what it
// accepts must be a run of the current version that marshals again.
func FuzzReplayVersion1(f *testing.F) {
	f.Add([]byte(v1Journal))
	f.Add([]byte(`{"gen":4,"header":null,"agents":null}` + "\n" + `{"gen":4,"header":{"version":1}}` + "\n"))
	f.Add([]byte("null\n{}\n"))
	f.Fuzz(func(t *testing.T, journal []byte) {
		var r Run
		require.NoError(t, json.Unmarshal([]byte(v1Run), &r))
		if _, err := replay(&r, 1, "old.journal", journal); err != nil {
			return
		}
		if _, err := json.Marshal(&r); err != nil {
			t.Fatalf("replay accepted %q into a run that does not marshal: %v", journal, err)
		}
	})
}
