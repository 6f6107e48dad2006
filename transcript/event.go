package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// EventsFile is the name of the events file in a transcript folder.
const EventsFile = "events.jsonl"

// Event is one line of events.jsonl. Only Time and Type are always set; the
// other fields are set as they apply to the event's Type. The JSON names are
// a stable schema read by raymond transcript.
type Event struct {
	// Time is when the event happened; Writer.Event sets it to now if zero.
	Time time.Time `json:"time"`
	// Type is one of the EventXxx constants.
	Type string `json:"type"`
	// Agent is the agent concerned.
	Agent string `json:"agent,omitempty"`
	// Step is the transcript base name of the step concerned.
	Step string `json:"step,omitempty"`
	// State is a state file name.
	State string `json:"state,omitempty"`
	// Tag is the tag of a transition.
	Tag string `json:"tag,omitempty"`
	// Target is the next state of a transition.
	Target string `json:"target,omitempty"`
	// Child is the agent a fork spawned.
	Child string `json:"child,omitempty"`
	// Parent is the agent that spawned Child.
	Parent string `json:"parent,omitempty"`
	// Session is the session id of the step.
	Session string `json:"session,omitempty"`
	// Attempt counts the tries of a step, from 1.
	Attempt int `json:"attempt,omitempty"`
	// Outcome is how a step ended, claude.Outcome.String().
	Outcome string `json:"outcome,omitempty"`
	// CostUSD is the cost of a step.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// TotalCostUSD is the cost of the run so far.
	TotalCostUSD *float64 `json:"total_cost_usd,omitempty"`
	// DurationMS is how long a step took.
	DurationMS int64 `json:"duration_ms,omitempty"`
	// InputTokens and OutputTokens are the tokens of a step.
	InputTokens  int64 `json:"input_tokens,omitempty"`
	OutputTokens int64 `json:"output_tokens,omitempty"`
	// Depth is the agent's stack depth after a transition.
	Depth int `json:"depth,omitempty"`
	// Until is the end of a wait.
	Until *time.Time `json:"until,omitempty"`
	// Payload is the payload of a result.
	Payload *string `json:"payload,omitempty"`
	// Status is the run's status (run_ended, paused).
	Status string `json:"status,omitempty"`
	// Message is a reason, a warning or an error text.
	Message string `json:"message,omitempty"`
}

// The types of an Event.
const (
	EventRunStarted     = "run_started"
	EventRunResumed     = "run_resumed"
	EventStepStarted    = "step_started"
	EventStepEnded      = "step_ended"
	EventTransition     = "transition"
	EventSpawn          = "spawn"
	EventRetry          = "retry"
	EventReminder       = "reminder"
	EventAgentCompleted = "agent_completed"
	EventAgentFailed    = "agent_failed"
	EventWait           = "wait"
	EventWaitOver       = "wait_over"
	EventPaused         = "paused"
	EventBudgetExceeded = "budget_exceeded"
	EventRunEnded       = "run_ended"
	EventWarning        = "warning"
)

// marshalLine encodes v as one JSON line ending in a newline, leaving <, >
// and & as they are: payloads and prompts are full of tags.
func marshalLine(v any, indent bool) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// ReadEvents reads the events file at path. Every record ends in a newline:
// a last line without one is the record a crash cut short, and it is left out
// without an error even if what remains of it happens to be valid JSON (the
// writer of a resumed run drops it too). Any other line that does not decode
// is an error naming its line number; blank lines are skipped.
func ReadEvents(path string) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer f.Close()

	var events []Event
	r := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return events, nil // a torn record, if line is not empty
		}
		if err != nil {
			return nil, fmt.Errorf("read events %s: %w", path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil {
			return nil, fmt.Errorf("read events %s: line %d: %w", path, n, err)
		}
		events = append(events, e)
	}
}
