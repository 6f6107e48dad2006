package analysis

import (
	"time"

	"raymond/permission"
	"raymond/state"
)

// SchemaVersion is the version of the JSON that `raymond transcript --json`
// prints (Run and everything under it). Adding a field keeps it; renaming,
// removing or changing the meaning of one bumps it.
const SchemaVersion = 1

// Run is what a transcript folder (and the run's state file, when there is
// one) says about one run. Times are UTC. Durations are kept in full (the
// time.Duration fields, left out of the JSON) and rounded to milliseconds
// for the JSON only once they are added up.
type Run struct {
	Schema int `json:"schema"`
	// ID is the run id, the transcript folder's name.
	ID string `json:"id"`
	// Dir is the transcript folder analysed.
	Dir string `json:"dir"`
	// Workflow is the workflow folder (run_started's message or the state
	// file's scope_dir); Entry its entry state.
	Workflow string `json:"workflow,omitempty"`
	Entry    string `json:"entry,omitempty"`
	// ScopeDir is where the workflow is on disk: the state file's
	// scope_dir (for a workflow from a URL, its copy in the registry),
	// else Workflow when that is a path.
	ScopeDir string `json:"scope_dir,omitempty"`
	// Status is the run's status: run_ended's, else the state file's, else
	// "unknown". Running is true when a process drives the run now.
	Status  string  `json:"status"`
	Running bool    `json:"running"`
	Result  *string `json:"result,omitempty"`
	Error   string  `json:"error,omitempty"`
	// Started is the first event; Ended the run_ended event, else the
	// last event when the run never ended (see Complete), or now while a
	// process drives it. Wall is Ended-Started, WallMS the same rounded.
	Started time.Time     `json:"started"`
	Ended   time.Time     `json:"ended"`
	Wall    time.Duration `json:"-"`
	WallMS  int64         `json:"wall_ms"`
	// DrivenMS is the part of the wall time during which a process drove
	// the run (from run_started or run_resumed to run_ended, or to the
	// last event of a process that stopped without one); Resumes counts
	// the run_resumed events.
	Driven   time.Duration `json:"-"`
	DrivenMS int64         `json:"driven_ms"`
	Resumes  int           `json:"resumes"`
	// Scripted says a process drove the run with scripted replies
	// (--replies): no model ran and its costs were never billed.
	Scripted bool `json:"scripted,omitempty"`
	// Processes are the periods during which a process drove the run, one
	// per run_started or run_resumed event, in order.
	Processes []Process `json:"processes,omitempty"`
	// Complete is true when the transcript ends with run_ended and nothing
	// is missing; Notes then is empty.
	Complete bool `json:"complete"`
	// Notes say plainly what is missing or cut short and how far the
	// analysis goes ("events.jsonl ends in a torn line (312 bytes), dropped",
	// "the run has not ended: still running (pid 4242)", "main_WORK_004:
	// no meta file, the step was cut short").
	Notes []string `json:"notes,omitempty"`
	// Warnings are the warning events of the run, in order.
	Warnings []string `json:"warnings,omitempty"`

	// CostUSD is the run's total cost (the last total seen); BudgetUSD its
	// budget, 0 for none.
	CostUSD   float64 `json:"cost_usd"`
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	Tokens    Tokens  `json:"tokens"`
	// Counts.
	StepCount  int `json:"steps"`
	AgentCount int `json:"agents"`
	Retries    int `json:"retries"`
	// Fallbacks counts the times a step went on with the next model of its
	// list (model_fallback events: claude's own and raymond's).
	Fallbacks int `json:"fallbacks,omitempty"`
	Reminders int `json:"reminders"`
	Failures  int `json:"failures"` // steps whose outcome was not success
	// Waits are the usage-limit waits; WaitTime their total length (a
	// wait still going counts until Ended), WaitMS the same rounded.
	Waits    []Wait        `json:"waits,omitempty"`
	WaitTime time.Duration `json:"-"`
	WaitMS   int64         `json:"wait_ms"`
	// BudgetExceeded is set when a budget_exceeded event was seen.
	BudgetExceeded bool `json:"budget_exceeded,omitempty"`

	// Agents in the order they appeared.
	Agents []*Agent `json:"agents_detail"`
	// Steps in the order they started.
	Steps []*Step `json:"steps_detail"`
	// NotStarted are the steps that never ran a process (Step.NotStarted):
	// not in Steps, nor in the counts, the agents' steps or the path, so
	// that a run stopped before a step started does not count it.
	NotStarted []*Step `json:"not_started,omitempty"`
	// States: per-state statistics, sorted by cost (highest first), then
	// by name.
	States []*StateStats `json:"states"`
	// Asks are the questions agents put to a person, in the order asked.
	Asks []*Ask `json:"asks,omitempty"`
	// VisitCaps are the entries past a state's max_visits, in order: where
	// a cap fired and what the agent did instead.
	VisitCaps []*VisitCap `json:"visit_caps,omitempty"`
	// CriticalPath: the names of the chain of steps that determined the
	// wall time, first to last (see CriticalPath in critical.go).
	CriticalPath []string `json:"critical_path"`
	// Changes is what a run in the worktree mode changed in git as a
	// whole, nil for a run in the shared mode. Load leaves it nil (the
	// analysis runs no git); the caller fills it (see Changes).
	Changes *Changes `json:"changes,omitempty"`
}

