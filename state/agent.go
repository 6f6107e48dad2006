package state

import "time"

// Agent is one thread of control inside a run (protocol.md §1).
type Agent struct {
	// ID is "main" or a fork id such as main_worker1.
	ID string `json:"id"`
	// Scope is the absolute path of the workflow folder CurrentState belongs
	// to; "" means the run's own (Run.ScopeDir).
	Scope string `json:"scope_dir,omitempty"`
	// CurrentState is the file name of the state the agent is at: the state of
	// its pending step, or the one it ended in.
	CurrentState string `json:"current_state"`
	// SessionID is the agent's current session, "" before its first step.
	SessionID string `json:"session_id"`
	// Cwd is the agent's absolute working directory.
	Cwd string `json:"cwd"`
	// Stack is the return stack, bottom first (protocol.md §4).
	Stack []Frame `json:"stack"`
	// Status is where the agent stands.
	Status AgentStatus `json:"status"`
	// Pending is the agent's next step, written in full before it starts; nil
	// when it has none (it completed).
	Pending *Step `json:"pending,omitempty"`
	// Steps counts the steps run so far (reminders and retries too); it numbers
	// the transcript files (NNN).
	Steps int `json:"steps"`
	// Attempts counts the tries of the current step.
	Attempts int `json:"attempts"`
	// LastError is the reason of the last failed attempt, or of the agent's
	// failure.
	LastError string `json:"last_error,omitempty"`
	// Result is the agent's result once it completed.
	Result *string `json:"result,omitempty"`
	// Parent is the id of the agent that forked this one; "" for main.
	Parent string `json:"parent,omitempty"`
	// ScopeURL is the pinned URL Scope was downloaded from (protocol.md
	// §13.2); "" for a local scope. Relative specifiers of a URL scope
	// resolve against it.
	ScopeURL string `json:"scope_url,omitempty"`
	// TaskFolder is the agent's task folder, absolute (protocol.md §16); ""
	// in runs made before task folders existed.
	TaskFolder string `json:"task_folder,omitempty"`
	// TaskSeq counts the fresh task folders task="new" on a reset gave the
	// agent: <agent>_task<N>.
	TaskSeq int `json:"task_seq,omitempty"`
	// Chain is the workflow chain (protocol.md §14.2): the scopes the agent
	// entered by call-workflow, function-workflow and fork-workflow, the
	// first being the scope it started from (the run's, or its last
	// reset-workflow's). Empty means the run's scope alone.
	Chain []string `json:"chain,omitempty"`
	// Visits counts the agent's entries into each state that has a visit
	// cap, by the state's identity: its file name for a state of the run's
	// own workflow, the workflow's path, "/" and the file name for another
	// (protocol.md §6, max_visits). A forked agent starts with none; a
	// reset keeps them.
	Visits map[string]int `json:"visits,omitempty"`
	// Recent are the fingerprints of the agent's last successful steps,
	// oldest first (state and a hash of the final answer, see
	// machine's cycle check), at most a few dozen: a resume keeps
	// counting a cycle where it was. A script step, or a state that opts
	// out (cycle_check: false), empties it.
	Recent []string `json:"recent,omitempty"`
	// Ask is the agent's ask while it is asking, and its last ask after
	// (answered or expired) until its next step ends; nil when it never
	// asked.
	Ask *Ask `json:"ask,omitempty"`
	// Workspace is the worktree the agent works in, in a run in the
	// worktree mode; nil otherwise.
	Workspace *AgentWorkspace `json:"workspace,omitempty"`
}

// Ask is a question an agent puts to a person (protocol.md §15).
type Ask struct {
	// ID is ask_<agent>_<n>, n counting the run's asks.
	ID string `json:"ask_id"`
	// Question is the body of the <ask> tag.
	Question string `json:"prompt"`
	// State is the state that asked.
	State string `json:"state"`
	// Next is where the agent continues once answered; TimeoutNext where it
	// continues if nobody answered by Deadline ("" fails the agent).
	Next        string `json:"next"`
	TimeoutNext string `json:"timeout_next,omitempty"`
	// Timeout is how long the ask waits, as written ("48h"), "" for ever.
	Timeout string `json:"timeout,omitempty"`
	// AskedAt is when the ask was made; Deadline AskedAt plus the timeout,
	// nil without one.
	AskedAt  time.Time  `json:"asked_at"`
	Deadline *time.Time `json:"deadline,omitempty"`
	// Session is the session the agent continues in once answered.
	Session string `json:"session,omitempty"`
	// Answer is the person's answer, recorded before it is used; nil while
	// pending. AnsweredAt is when it was recorded.
	Answer     *string    `json:"answer,omitempty"`
	AnsweredAt *time.Time `json:"answered_at,omitempty"`
	// Expired says the deadline passed without an answer.
	Expired bool `json:"expired,omitempty"`
}

