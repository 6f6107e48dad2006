package report

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"

	"raymond/claude"
	"raymond/step"
)

// TestActivity: a step's activity reads as the orchestrator's live lines
// did (orchestrator/progress.go), and what they left out stays out.
func TestActivity(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, "", false, false)
	// What claude decodes reaches Activity as the claude runner passes it
	// on, through claude.Live.
	live := claude.Live(func(e step.Event) {
		if ev, ok := Activity("main", "START.md", e); ok {
			p.Event(ev)
		}
	})
	for _, e := range []claude.Event{
		{Kind: claude.EventInit, SessionID: "s1"},
		{Kind: claude.EventText, Text: "Reading the code.\nThen more."},
		{Kind: claude.EventText, Text: "\n"},
		{Kind: claude.EventToolUse, Tool: "Bash", Detail: "go test ./..."},
		{Kind: claude.EventToolResult, Tool: "Bash", Detail: "ok"},
		{Kind: claude.EventToolResult, Tool: "Read", IsError: true, Detail: "no such file"},
		{Kind: claude.EventPrint, Text: "progress: 50%"},
		{Kind: claude.EventRetry, Status: 529, Attempt: 2},
		{Kind: claude.EventRateLimit, LimitStatus: "allowed"},
		{Kind: claude.EventAPIError, Text: "overloaded"},
	} {
		live(e)
	}
	assert.Equal(t, `[main] START.md: Reading the code.
[main] START.md: Bash go test ./...
[main] START.md: Read failed: no such file
[main] progress: 50%
[main] START.md: API error 529, claude retries (attempt 2)
`, b.String())
}