// VisitCap is one visit_cap event: an agent's entry into State was past
// its max_visits (Max), after Visits entries. Tag and Target (or Payload,
// for a result) are the on_max_visits it took; Tag is "" when it had none
// and the agent failed.
type VisitCap struct {
	Time    time.Time `json:"time"`
	Agent   string    `json:"agent"`
	State   string    `json:"state"`
	Visits  int       `json:"visits"`
	Max     int       `json:"max_visits"`
	Tag     string    `json:"tag,omitempty"`
	Target  string    `json:"target,omitempty"`
	Payload *string   `json:"payload,omitempty"`
	// Taken says it in words: "goto ASK.md", "the agent fails".
	Taken string `json:"taken"`
}

// Tokens adds up the usage of steps.
type Tokens struct {
	Input         int64 `json:"input"`
	Output        int64 `json:"output"`
	CacheRead     int64 `json:"cache_read"`
	CacheCreation int64 `json:"cache_creation"`
}

// Process is one period during which a process drove the run.
type Process struct {
	Started time.Time `json:"started"`
	// Ended is its run_ended event, or its last event when it stopped
	// without one (Crashed), or the last event so far while it runs.
	Ended   time.Time `json:"ended"`
	Crashed bool      `json:"crashed,omitempty"`
}

// Wait is one usage-limit wait (a wait event up to its wait_over, or to
// the end of the transcript).
type Wait struct {
	Started time.Time `json:"started"`
	Until   time.Time `json:"until"`
	// Ended is the wait_over event, or the end of the process that
	// waited (run_ended); zero (and absent from the JSON) while the wait
	// goes on.
	Ended  time.Time `json:"ended,omitzero"`
	Reason string    `json:"reason,omitempty"`
}

// Agent is one agent of the run.
type Agent struct {
	ID string `json:"id"`
	// Parent is the agent that forked it, and SpawnStep the step whose
	// fork did; both empty for main.
	Parent    string `json:"parent,omitempty"`
	SpawnStep string `json:"spawn_step,omitempty"`
	// Status: completed or failed; asking when it waits for an answer
	// (Run.Asks) and has not ended; running when the agent has not ended
	// and a process drives the run, stopped when it has not ended and
	// nothing drives the run (paused, waiting, over budget, crashed).
	Status string  `json:"status"`
	Result *string `json:"result,omitempty"`
	Error  string  `json:"error,omitempty"`
	// Path is the sequence of states the agent went through.
	Path    []*Visit  `json:"path"`
	Started time.Time `json:"started"`
	// Ended is when the agent completed or failed; zero (and absent from
	// the JSON) when it has not.
	Ended   time.Time `json:"ended,omitzero"`
	CostUSD float64   `json:"cost_usd"`
	// StepNames are the agent's steps in order (Step.Name), by seq.
	StepNames []string `json:"steps"`
	// Failures are the times the agent failed, in order: those a resume
	// ran the agent on from, and, for an agent that ended failed, the
	// last one.
	Failures []Failure `json:"failures,omitempty"`
}

// Failure is one time an agent failed (an agent_failed event).
type Failure struct {
	// Step is the agent's step after which it failed, "" when it failed
	// before running one (a state that cannot be loaded); State is where.
	Step  string    `json:"step,omitempty"`
	State string    `json:"state"`
	Error string    `json:"error"`
	Time  time.Time `json:"time"`
	// ResumedAs is the step a resume ran the agent on with after the
	// failure; "" when none did.
	ResumedAs string `json:"resumed_as,omitempty"`
}

