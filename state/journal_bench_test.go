package state

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// countingFile counts the bytes written through it into *n, and skips fsync
// when noSync is set.
type countingFile struct {
	*os.File
	n      *int64
	noSync bool
}

func (f *countingFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	*f.n += int64(n)
	return n, err
}

func (f *countingFile) Sync() error {
	if f.noSync {
		return nil
	}
	return f.File.Sync()
}

// countWrites adds to *n every byte written to state files, snapshots and
// journals, for the rest of the test; with noSync their fsyncs are skipped
// (those of the folder are not). Tests that call it must not run in
// parallel.
func countWrites(tb testing.TB, n *int64, noSync bool) {
	savedTemp, savedJournal := createTemp, openJournal
	tb.Cleanup(func() { createTemp, openJournal = savedTemp, savedJournal })
	createTemp = func(dir, pattern string) (tempFile, error) {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return &countingFile{File: f, n: n, noSync: noSync}, nil
	}
	openJournal = func(path string) (journalFile, error) {
		f, err := savedJournal(path)
		if err != nil {
			return nil, err
		}
		return &countingFile{File: f.(*os.File), n: n, noSync: noSync}, nil
	}
}

// fanout drives run "fanout" through s the way raymond drives a wide
// fan-out: main forks n workers (a Save of main and the new worker each),
// then every worker starts (a Save of it) and completes with its session's
// cost (another), and main ends the run; then the journal is closed. It
// returns the number of Saves and the size of the final state file.
func fanout(tb testing.TB, s *Store, n int) (saves int, final int64) {
	const (
		project = "/home/user/project"
		mainSID = "8c1d6a52-0f3e-4b7a-9c55-2f0d4e6b1a90"
	)
	r := &Run{
		WorkflowID: "fanout", ScopeDir: project + "/workflows/review", EntryState: "START.md", Status: StatusRunning,
		Options: Options{MaxParallel: 8, Timeout: Duration(10 * time.Minute), PermissionMode: "acceptEdits",
			ClaudePath: "claude", Debug: true, ProjectDir: project},
		Agents:    []Agent{{ID: "main", CurrentState: "START.md", SessionID: mainSID, Cwd: project, Status: AgentRunning, Steps: 1}},
		BudgetUSD: 50, PID: 12345,
	}
	if err := s.Create(r); err != nil {
		tb.Fatal(err)
	}
	j, err := s.Journal(r)
	if err != nil {
		tb.Fatal(err)
	}
	persist := func(ids ...string) {
		if err := j.Save(r, ids...); err != nil {
			tb.Fatal(err)
		}
		saves++
	}

	for i := 1; i <= n; i++ {
		r.NextAgentSeq = i
		id := fmt.Sprintf("main_worker%d", i)
		r.Agents = append(r.Agents, Agent{
			ID: id, CurrentState: "WORKER.md", Cwd: project, Status: AgentReady, Parent: "main",
			Stack: []Frame{{Session: mainSID, Ref: Ref{State: "JOIN.md"}, Cwd: project}},
			Pending: &Step{Ref: Ref{State: "WORKER.md"}, Mode: SessionBranch, ResumeSession: mainSID,
				SessionID: fmt.Sprintf("0b7e6f0e-3c52-4a4e-9d1c-%012d", i),
				Vars:      map[string]string{"item": fmt.Sprintf("src/pkg%d/file.go", i)}, Cwd: project, Attempt: 1},
		})
		persist("main", id)
	}
	for i := 1; i <= n; i++ {
		r.Agents[i].Status = AgentRunning
		persist(r.Agents[i].ID)
	}
	if r.SessionCosts == nil {
		r.SessionCosts = make(map[string]float64, n)
	}
	for i := 1; i <= n; i++ {
		a := &r.Agents[i]
		a.Status, a.SessionID, a.Steps, a.Attempts = AgentCompleted, a.Pending.SessionID, 1, 1
		a.Pending, a.Result = nil, ptr(fmt.Sprintf("reviewed src/pkg%d/file.go: no issues", i))
		cost := 0.01 + float64(i%97)/1000
		r.SessionCosts[a.SessionID] = cost
		r.TotalCostUSD += cost
		persist(a.ID)
	}
	r.Status, r.Result = StatusCompleted, ptr("all files reviewed")
	r.Agents[0].Status = AgentCompleted
	persist("main")
	if err := j.Close(); err != nil {
		tb.Fatal(err)
	}
	fi, err := os.Stat(s.Path("fanout"))
	if err != nil {
		tb.Fatal(err)
	}
	return saves, fi.Size()
}

// BenchmarkJournalFanout1000 drives a 1,000-agent fan-out (about 3,000
// Saves) and reports the bytes written to its state files, the size of the
// final one and their ratio (the target is well under 20), and the time per
// Save; "nosync" skips the files' fsyncs, to show what they cost.
func BenchmarkJournalFanout1000(b *testing.B) {
	for _, noSync := range []bool{false, true} {
		name := "fsync"
		if noSync {
			name = "nosync"
		}
		b.Run(name, func(b *testing.B) {
			var (
				written, final int64
				saves          int
			)
			countWrites(b, &written, noSync)
			for b.Loop() {
				s, err := Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				written = 0
				saves, final = fanout(b, s, 1000)
			}
			b.ReportMetric(float64(written), "bytes/run")
			b.ReportMetric(float64(final), "final-bytes")
			b.ReportMetric(float64(written)/float64(final), "ratio")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*saves), "ns/save")
		})
	}
}
