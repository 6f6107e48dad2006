package claude

import (
	"strings"
	"time"

	"raymond/step"
)

// Result is everything raymond learns from one claude process.
type Result struct {
	// Outcome is how the step ended.
	Outcome Outcome
	// NotStarted is set, with Outcome Canceled, when the context was done
	// before the process started.
	NotStarted bool
	// Adopted is set when the step's process was started by a driver that
	// died and followed by [Adopt]: its exit status is not known.
	Adopted bool
	// HasResult reports whether the stream had a result line; the fields
	// from Text to DurationMS are zero without one.
	HasResult bool

	// Text is the result line's `result` field: the final answer on success,
	// the error message on an API error. Error subtypes have none.
	Text string
	// SessionID is the session the step ran in: from the result line, else
	// from the init line. Empty if the process wrote neither.
	SessionID string
	// LastMessage is the uuid of the last assistant line the model wrote
	// (not one the CLI made up): where the session stood at the step's end,
	// which --resume-session-at takes to branch it there again.
	LastMessage string
	// IsError is the result line's is_error.
	IsError bool
	// Subtype is the result line's subtype: success, error_max_turns, …
	Subtype string
	// Errors holds the result line's `errors` messages.
	Errors []string
	// APIErrorStatus is the HTTP status of an API failure, 0 if none.
	APIErrorStatus int
	// RetryStatus is the HTTP status of the CLI's last api_retry for the
	// request that failed, 0 when the CLI did not retry it (or a later
	// request got its answer). A 429 the CLI did not retry was rejected
	// for good: a usage limit, not a per-minute rate limit.
	RetryStatus int
	// KeySource is the init line's apiKeySource: where the CLI's API key
	// came from ("ANTHROPIC_API_KEY"), "none" for a login.
	KeySource string
	// KeyRefused reports an api_retry for an authentication failure of a
	// key the retries cannot change (see fixedKey): raymond stops the
	// step there rather than wait minutes for the CLI's ten retries.
	KeyRefused bool
	// FellBack are the models the CLI went on with, in order, when it took
	// its --fallback-model list (a system/model_fallback line each, after
	// three 529s in a row); none when it did not.
	FellBack []string
	// APIErrorKind is the error kind of the last synthetic API error message
	// (authentication_failed, rate_limit, billing_error, …), if any.
	APIErrorKind string
	// TotalCostUSD is the result line's raw total_cost_usd: cumulative over
	// the session lineage on CLIs since 2.1.277. Use [StepCost].
	TotalCostUSD float64
	// CallCostUSD is the sum of model_usage_since_last_result.*.costUSD, the
	// cost of this call alone; nil when the CLI does not report it.
	CallCostUSD *float64
	// Usage is the result line's token usage.
	Usage Usage
	// NumTurns and DurationMS are the result line's num_turns and duration_ms.
	NumTurns   int
	DurationMS int64

	// ExitCode is the process's exit status, -1 when a signal ended it.
	ExitCode int
	// Signal names the signal that ended the process as people write it
	// ("SIGTERM", "SIGKILL"), empty if it exited by itself.
	Signal string
	// Stderr is the last few KiB of the process's stderr.
	Stderr string
	// RootRefused reports that the CLI refused to skip permissions because
	// it runs as root (an InvocationError). The fix is a permission mode, or
	// a sandbox the user sets up knowingly; raymond never sets IS_SANDBOX.
	RootRefused bool

	// Loop is set when the step made the same tool call loop_stop times
	// and was stopped for it (Outcome Loop, unless the result line came
	// first); LoopWarned lists the calls that reached loop_warn.
	Loop       *ToolLoop
	LoopWarned []ToolLoop

	// Limit is, for a Timeout or a StepTimeout, the timeout that expired;
	// Tool the tool call that was outstanding then ("Bash (npm test)"), if
	// one was.
	Limit time.Duration
	Tool  string
	// LimitFrom says where the limit of a StepTimeout ("--step-timeout",
	// "step_timeout in STATE.md") or a Timeout ("--timeout", "timeout in
	// STATE.md") was set.
	LimitFrom string
	// runID is the run of the step, for the way on a message gives.
	runID string

	// ResetAt is when a usage limit resets, zero if unknown or not a usage limit.
	ResetAt time.Time
	// Model and Version come from the init line (claude_code_version).
	Model   string
	Version string
	// Lines counts the lines read from stdout.
	Lines int
	// LongLine is the first stdout line longer than raymond reads (64 MiB),
	// which was dropped; nil when there was none.
	LongLine *LongLine
	// Started and Ended bracket the process's life.
	Started time.Time
	Ended   time.Time
}

// LongLine describes a stdout line too long to be read.
type LongLine struct {
	// Bytes is the line's length.
	Bytes int
	// Type is its "type" field ("result", "user", …), when its start says.
	Type string
}

// Usage counts a step's tokens, as the result line reports them.
type Usage = step.Usage

// errorText is the text the CLI gave for an error result: the result field
// and the errors list, one per line.
func (r *Result) errorText() string {
	if len(r.Errors) == 0 {
		return r.Text
	}
	parts := make([]string, 0, len(r.Errors)+1)
	if r.Text != "" {
		parts = append(parts, r.Text)
	}
	return strings.Join(append(parts, r.Errors...), "\n")
}
