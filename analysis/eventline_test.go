package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"raymond/transcript"
)

// TestEventLineStepEnded: the --follow line of a step says plainly how it
// ended; a successful step whose answer was refused does not read as a
// success, and a step under a millisecond does not read as "0s".
func TestEventLineStepEnded(t *testing.T) {
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		ev   transcript.Event
		want string
	}{
		{"success", transcript.Event{Outcome: "success", DurationMS: 1500},
			"[main] START.md: success in 1.50s"},
		{"refused", transcript.Event{Outcome: "success", DurationMS: 0, Message: "the answer has no transition tag"},
			"[main] START.md: answered in under 1ms, but the answer was refused: the answer has no transition tag"},
		{"crash", transcript.Event{Outcome: "crash", DurationMS: 20, Message: "claude exited with status 1"},
			"[main] START.md: crash in 20ms: claude exited with status 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := tt.ev
			ev.Time, ev.Type, ev.Agent, ev.State = at, transcript.EventStepEnded, "main", "START.md"
			got := EventLine(&ev)
			assert.True(t, strings.HasSuffix(got, tt.want), "got %q, want it to end in %q", got, tt.want)
		})
	}
}
