package claude

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// EventKind says what an [Event] reports.
type EventKind int

// The kinds of events Run reports while a step runs.
const (
	// EventInit: the session started. SessionID, Model and Version are set.
	EventInit EventKind = iota + 1
	// EventText: one text block of the model's answer, in Text.
	EventText
	// EventToolUse: the model calls Tool; Detail is its key argument on one
	// line (file path, command, pattern, URL, …).
	EventToolUse
	// EventToolResult: a tool returned. Tool names it when its call was seen,
	// IsError reports a failure, Text holds the content and Detail its first line.
	EventToolResult
	// EventPrint: a <print> payload found in the model's text, in Text.
	EventPrint
	// EventRetry: the CLI retries an API call itself. Attempt, MaxRetries,
	// Delay, Status (HTTP) and ErrorKind are set as reported.
	EventRetry
	// EventRateLimit: the CLI reports the subscription's rate-limit state.
	// LimitStatus, LimitType and ResetAt (zero if absent) are set.
	EventRateLimit
	// EventAPIError: a synthetic assistant message reporting an API failure.
	// Text is the message, ErrorKind the CLI's error kind
	// (authentication_failed, rate_limit, …) and Status the HTTP status if known.
	EventAPIError
	// EventLoopWarning: the model made the same tool call (Tool, Detail: the
	// call with its whole input) for the Count-th time in the step, its
	// loop_warn; Limit is the loop_stop that will stop it (0: none).
	EventLoopWarning
	// EventFallback: the CLI went on with its --fallback-model. From is
	// the model it left, Model the one it took, ErrorKind the trigger
	// ("overloaded") and Text its own words.
	EventFallback
)

var eventKindNames = map[EventKind]string{
	EventInit:        "init",
	EventText:        "text",
	EventToolUse:     "tool use",
	EventToolResult:  "tool result",
	EventPrint:       "print",
	EventRetry:       "retry",
	EventRateLimit:   "rate limit",
	EventAPIError:    "api error",
	EventLoopWarning: "loop warning",
	// EventFallback: the CLI went on with its --fallback-model. From is
	EventFallback: "model fallback",
}

// String returns a short lower-case name such as "tool use".
func (k EventKind) String() string {
	if s, ok := eventKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("EventKind(%d)", int(k))
}

// Event is something that happened during a step, decoded from the stream.
// Which fields are set depends on Kind; see the EventKind constants.
type Event struct {
	Kind    EventKind
	Text    string
	Tool    string
	Detail  string
	IsError bool
	// ToolID is the id of the tool call (tool use and tool result), which
	// pairs a result with its call.
	ToolID string

	// Init.
	SessionID string
	Model     string
	Version   string
	// Fallback: the model left.
	From string

	// Retry and APIError.
	Attempt    int
	MaxRetries int
	Delay      time.Duration
	Status     int
	ErrorKind  string

	// LoopWarning.
	Count, Limit int

	// RateLimit.
	LimitStatus string
	LimitType   string
	ResetAt     time.Time
}

// maxDetail is the longest Detail, in runes.
const maxDetail = 120

// oneLine returns the first non-blank line of s, trimmed and cut to
// maxDetail runes with an ellipsis.
func oneLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			s = line
			break
		}
	}
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= maxDetail {
		return s
	}
	n := 0
	for i := range s {
		if n == maxDetail-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// OneLine returns s as Event.Detail holds text: its first non-blank line,
// trimmed and cut to 120 runes with an ellipsis. Runners other than the claude
// process use it so that their events read like claude's.
func OneLine(s string) string { return oneLine(s) }