// Visit is one stay of an agent in a state: entered by a transition (or as
// the agent's first state), left by the next one. Reminders and retries
// are steps of the same visit.
type Visit struct {
	State string `json:"state"`
	// Via is the tag that led here: "" for main's entry state, "fork" for a
	// forked agent's first state, else goto, reset, call, function, result
	// (a return to the caller), ask, "ask timeout" (an ask that expired
	// into its timeout_next) or a cross-workflow tag (call-workflow, …;
	// State is then "scope/STATE.md" when the state is in another
	// workflow).
	Via string `json:"via"`
	// Depth is the agent's stack depth during the visit (0 at top level,
	// 1 inside a call or function, …).
	Depth int `json:"depth"`
	// Steps are the names of the visit's steps (attempts, reminders).
	Steps []string `json:"steps"`
	// NotRun says why a visit that the transcript does not leave ran no
	// step ("budget reached", "paused", "not started yet", …); "" for a
	// visit that ran one.
	NotRun string `json:"not_run,omitempty"`
	// Exit is the tag that left the state ("" when the transcript ends
	// inside the visit), Target where it went ("" for a result that ended
	// the agent).
	Exit   string `json:"exit,omitempty"`
	Target string `json:"target,omitempty"`
	// Spawned are the agents a fork in this visit started.
	Spawned []string `json:"spawned,omitempty"`
	// Result is the payload of a result tag that left this state.
	Result *string `json:"result,omitempty"`
	// CostUSD and Duration add up the visit's steps; DurationMS is
	// Duration rounded.
	CostUSD    float64       `json:"cost_usd"`
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
}

// Step is one run of claude (or of the scripted runner): one attempt, one
// reminder or one retry is one step, with its own transcript files.
type Step struct {
	// Name is the transcript base name, <agent>_<stem>_<NNN>.
	Name  string `json:"name"`
	Agent string `json:"agent"`
	Seq   int    `json:"seq"`
	// State is the step's state, "scope/STATE.md" for a state in
	// another workflow than the run's (as the transition there named it).
	State    string `json:"state"`
	Attempt  int    `json:"attempt"`
	Reminder bool   `json:"reminder,omitempty"`
	// Session is the session the step ran in; SessionMode new, resume or
	// branch; ResumedSession the session resumed or branched from.
	Session        string    `json:"session,omitempty"`
	SessionMode    string    `json:"session_mode,omitempty"`
	ResumedSession string    `json:"resumed_session,omitempty"`
	Started        time.Time `json:"started"`
	// Ended is zero (and absent from the JSON) for a step that never
	// ended (cut short, or running).
	Ended time.Time `json:"ended,omitzero"`
	// Duration is Ended-Started, from the step_started and step_ended
	// events (from the meta file only when they are missing). For a step
	// that never ended it is the time it is known to have run: until now
	// while a process drives it, until the end of its process when it was
	// cut short. DurationMS is Duration rounded.
	Duration   time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
	// CutShort is set for a step that never ended and never will: the
	// process that ran it stopped (crashed or was killed) without ending
	// it.
	CutShort bool `json:"cut_short,omitempty"`
	// NotStarted is set for a step whose process never started: it could
	// not start, or the run was stopped before it did. Such a step is in
	// Run.NotStarted, not in Run.Steps: it is not counted as a step.
	NotStarted bool `json:"not_started,omitempty"`
	// Outcome is claude.Outcome's name ("success", "crash", …), or "" when
	// the step has not ended.
	Outcome string `json:"outcome,omitempty"`
	// Error is why the step's answer was refused, why it did not succeed
	// (the reason its retry gave: "claude exited with status 1 without an
	// answer (stderr: boom)") or why it could not start.
	Error string `json:"error,omitempty"`
	// ExitCode, Signal and Stderr are how its claude process ended, from
	// the meta file: the exit status, the signal that killed it, the tail
	// of what it wrote on stderr.
	ExitCode int     `json:"exit_code,omitempty"`
	Signal   string  `json:"signal,omitempty"`
	Stderr   string  `json:"stderr,omitempty"`
	CostUSD  float64 `json:"cost_usd"`
	Tokens   Tokens  `json:"tokens"`
	Model    string  `json:"model,omitempty"`
	// Tools are the step's tool limits, nil when its state sets none.
	Tools *ToolLimits `json:"tools,omitempty"`
	// Runner is what ran the step: claude, scripted, or script for a
	// script state (protocol §11), which has no model, no session and no
	// .jsonl, and costs nothing.
	Runner string `json:"runner,omitempty"`
	// Script is how a script step ran, nil for any other step.
	Script *ScriptRun `json:"script,omitempty"`
	// AskID is the ask the step's answer made (Tag "ask"), "" for none.
	AskID string `json:"ask_id,omitempty"`
	// Tag and Target are the transition the step's answer made ("" when it
	// made none: a failure, a reminder followed, or the transcript ends).
	Tag    string  `json:"tag,omitempty"`
	Target string  `json:"target,omitempty"`
	Result *string `json:"result,omitempty"`
	// Retried is set when the step failed and was retried; Reminded when
	// its answer had no valid tag and a reminder followed.
	Retried  bool `json:"retried,omitempty"`
	Reminded bool `json:"reminded,omitempty"`
	// FellBack says the step's model failed it and it ran again on the
	// next of its list ("claude-opus-5-5 overloaded: going on with
	// sonnet"); "" for none.
	FellBack string `json:"fell_back,omitempty"`
	// Refused is why the step's answer was refused: the reason its
	// reminder gave ("no transition tag", a target the policy does not
	// allow, …); "" when no reminder followed.
	Refused string `json:"refused,omitempty"`
	// AgentFailed is why the agent failed right after this step (the
	// agent_failed event's message); "" when it did not.
	AgentFailed string `json:"agent_failed,omitempty"`
	// WaitUntil is, for a step stopped by the usage limit, when the wait
	// that followed it was to end; zero when no wait followed.
	WaitUntil time.Time `json:"wait_until,omitzero"`
	// Next is the agent's step after this one, "" for its last.
	Next string `json:"next,omitempty"`
	// Files present in the transcript folder for this step.
	HasPrompt bool `json:"has_prompt"`
	HasLines  bool `json:"has_lines"`
	HasMeta   bool `json:"has_meta"`
	// Checkpoint is the commit made of what the step changed, in a run in
	// the worktree mode (from the meta file); nil when it changed nothing.
	Checkpoint *state.Checkpoint `json:"checkpoint,omitempty"`
}

