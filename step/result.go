package step

import (
	"fmt"
	"strings"
	"time"
)

// Outcome is how a step ended, in the terms the orchestrator acts on. Which
// of its own endings a runner reports as which outcome is the runner's
// business: claude's crashes, timeouts and API errors are Transient, a
// script's non-zero exit is Failed.
type Outcome int

// The outcomes.
const (
	// Succeeded: the step ended normally with a final answer in Text.
	Succeeded Outcome = iota + 1
	// Transient: worth running again after a back-off (a crash, a timeout,
	// a server error). Reason says what happened.
	Transient
	// UsageLimit: the account's usage limit is reached; no step should start
	// before ResetAt (zero when unknown). Reason is the limit's own message,
	// in one line.
	UsageLimit
	// BudgetExhausted: the step reached its cost cap (Request.MaxBudgetUSD).
	BudgetExhausted
	// Unusable: no step can run until the user acts (the program is not
	// installed, not logged in, has no credit, refuses to run as root).
	// Reason says what to do; Err, when set, is the cause for errors.Is.
	Unusable
	// Canceled: the caller's context stopped the step; it runs again when
	// the run is resumed.
	Canceled
	// Failed: the step cannot succeed by running it again as it is; the
	// agent fails with Reason.
	Failed
)

var outcomeNames = map[Outcome]string{
	Succeeded:       "succeeded",
	Transient:       "transient",
	UsageLimit:      "usage limit",
	BudgetExhausted: "budget exhausted",
	Unusable:        "unusable",
	Canceled:        "canceled",
	Failed:          "failed",
}

func (o Outcome) String() string {
	if s, ok := outcomeNames[o]; ok {
		return s
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Result is how one step ended.
type Result struct {
	// Outcome is what the orchestrator does next.
	Outcome Outcome
	// Class is the runner's own name for how the step ended ("success",
	// "crash", "api error", …), recorded in transcripts and events.
	Class string
	// NotStarted means no process ran for the step: it could not be
	// started at all (Failed, Unusable), or it was canceled before it
	// started (Canceled).
	NotStarted bool
	// Text is the final answer, for Succeeded.
	Text string
	// Reason says, for people, why the step did not succeed.
	Reason string
	// Err is the underlying error of an Unusable or a not-started step.
	Err error
	// ResetAt is when a usage limit resets; zero when unknown.
	ResetAt time.Time
	// Overloaded says a Transient ending was the model's overload (HTTP
	// 529, after the runner's own retries): another model may answer.
	Overloaded bool
	// FellBack are the models the runner went on with by itself during
	// the step, in order (claude's --fallback-model): the step's first
	// fallbacks, used already.
	FellBack []string

	// SessionID is the session the step ran in or produced.
	SessionID string
	// LastMessage identifies the session's last message at the step's end
	// (claude's uuid of it), "" when the runner has none: a rewind branches
	// the session there.
	LastMessage string
	// Billed says the runner reported what the step cost: CostUSD is this
	// step's cost and SessionCostUSD the session's cost after it, which the
	// next step of that session gets back as Request.PriorCostUSD.
	Billed         bool
	CostUSD        float64
	SessionCostUSD float64
	// Unreported says the step itself never reported its cost (it was cut
	// short before its end: killed, crashed): CostUSD is what it spent as
	// the runner found elsewhere (claude's session file).
	Unreported bool

	// What a transcript records of the step.
	Usage    Usage
	Turns    int
	Model    string
	Version  string
	ExitCode int
	Signal   string
	Stderr   string
	Started  time.Time
	Ended    time.Time

	// What a transcript records of a step that ran a process of its own
	// (a script step; zero for a claude step, whose argv its runner's
	// Describer gives).
	//
	// Runner names the runner that ran the step when the runner the
	// orchestrator holds handed it to another (scripted replies, or the
	// real script): "script", "scripted"; "" means the runner held.
	Runner string
	// Argv is the command line that ran.
	Argv []string
	// Env holds the variables the runner added to the process's
	// environment, by name.
	Env map[string]string
	// Timeout is the idle timeout the step ran with (0: none) and
	// TimeoutFrom where it was set ("--timeout", "the state's timeout").
	Timeout     time.Duration
	TimeoutFrom string
	// Repeats are the tool calls the step made loop_warn times, for the
	// transcript (the person watching saw an EventLoopWarning live).
	Repeats []Repeat
	// Warnings are things the person should know about how the step was
	// run (a fork variable not passed to a script, and why), for the
	// orchestrator to publish.
	Warnings []string
}

// Repeat is a tool call a step made over and over: Call is the tool and
// its input as people read it (`Bash {"command":"ls"}`), Count how many
// times it had been made when it was reported, Stop the count that stops
// the step (0: none).
type Repeat struct {
	Call  string
	Count int
	Stop  int
}

// Usage counts a step's tokens.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// Duration writes d as people write a timeout: 10m, 1h30m, 90s as 1m30s,
// 200ms; time.Duration's String would write 10m0s.
func Duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// NotStarted is the Result of a step that could not start because of err.
func NotStarted(outcome Outcome, err error) Result {
	now := time.Now()
	return Result{Outcome: outcome, Class: "not started", NotStarted: true, Reason: err.Error(), Err: err, Started: now, Ended: now}
}
