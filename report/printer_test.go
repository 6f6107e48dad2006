package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"raymond/transcript"
)

func TestPrinter(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, "case: ", false, false)
	p.Event(transcript.Event{Type: transcript.EventRunStarted, Run: "r1", State: "START.md", Message: "/wf"})
	p.Event(transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "START.md", Seq: 1, Mode: "new"})
	p.Event(transcript.Event{Type: transcript.EventStepEnded, Agent: "main", State: "START.md", Outcome: "success"})
	p.Event(transcript.Event{Type: transcript.EventPrint, Agent: "main", Message: "one\ntwo\n"})
	p.Event(transcript.Event{Type: transcript.EventSummary, Run: "r1", Status: "failed", DurationMS: 5, Steps: 1, Agents: 1,
		TotalCostUSD: ptr(0.0), Failures: []transcript.Failure{{Agent: "main", State: "START.md", Error: "boom"}}})
	assert.Equal(t, `case: raymond: run r1 started at START.md: /wf
case: [main] START.md: step 1 (new session)
case: [main] one
case: [main] two
case: raymond: run r1 failed in 5ms: 1 step, 1 agent, $0.0000
case:   main failed at START.md: boom
`, b.String())
}

func TestPrinterQuiet(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, "", true, false)
	p.Event(transcript.Event{Type: transcript.EventStepStarted, Agent: "main", State: "START.md", Seq: 1, Mode: "new"})
	p.Event(transcript.Event{Type: transcript.EventToolUse, Agent: "main", State: "START.md", Tool: "Bash", Message: "ls"})
	p.Event(transcript.Event{Type: transcript.EventWaitOver})
	assert.Equal(t, "raymond: usage limit wait over; steps start again\n", b.String())
}

func TestPrinterColor(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, "", false, true)
	p.Line("main", "hello", false)
	p.Line("main", "again", false)
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	assert.Equal(t, "\x1b[35m[main]\x1b[0m hello", string(lines[0]))
	// An agent keeps its colour.
	assert.Equal(t, "\x1b[35m[main]\x1b[0m again", string(lines[1]))
	NewPrinter(nil, "", false, true).Line("x", "to nowhere", true) // no panic
}

// Agents that write around the same time get distinct colours, up to the
// palette's size, though their names may hash to the same one.
func TestPrinterDistinctColors(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, "", false, true)
	agents := []string{"main"}
	for i := 1; i < len(palette); i++ {
		agents = append(agents, fmt.Sprintf("main_worker%d", i))
	}
	for _, a := range agents {
		p.Line(a, "working", false)
	}
	colors := map[string]string{}
	for l := range strings.SplitSeq(strings.TrimSpace(b.String()), "\n") {
		code := l[:strings.Index(l, "m[")]
		agent := l[strings.Index(l, "m[")+2 : strings.Index(l, "]")]
		if other, ok := colors[code]; ok {
			t.Errorf("%s and %s both have colour %q", other, agent, code)
		}
		colors[code] = agent
	}
	// main still has the colour its name hashes to.
	assert.True(t, strings.HasPrefix(b.String(), "\x1b[35m[main]"))
}

// TestPrinterElapsed: the live lines of a step that has run ElapsedAfter
// or longer say for how long; a short step's lines do not, and the next
// step starts the count again.
func TestPrinterElapsed(t *testing.T) {
	var b strings.Builder
	p := NewPrinter(&b, "", false, false)
	t0 := time.Date(2026, 11, 28, 6, 0, 0, 0, time.UTC)
	p.Event(transcript.Event{Time: t0, Type: transcript.EventStepStarted, Agent: "main", State: "TEST.md", Seq: 1, Mode: "new"})
	p.Event(transcript.Event{Time: t0.Add(2 * time.Second), Type: transcript.EventToolUse, Agent: "main", State: "TEST.md", Tool: "Bash", Message: "ls"})
	p.Event(transcript.Event{Time: t0.Add(125*time.Second + 300*time.Millisecond), Type: transcript.EventToolUse, Agent: "main", State: "TEST.md", Tool: "Bash", Message: "go test ./..."})
	p.Event(transcript.Event{Time: t0.Add(130 * time.Second), Type: transcript.EventText, Agent: "main", State: "TEST.md", Message: "All green."})
	p.Event(transcript.Event{Time: t0.Add(131 * time.Second), Type: transcript.EventStepEnded, Agent: "main", State: "TEST.md"})
	p.Event(transcript.Event{Time: t0.Add(132 * time.Second), Type: transcript.EventStepStarted, Agent: "main", State: "NEXT.md", Seq: 2, Mode: "resume"})
	p.Event(transcript.Event{Time: t0.Add(133 * time.Second), Type: transcript.EventToolUse, Agent: "main", State: "NEXT.md", Tool: "Read", Message: "a.go"})
	assert.Equal(t, `[main] TEST.md: step 1 (new session)
[main] TEST.md: Bash ls
[main] TEST.md (2m05s): Bash go test ./...
[main] TEST.md (2m10s): All green.
[main] NEXT.md: step 2 (resumed session)
[main] NEXT.md: Read a.go
`, b.String())
}
