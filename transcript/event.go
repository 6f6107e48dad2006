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

	"raymond/state"
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
	// Outcome is how a step ended, in its runner's words (step.Result.Class).
	Outcome string `json:"outcome,omitempty"`
	// CostUSD is the cost of a step.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// TotalCostUSD is the cost of the run so far.
	TotalCostUSD *float64 `json:"total_cost_usd,omitempty"`
	// DurationMS is how long a step took.
	DurationMS int64 `json:"duration_ms,omitempty"`
	// NotStarted is set on the step_ended event of a step whose process
	// never started: it could not start, or was canceled before it did.
	// Such a step is not counted as a step (it ran nothing and cost
	// nothing); it runs again on resume.
	NotStarted bool `json:"not_started,omitempty"`
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
	// Message is a reason, a warning or an error text; for the live events
	// text and print what the model said, for tool_use and tool_failed the
	// tool's detail.
	Message string `json:"message,omitempty"`

	// The fields below were added with the live event stream; transcripts
	// written before them simply lack them.

	// Run is the run's id. It is set on events published while the run is
	// driven and never written: the transcript folder is named for it.
	Run string `json:"-"`
	// Seq is the agent's step number, as in the step's name (step_started).
	Seq int `json:"seq,omitempty"`
	// Mode is the step's session mode: new, resume or branch
	// (step_started).
	Mode string `json:"mode,omitempty"`
	// Model is the model the step asks for, "" for the default
	// (step_started).
	Model string `json:"model,omitempty"`
	// Fallbacks are the models the step may go on with after Model, in
	// order (step_started).
	Fallbacks []string `json:"fallback_models,omitempty"`
	// MCPServers are the names of the MCP servers the step's state gives
	// it (mcp_config; step_started); their commands and env are not
	// recorded, as env values may be secrets.
	MCPServers []string `json:"mcp_servers,omitempty"`
	// AllowedTools, DisallowedTools and PermissionMode are the tool limits
	// of a step whose state sets any (step_started): its rules, and the
	// permission mode it ran in ("bypassPermissions" for a run that skips
	// permissions). A step of a state without limits has none of them.
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	PermissionMode  string   `json:"permission_mode,omitempty"`
	// Reminder marks a step that sends a reminder rather than the state's
	// prompt (step_started).
	Reminder bool `json:"reminder,omitempty"`
	// Max is how many retries (retry) or reminders (reminder) a step may
	// have, a state's max_visits (visit_cap), or the loop_stop of a
	// step (loop_warning, tool_repeated).
	Max int `json:"max,omitempty"`
	// Visits is how many times the agent entered the capped state
	// (visit_cap).
	Visits int `json:"visits,omitempty"`
	// Count is how many times something repeated: identical tool calls
	// (loop_warning, tool_repeated), rounds of a cycle (cycle).
	Count int `json:"count,omitempty"`
	// AskID names the ask of an ask event; Deadline is when it expires
	// and TimeoutNext where its agent goes then.
	AskID       string     `json:"ask_id,omitempty"`
	Deadline    *time.Time `json:"deadline,omitempty"`
	TimeoutNext string     `json:"timeout_next,omitempty"`
	// DelayMS is the back-off before a retry.
	DelayMS int64 `json:"delay_ms,omitempty"`
	// Vars are the variables a fork gave the agent it spawned (spawn).
	Vars map[string]string `json:"vars,omitempty"`
	// Tool is the tool the model used (tool_use, tool_failed).
	Tool string `json:"tool,omitempty"`
	// Code is the HTTP status of an API error claude retries (api_retry).
	Code int `json:"code,omitempty"`
	// Steps and Agents count the run's steps and agents (summary).
	Steps  int `json:"steps,omitempty"`
	Agents int `json:"agents,omitempty"`
	// BudgetUSD is the run's budget, 0 for none (summary).
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	// Failures are the agents that failed (summary).
	Failures []Failure `json:"failures,omitempty"`
	// Scripted marks the events of a run driven with scripted replies
	// (--replies): no model ran, its costs are the replies' own and its
	// tool uses never happened (run_started, run_resumed, transition,
	// tool_use, tool_failed, run_ended, summary).
	Scripted bool `json:"scripted,omitempty"`

	// The fields below came with workspaces (issue 22).

	// Checkpoint is the commit a step's changes became (checkpoint).
	Checkpoint *state.Checkpoint `json:"checkpoint,omitempty"`
	// Branch is a worker's branch (merged, merge_conflict); Commit the
	// merge commit (merged) or the ref a salvage saved to (salvaged).
	Branch string `json:"branch,omitempty"`
	Commit string `json:"commit,omitempty"`
	// Paths are the paths that conflicted (merge_conflict).
	Paths []string `json:"paths,omitempty"`
}