// Pending reports whether the ask still waits for an answer.
func (k *Ask) Pending() bool { return k != nil && k.Answer == nil && !k.Expired }

// AgentStatus is where an agent stands.
type AgentStatus string

// Agent statuses.
const (
	// AgentReady: its pending step is ready to start.
	AgentReady AgentStatus = "ready"
	// AgentRunning: its pending step has started (and, after a crash, must be
	// run again).
	AgentRunning AgentStatus = "running"
	// AgentCompleted: it emitted <result> with an empty stack.
	AgentCompleted AgentStatus = "completed"
	// AgentFailed: it failed; resume retries it from its current state.
	AgentFailed AgentStatus = "failed"
	// AgentAsking: it waits for a person's answer to Agent.Ask; it has no
	// pending step until the answer (or the deadline) comes.
	AgentAsking AgentStatus = "asking"
)

// Ended reports whether the agent has completed or failed.
func (s AgentStatus) Ended() bool {
	return s == AgentCompleted || s == AgentFailed
}

// Frame is one entry of an agent's return stack: where to continue when the
// callee emits <result>.
type Frame struct {
	// Session is the caller's session, resumed on return.
	Session string `json:"session"`
	// Ref is the return state, and the caller's scope, restored on return.
	Ref
	// Cwd is the caller's working directory, restored on return.
	Cwd string `json:"cwd"`
	// TaskFolder and Chain are the caller's, restored on return.
	TaskFolder string   `json:"task_folder,omitempty"`
	Chain      []string `json:"chain,omitempty"`
	// Workspace is the caller's workspace, restored on return, when the
	// callee works in a worktree of its own (workspace="new"); nil when it
	// shares the caller's.
	Workspace *AgentWorkspace `json:"workspace,omitempty"`
}

// SessionMode says which session a step runs in.
type SessionMode string

// Session modes of a step.
const (
	// SessionNew starts a new session with the pre-minted Step.SessionID.
	SessionNew SessionMode = "new"
	// SessionResume resumes Step.ResumeSession.
	SessionResume SessionMode = "resume"
	// SessionBranch resumes Step.ResumeSession into a new session
	// (--fork-session) with the pre-minted Step.SessionID.
	SessionBranch SessionMode = "branch"
)

