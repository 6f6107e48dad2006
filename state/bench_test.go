package state

import (
	"fmt"
	"os"
	"testing"
)

// bigRun returns a run with n agents, each with a pending step and a frame,
// about the shape of a wide fan-out.
func bigRun(n int) *Run {
	r := fullRun("bench")
	r.Agents = make([]Agent, n)
	r.SessionCosts = make(map[string]float64, n)
	for i := range r.Agents {
		a := fullRun("bench").Agents[0]
		a.ID = fmt.Sprintf("main_worker%d", i+1)
		a.SessionID = fmt.Sprintf("0b7e6f0e-3c52-4a4e-9d1c-%012d", i)
		a.Pending.SessionID = a.SessionID
		a.Pending.Vars = map[string]string{"item": fmt.Sprintf("src/pkg%d/file.go", i)}
		// A fan-out stays in the run's own workflow: no scope_dir.
		a.Scope, a.Pending.Scope, a.Stack[0].Scope = "", "", ""
		r.Agents[i] = a
		r.SessionCosts[a.SessionID] = float64(i) / 100
	}
	return r
}

// BenchmarkWrite measures one atomic write (fsyncs included) of a run with
// 1,000 agents.
func BenchmarkWrite(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r := bigRun(1000)
	if err := s.Write(r); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(s.Path("bench"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Write(r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(fi.Size()), "bytes/write")
}

// BenchmarkRead measures reading the same file back.
func BenchmarkRead(b *testing.B) {
	s, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Write(bigRun(1000)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Read("bench"); err != nil {
			b.Fatal(err)
		}
	}
}