// StateStats is what one state cost over the run.
type StateStats struct {
	State string `json:"state"`
	// Visits counts the entries into the state, as the path shows them;
	// NotRun those of them that never ran a step (the run stopped, paused
	// or is about to run it), so that Visits-NotRun visits ran Steps steps.
	Visits int `json:"visits"`
	NotRun int `json:"not_run,omitempty"`
	Steps  int `json:"steps"`
	// Duration adds up the steps' durations; Mean is per visit that ran.
	// DurationMS and MeanMS are the same rounded.
	Duration   time.Duration `json:"-"`
	Mean       time.Duration `json:"-"`
	DurationMS int64         `json:"duration_ms"`
	MeanMS     int64         `json:"mean_ms"`
	CostUSD    float64       `json:"cost_usd"`
	Tokens     Tokens        `json:"tokens"`
	Reminders  int           `json:"reminders"`
	Failures   int           `json:"failures"`
}

// Detail is one step in full, for --step and the HTML report: the prompt
// sent and what the model did, from the step's .prompt.md and .jsonl.
type Detail struct {
	Step   *Step  `json:"step"`
	Prompt string `json:"prompt"`
	// Items are what the model said and did, in order.
	Items []Item `json:"items"`
	// Answer is the final answer (the result line's text), "" when none.
	Answer string `json:"answer"`
	// Stdout and Stderr are the tails of what a script step wrote on
	// each stream (Step.Script); empty for other steps.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	// Notes say what is missing (no .jsonl, a torn line, …).
	Notes []string `json:"notes,omitempty"`
}

// Item is one thing a step's stream shows.
type Item struct {
	// Kind is "text", "tool" (a call), "tool_result", "error" or "note".
	Kind string `json:"kind"`
	// Text is the text, the tool's key argument or the result, abbreviated
	// to a few lines by the loader (Full says whether it was cut).
	Text string `json:"text"`
	// Tool is the tool's name for tool and tool_result items.
	Tool  string `json:"tool,omitempty"`
	IsErr bool   `json:"is_error,omitempty"`
	Cut   bool   `json:"cut,omitempty"`
}

// ToolLimits are the tool limits a step ran with (its state's
// allowed_tools, disallowed_tools and permission_mode).
type ToolLimits struct {
	// Allowed and Disallowed are the rules passed as --allowedTools and
	// --disallowedTools.
	Allowed    []string `json:"allowed,omitempty"`
	Disallowed []string `json:"disallowed,omitempty"`
	// PermissionMode is the mode the step ran in: the state's own, or the
	// run's ("bypassPermissions" when the run skipped permissions).
	PermissionMode string `json:"permission_mode,omitempty"`
}

// String is the limits in one short line: "allow Read, Grep; deny Write;
// mode plan".
func (t *ToolLimits) String() string {
	if t == nil {
		return ""
	}
	return permission.Summary(t.Allowed, t.Disallowed, t.PermissionMode)
}