// Step is one step fully determined before it starts: running it again after a
// crash runs exactly the same step.
type Step struct {
	// Ref is the state the step runs.
	Ref
	// Mode is new, resume or branch.
	Mode SessionMode `json:"mode"`
	// ResumeSession is the session to resume or branch from.
	ResumeSession string `json:"resume_session,omitempty"`
	// ResumeAt, in a branch, is the message ResumeSession is branched at
	// (claude's --resume-session-at): set in a rewound run (Run.Rewound),
	// where the sessions of the original are taken as they stood before
	// the step rewound to.
	ResumeAt string `json:"resume_at,omitempty"`
	// Override, set on the step a rewind starts from, replaces the model
	// and effort the step would run with (raymond rewind --model/--effort);
	// the steps after it run as the workflow says.
	Override *Override `json:"override,omitempty"`
	// SessionID is the pre-minted id of a new session or branch, known before
	// the process starts so the transcript and the cost ledger can name it.
	// Claude Code records a session as soon as the prompt is written, and
	// refuses an id already in use; so whoever re-runs an interrupted or
	// failed new/branch step must mint a fresh id for the new attempt (the
	// step is otherwise the same: state, input, variables, the session it
	// branches from, cwd).
	SessionID string `json:"session_id,omitempty"`
	// Input is {{input}}; nil when the step has none.
	Input *string `json:"input,omitempty"`
	// Vars are the fork variables of a forked agent's first state.
	Vars map[string]string `json:"vars,omitempty"`
	// Cwd is the absolute working directory of the claude process.
	Cwd string `json:"cwd"`
	// Reminder is the text sent instead of the prompt when the step is a
	// reminder (protocol.md §6.2).
	Reminder string `json:"reminder,omitempty"`
	// Attempt is the try number of this step, from 1.
	Attempt int `json:"attempt"`
	// Model is the model to use, "" for Claude Code's default.
	Model string `json:"model,omitempty"`
	// Fallbacks are the models the step may go on with, in order, when
	// Model is overloaded, rejected or out of limits (model: [opus,
	// sonnet]); the first is passed as claude's --fallback-model.
	Fallbacks []string `json:"fallback_models,omitempty"`
	// Skipped are the models this step gave up (overloaded, rejected, out
	// of limits): its next attempt runs on the first of its list that is
	// not here.
	Skipped []string `json:"skipped_models,omitempty"`
	// MCPConfig is the file of the state's MCP servers (mcp_config, as
	// checked when the step was prepared), passed as --mcp-config with
	// --strict-mcp-config; MCPServers their names, for the transcript.
	MCPConfig  string   `json:"mcp_config,omitempty"`
	MCPServers []string `json:"mcp_servers,omitempty"`
	// Effort is the effort to use, "" for none.
	Effort string `json:"effort,omitempty"`
	// StepTimeout, when set, is the state's own step_timeout (frontmatter),
	// which replaces the run's --step-timeout for this step; 0: none.
	StepTimeout *Duration `json:"step_timeout,omitempty"`
	// Timeout, when set, is the state's own idle timeout (frontmatter or
	// YAML timeout), which replaces the run's --timeout; 0: never.
	Timeout *Duration `json:"timeout,omitempty"`
	// AllowedTools and DisallowedTools are the state's own tool rules
	// (allowed_tools, disallowed_tools), passed to claude as
	// --allowedTools and --disallowedTools; none when the state sets none.
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	// PermissionMode is the state's own permission_mode, which replaces
	// the run's --permission-mode and --dangerously-skip-permissions for
	// this step; "" for the run's.
	PermissionMode string `json:"permission_mode,omitempty"`
	// MaxTurns, LoopWarn and LoopStop, when set, are the state's own
	// max_turns, loop_warn and loop_stop (its frontmatter), which replace
	// the run's; 0: none.
	MaxTurns *int `json:"max_turns,omitempty"`
	LoopWarn *int `json:"loop_warn,omitempty"`
	LoopStop *int `json:"loop_stop,omitempty"`
	// NoCycleCheck says the state opted out of the cycle check
	// (cycle_check: false): its steps never count as part of a cycle.
	NoCycleCheck bool `json:"no_cycle_check,omitempty"`
	// Returned says the step follows a <result> return: its Input is also
	// {{result}} (protocol.md §7).
	Returned bool `json:"returned,omitempty"`
	// AskID is {{ask_id}}: set on the step after an ask was answered or
	// expired.
	AskID string `json:"ask_id,omitempty"`
	// Entry says the step enters its state by a transition (or starts the
	// agent) and that entry is not yet counted against the state's visit
	// cap: it is counted, once, when the step is first prepared, and
	// cleared in the same save, so a retry, a reminder or a resume of the
	// step never counts again.
	Entry bool `json:"entry,omitempty"`
	// Capped lists the states whose visit cap sent the agent here by
	// their on_max_visits since its last step ran, so that fallbacks
	// looping between capped states end: a fallback back into one of them
	// fails the agent.
	Capped []string `json:"capped,omitempty"`
	// Process is the process the step started, once it has: steps run
	// detached from their driver, and the driver that comes after one
	// that died finds the step's process by it (pid and start time, with
	// the step's marker in its environment) to adopt it rather than pay
	// for the step again. nil before the start, and for a step whose
	// runner starts no process.
	Process *Process `json:"process,omitempty"`
}

// Process identifies the process a step started: its pid, its start time in
// clock ticks after boot (field 22 of /proc/PID/stat), which no later process
// with the same pid shares, and when it started on the wall clock, from which
// its step timeout counts.
type Process struct {
	PID     int       `json:"pid"`
	Start   uint64    `json:"start"`
	Started time.Time `json:"started"`
}

// Ref names a state of a workflow: a state file in a scope. In JSON its fields
// sit in the object that embeds it (Step, Frame): "scope_dir" beside "state".
type Ref struct {
	// Scope is the absolute path of the workflow folder; "" means the run's
	// own (Run.ScopeDir), which is what every reference of a run that makes
	// no cross-workflow call holds, and what state version 1 meant.
	Scope string `json:"scope_dir,omitempty"`
	// State is the state's file name in the scope.
	State string `json:"state"`
	// URL is the pinned URL a downloaded scope came from (protocol.md
	// §13.2); Scope is then its file in the registry.
	URL string `json:"scope_url,omitempty"`
}

// In returns r with its scope spelled out: runScope (the run's ScopeDir)
// when r has none.
func (r Ref) In(runScope string) Ref {
	if r.Scope == "" {
		r.Scope = runScope
	}
	return r
}

// Ref returns the state the agent is at, as a reference.
func (a *Agent) Ref() Ref { return Ref{Scope: a.Scope, URL: a.ScopeURL, State: a.CurrentState} }
