package rewind

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"raymond/state"
	"raymond/transcript"
)

// writeJSON writes v as name in dir.
func writeJSON(t testing.TB, dir, name string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBuildInFlight: when main's step 3 started, the worker's step 2 was in
// flight. The rewind puts both before their steps (ready, counters back),
// cuts each session at the last message of its steps that had ended (the
// worker's step 2 had not: its session is cut after step 1), and keeps the
// original untouched on disk.
func TestBuildInFlight(t *testing.T) {
	dir := t.TempDir()
	snap := state.Run{WorkflowID: "orig", Status: state.StatusRunning, TotalCostUSD: 0.3,
		Agents: []state.Agent{
			{ID: "main", Status: state.AgentRunning, Steps: 3, SessionID: "sm", CurrentState: "C.md",
				Pending: &state.Step{Ref: state.Ref{State: "C.md"}, Mode: state.SessionResume, ResumeSession: "sm", Attempt: 2},
				Stack:   []state.Frame{{Session: "sm", Ref: state.Ref{State: "R.md"}}}},
			{ID: "main_w1", Status: state.AgentRunning, Steps: 2, SessionID: "sw", Parent: "main",
				Pending: &state.Step{Ref: state.Ref{State: "W2.md"}, Mode: state.SessionResume, ResumeSession: "sw"}},
		}}
	writeJSON(t, dir, "main_C_003.before.json", snap)
	metas := []transcript.Meta{
		{Agent: "main", Seq: 1, SessionID: "sm", LastMessage: "m1"},
		{Agent: "main", Seq: 2, SessionID: "sm", LastMessage: "m2"},
		{Agent: "main", Seq: 3, SessionID: "sm", LastMessage: "m3-later"},
		{Agent: "main_w1", Seq: 1, SessionID: "sw", LastMessage: "w1"},
		{Agent: "main_w1", Seq: 2, SessionID: "sw", LastMessage: "w2-later"},
	}
	names := []string{"main_A_001", "main_B_002", "main_C_003", "main_w1_W1_001", "main_w1_W2_002"}
	for i, m := range metas {
		writeJSON(t, dir, names[i]+".meta.json", m)
	}
	in := "other"
	r, p, err := Build(dir, "main_C_003", "new", Options{Model: "opus", Input: &in})
	if err != nil {
		t.Fatal(err)
	}
	if r.WorkflowID != "new" || r.Status != state.StatusCreated || r.TotalCostUSD != 0 || r.Rewound.PriorCostUSD != 0.3 {
		t.Fatalf("run %s %s $%v, rewound %+v", r.WorkflowID, r.Status, r.TotalCostUSD, r.Rewound)
	}
	main, w := r.Agent("main"), r.Agent("main_w1")
	if main.Status != state.AgentReady || main.Steps != 2 || main.Pending.Attempt != 1 || *main.Pending.Input != "other" ||
		main.Pending.Override == nil || main.Pending.Override.Model != "opus" {
		t.Errorf("main restored as %+v, pending %+v", main, main.Pending)
	}
	if w.Status != state.AgentReady || w.Steps != 1 {
		t.Errorf("the worker in flight restored as %s with %d steps, want ready with 1", w.Status, w.Steps)
	}
	want := map[string]string{"sm": "m2", "sw": "w1"}
	for s, at := range want {
		if got, ok := r.Rewound.Cut(s); !ok || got != at {
			t.Errorf("session %s cut at %q, want %q", s, got, at)
		}
	}
	if len(p.Sessions) != 2 || len(p.Unknown) != 0 {
		t.Errorf("point sessions %v, unknown %v", p.Sessions, p.Unknown)
	}
	again, err := transcript.ReadBefore(dir, "main_C_003")
	if err != nil || again.WorkflowID != "orig" || again.Agents[0].Status != state.AgentRunning {
		t.Errorf("the snapshot changed: %+v, %v", again, err)
	}
}

// TestBuildNoSnapshot: a step without its before.json says so.
func TestBuildNoSnapshot(t *testing.T) {
	if _, _, err := Build(t.TempDir(), "main_A_001", "new", Options{}); err != ErrNoSnapshot {
		t.Fatalf("err %v, want ErrNoSnapshot", err)
	}
}

// BenchmarkSnapshot is what the driver pays on its loop at each step start:
// encoding the run for the step's before.json, for a run of 1 and of 1000
// agents.
func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{1, 1000} {
		r := &state.Run{WorkflowID: "r", SessionCosts: map[string]float64{}}
		for i := range n {
			id := "main_worker" + string(rune('a'+i%26))
			r.Agents = append(r.Agents, state.Agent{ID: id, Status: state.AgentReady, CurrentState: "WORKER.md",
				SessionID: "3f1c2a9e-0000-4000-8000-000000000000", Cwd: "/home/u/project",
				Pending: &state.Step{Ref: state.Ref{State: "WORKER.md"}, Mode: state.SessionResume,
					ResumeSession: "3f1c2a9e-0000-4000-8000-000000000000", Cwd: "/home/u/project"}})
		}
		b.Run(map[int]string{1: "agents=1", 1000: "agents=1000"}[n], func(b *testing.B) {
			var size int
			for b.Loop() {
				data, err := json.Marshal(r)
				if err != nil {
					b.Fatal(err)
				}
				size = len(data)
			}
			b.ReportMetric(float64(size), "bytes/snapshot")
		})
	}
}
