package transcript

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// at returns a local time on 2026-01-15, so that the golden text does not
// depend on the machine's time zone.
func at(hour, minute, sec int) time.Time {
	return time.Date(2026, 1, 15, hour, minute, sec, 500_000_000, time.Local)
}

// goldenTransitions is a run's worth of transitions covering every line an
// entry can have.
var goldenTransitions = []Transition{
	{Time: at(14, 30, 22), Agent: "main", From: "START.md", To: "NEXT.md", Tag: "goto",
		Session: "7c0e4d1a", SessionNote: "new", CostUSD: 0.05, TotalCostUSD: 0.05},
	{Time: at(14, 30, 45), Agent: "main", From: "NEXT.md", To: "CHECK.md", Tag: "call",
		Session: "7c0e4d1a", SessionNote: "resumed", CostUSD: 0.03, TotalCostUSD: 0.08, Depth: 1,
		Payload: ptr(`look at "parser.go"` + "\nand report")},
	{Time: at(14, 30, 50), Agent: "main", From: "CHECK.md", To: "FAN.md", Tag: "fork",
		Session: "91aa0b2c", SessionNote: "branch of 7c0e4d1a", CostUSD: 0.00125, TotalCostUSD: 0.08125, Depth: 1,
		Spawned: []string{"main_worker1 at WORKER.md", "main_worker2 at WORKER.md"}},
	{Time: at(14, 31, 2), Agent: "main_worker1", From: "WORKER.md", Tag: "result",
		Session: "e3f00c11", CostUSD: 0.02, TotalCostUSD: 0.10125,
		Payload: ptr("Task completed successfully")},
	{Time: at(14, 31, 3), Agent: "main_worker2", From: "WORKER.md", Tag: "result",
		Payload: ptr(strings.Repeat("é", 205))},
}

func TestTransitionsGolden(t *testing.T) {
	dir := t.TempDir()
	w := Open(dir, noWarn(t))
	for _, tr := range goldenTransitions {
		w.Transition(tr)
	}
	must(t, w.Close())

	got := readFile(t, dir, TransitionsFile)
	if *update {
		must(t, os.WriteFile(filepath.Join("testdata", "transitions.golden"), []byte(got), 0o644))
	}
	equal(t, got, readFile(t, "testdata", "transitions.golden"), TransitionsFile)
}

func TestTransitionFormat(t *testing.T) {
	tests := []struct {
		name string
		tr   Transition
		want string
	}{
		{
			name: "terminated without session",
			tr:   Transition{Time: at(9, 5, 7), Agent: "main", From: "DONE.md", Tag: "result"},
			want: "2026-01-15 09:05:07 [main] DONE.md -> (result, terminated)\n" +
				"  cost: $0.0000\n  total_cost: $0.0000\n\n",
		},
		{
			name: "session without note",
			tr:   Transition{Time: at(9, 5, 7), Agent: "a", From: "A.md", To: "B.md", Tag: "reset", Session: "s1"},
			want: "2026-01-15 09:05:07 [a] A.md -> B.md (reset)\n" +
				"  session_id: s1\n  cost: $0.0000\n  total_cost: $0.0000\n\n",
		},
		{
			name: "result popping a frame is not terminated",
			tr: Transition{Time: at(9, 5, 7), Agent: "a", From: "SUB.md", To: "AFTER.md", Tag: "result",
				CostUSD: 1.23456, TotalCostUSD: 12.5, Payload: ptr("")},
			want: "2026-01-15 09:05:07 [a] SUB.md -> AFTER.md (result)\n" +
				"  cost: $1.2346\n  total_cost: $12.5000\n  result: \"\"\n\n",
		},
		{
			name: "input of a goto, tags left as they are",
			tr: Transition{Time: at(9, 5, 7), Agent: "a", From: "A.md", To: "B.md", Tag: "goto",
				Payload: ptr("<x>\t\"y\"")},
			want: "2026-01-15 09:05:07 [a] A.md -> B.md (goto)\n" +
				"  cost: $0.0000\n  total_cost: $0.0000\n  input: \"<x>\\t\\\"y\\\"\"\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			equal(t, tt.tr.format(), tt.want, "entry")
		})
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"héllo", 2, "hé…"},
		{"日本語", 3, "日本語"},
		{"日本語x", 3, "日本語…"},
		{"a\xffbc", 2, "a\xff…"},
	}
	for _, tt := range tests {
		if got := cut(tt.in, tt.n); got != tt.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}
