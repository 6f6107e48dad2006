package analysis

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// fanOutRun runs a fan-out: main forks 1,000 workers at once, then joins.
func fanOutRun(b *testing.B) *run {
	b.Helper()
	var tags strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&tags, `<fork next="JOIN" item="%d">WORKER</fork>`, i)
	}
	return runWorkflow(b, map[string]string{
		"START.md": "Fan out.", "WORKER.md": "Work on {{item}}.", "JOIN.md": "Join.",
	}, fmt.Sprintf(`
replies:
  START: [{text: '%s', cost: 0.01}]
  WORKER: [{text: "<result>{{item}} done</result>", cost: 0.001, say: "Working on {{item}}.", repeat: true}]
  JOIN: [{text: "<result>joined</result>", cost: 0.01}]
`, tags.String()), options{})
}

// BenchmarkLoadText is what `raymond transcript` does with the transcript
// of a 1,000-agent fan-out: load it and write the text report.
func BenchmarkLoadText(b *testing.B) {
	rn := fanOutRun(b)
	b.ReportAllocs()
	for b.Loop() {
		r, err := Load(rn.source())
		if err != nil {
			b.Fatal(err)
		}
		if r.AgentCount != 1001 {
			b.Fatalf("%d agents", r.AgentCount)
		}
		if err := WriteText(io.Discard, r, TextOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad is the loading alone.
func BenchmarkLoad(b *testing.B) {
	rn := fanOutRun(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(rn.source()); err != nil {
			b.Fatal(err)
		}
	}
}