// Failure is an agent that failed, as the run's summary names it.
type Failure struct {
	Agent string `json:"agent"`
	State string `json:"state"`
	Error string `json:"error"`
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
	// EventVisitCap: an agent's entry into a state was past the state's
	// max_visits; Tag, Target (or Payload) are the on_max_visits taken
	// instead, none when the agent failed.
	EventVisitCap = "visit_cap"
	// EventFallback: a step goes on with another model (model: [opus,
	// sonnet]): Model is the one it left, Target the one it takes,
	// Outcome why ("overloaded", "usage limit", "rate limit rejected"),
	// Message the whole sentence. Within a step (claude's own
	// --fallback-model) Step is empty.
	EventFallback = "model_fallback"
	// EventStepDeferred (live): a step stopped and runs again later;
	// Outcome says why (canceled, usage limit, exhausted: the run's
	// budget). The step_ended event before it is what the transcript keeps.
	EventStepDeferred = "step_deferred"
	// EventStepAdopted: a step in flight when the last driver stopped was
	// adopted rather than run again (Step, State; Outcome: "running", its
	// process still ran, or "ended", its output holds its end). Its
	// step_ended follows when it ends, as for any step.
	EventStepAdopted = "step_adopted"
	// EventStopping: no new step starts. Message is empty for a signal,
	// and the error for a state file that could not be saved.
	EventStopping = "stopping"
	// EventAsk: an agent asked a person (AskID, State, Message: the
	// question, Target: where it goes once answered, Deadline).
	EventAsk = "ask"
	// EventAnswered: an ask was answered (AskID, Payload: the answer,
	// Target, DurationMS: how long it waited).
	EventAnswered = "ask_answered"
	// EventAskExpired: an ask reached its deadline unanswered (AskID,
	// Target: its timeout_next, "" when the agent fails; DurationMS).
	EventAskExpired = "ask_expired"
	// EventCycle: an agent went round the same cycle of states with
	// identical answers Count times in a row (cycle_stop) and fails
	// (Message: the cycle, "A.md → B.md → A.md repeated 3 times with
	// identical answers").
	EventCycle = "cycle"
	// EventLoopWarning: a step made the same tool call (Tool; Message:
	// the call with its input) Count times (loop_warn); Max is the count
	// that stops it (loop_stop), 0 for none. Published when the step
	// ends; the person watching saw EventToolRepeated as it happened.
	EventLoopWarning = "loop_warning"
	// EventAsking: nothing can progress while agents wait for answers; the
	// run is saved as asking (Message: how many asks are pending).
	EventAsking = "asking"
	// EventCheckpoint: what a step changed in its agent's worktree became
	// a commit (Agent, Step, State, Checkpoint).
	EventCheckpoint = "checkpoint"
	// EventMerged: a worker's branch (Child, Branch) was merged into the
	// workspace of Agent (Commit: the merge commit).
	EventMerged = "merged"
	// EventMergeConflict: a worker's branch (Child, Branch) conflicted
	// with Agent's workspace in Paths; it was left out and kept.
	EventMergeConflict = "merge_conflict"
	// EventSalvaged: a worktree held what a step cut short left; it was
	// saved on the ref Commit and the worktree reset (Agent, Message).
	EventSalvaged = "salvaged"
)

// The types of live events: published while a run is driven, for the
// progress lines and other live sinks, and never written to events.jsonl
// (see Event.Live). What the model said and did is in the step's own
// .jsonl already.
const (
	// EventText: the model said something (Message).
	EventText = "text"
	// EventToolUse: the model used Tool (Message: the detail).
	EventToolUse = "tool_use"
	// EventToolFailed: a tool use failed (Tool; Message: the detail).
	EventToolFailed = "tool_failed"
	// EventPrint: a print of the workflow (Message).
	EventPrint = "print"
	// EventAPIRetry: claude retries an API error itself (Code, Attempt).
	EventAPIRetry = "api_retry"
	// EventToolRepeated: a running step made the same tool call (Tool;
	// Message: the call) Count times, its loop_warn; Max is its loop_stop.
	EventToolRepeated = "tool_repeated"
	// EventWaitTick: a usage-limit wait goes on (Until).
	EventWaitTick = "wait_tick"
	// EventStillRunning: a step has run a long time (Agent, State, Step,
	// DurationMS; Tool and Message: the last tool it used, if any).
	EventStillRunning = "still_running"
	// EventWaitingFor: the run stops once these steps end (Message: the
	// steps, with how long each has run).
	EventWaitingFor = "waiting_for"
	// EventTranscriptFailed: the transcript cannot be written (Message).
	EventTranscriptFailed = "transcript_failed"
	// EventSummary: the run's last word, after run_ended (Run, Status,
	// DurationMS, Steps, Agents, TotalCostUSD, BudgetUSD, Failures;
	// Message: the run's error when the caller does not show it itself).
	EventSummary = "summary"
)

// Live reports whether e is a live event, one that is never written to
// events.jsonl. Every event after run_ended must be live: readers take a
// run_ended that is the last event as the end of the run.
func (e *Event) Live() bool {
	switch e.Type {
	case EventText, EventToolUse, EventToolFailed, EventPrint, EventAPIRetry,
		EventWaitTick, EventTranscriptFailed, EventSummary, EventStepDeferred,
		EventStillRunning, EventWaitingFor, EventToolRepeated:
		return true
	}
	return false
}

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

// FallbackMessage is the Message of an EventFallback: "claude-opus-5-5
// overloaded: going on with sonnet".
func FallbackMessage(from, why, to string) string {
	return from + " " + why + ": going on with " + to
}
