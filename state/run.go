package state

import "time"

// Version is the schema version this package writes, and the newest it reads.
// Adding a field does not change it (readers ignore unknown fields); changing
// the meaning or type of an existing one does, or one an older raymond would
// misread by ignoring it, and then comes with a migration (migrate.go) that
// reads files of the version before. Version 2 (issue 10) let a reference to
// a state name its workflow (Ref).
const Version = 3

// Run is the content of one state file: everything needed to show a run and to
// drive it on from where it stopped.
type Run struct {
	// Version is the schema version; Store.Write sets it.
	Version int `json:"version"`
	// Gen is the generation of the snapshot: every full write of the state
	// file stores one more than the run it is given holds, and sets it. A
	// journal line counts only for the snapshot of its generation (see the
	// package comment).
	Gen int `json:"gen,omitempty"`
	// WorkflowID is the run id (the name is the seed plan's); the file is
	// <WorkflowID>.json.
	WorkflowID string `json:"workflow_id"`
	// ScopeDir is the absolute path of the workflow: a folder, a YAML file
	// or a zip archive (for a URL scope, its file in the registry).
	ScopeDir string `json:"scope_dir"`
	// ScopeURL is the pinned URL the workflow was downloaded from; "" for a
	// local one.
	ScopeURL string `json:"scope_url,omitempty"`
	// TaskFolderPattern is the absolute pattern of task folders
	// (protocol.md §16), recorded when the run is created.
	TaskFolderPattern string `json:"task_folder_pattern,omitempty"`
	// ContinueSession is the user's Claude Code session main's first
	// markdown step branches from (--continue-session, protocol.md §18).
	ContinueSession string `json:"continue_session,omitempty"`
	// AskSeq counts the run's asks: the n of ask_<agent>_<n>.
	AskSeq int `json:"ask_seq,omitempty"`
	// EntryState is the file name of the state main started at.
	EntryState string `json:"entry_state"`
	// Status is where the run as a whole stands.
	Status Status `json:"status"`
	// CreatedAt is set by Store.Create when zero.
	CreatedAt time.Time `json:"created_at"`
	// UpdatedAt is set by every Store.Write.
	UpdatedAt time.Time `json:"updated_at"`
	// Options are the flags the run was started (or last resumed) with.
	Options Options `json:"options"`
	// Agents holds every agent the run has had, in the order they were
	// created; agents that ended stay with their status and result.
	Agents []Agent `json:"agents"`
	// Result is main's result once the run has completed.
	Result *string `json:"result,omitempty"`
	// TotalCostUSD is what the run has cost so far.
	TotalCostUSD float64 `json:"total_cost_usd"`
	// BudgetUSD stops new paid steps once TotalCostUSD reaches it; 0 means
	// unlimited.
	BudgetUSD float64 `json:"budget_usd"`
	// SessionCosts maps a session id to the last cumulative total_cost_usd
	// Claude Code reported for it, so resuming a session adds only the
	// difference to TotalCostUSD.
	SessionCosts map[string]float64 `json:"session_costs,omitempty"`
	// DefaultModel is the model Claude Code chose for the run's first step
	// that named none (the model of its init line), when neither the run
	// (--model, the config) nor the state named one. Later steps that name
	// none pass it as --model: resumed or branched without --model, Claude
	// Code would keep the model the session used last (issue 20). "" until
	// such a step has run. An older raymond ignores it and passes no model,
	// as it always did.
	DefaultModel string `json:"default_model,omitempty"`
	// NextAgentSeq is the counter in fork ids (main_worker3); it only grows, so
	// an id never repeats inside a run.
	NextAgentSeq int `json:"next_agent_seq"`
	// Wait is set while the run sleeps (or paused) on a usage limit.
	Wait *Wait `json:"wait,omitempty"`
	// Holds are the usage limits of named models (Wait.Model): a step
	// does not start on a held model before its Until, and goes on with
	// the next model of its list that is not held, if it has one.
	Holds []Wait `json:"model_holds,omitempty"`
	// Error is the last run-level error, for status and list.
	Error string `json:"error,omitempty"`
	// Warned lists the warnings already shown in this run, each shown once.
	Warned []string `json:"warned,omitempty"`
	// PID is the process that last drove the run.
	PID int `json:"pid,omitempty"`
	// Workspace is the run's git draft in the worktree mode; nil in the
	// shared mode (state/workspace.go).
	Workspace *Workspace `json:"workspace,omitempty"`
	// Rewound is set in a run raymond rewind made: where it came from.
	Rewound *Rewound `json:"rewound_from,omitempty"`
}

// Agent returns the agent with the given id, or nil. The pointer points into
// r.Agents: changes through it change the run, and it goes stale when an agent
// is appended.
func (r *Run) Agent(id string) *Agent {
	for i := range r.Agents {
		if r.Agents[i].ID == id {
			return &r.Agents[i]
		}
	}
	return nil
}

// Status is where a run as a whole stands.
type Status string

// Run statuses.
const (
	// StatusCreated: written by raymond start, never driven yet.
	StatusCreated Status = "created"
	// StatusRunning: a process drives it, or drove it and died (then nobody
	// holds the lock: see Store.Holder).
	StatusRunning Status = "running"
	// StatusPaused: stopped by a signal or by a usage limit with --no-wait.
	StatusPaused Status = "paused"
	// StatusWaiting: waiting for a usage-limit reset (Run.Wait), or for a person.
	StatusWaiting Status = "waiting"
	// StatusCompleted: every agent ended and none failed; Run.Result is set.
	StatusCompleted Status = "completed"
	// StatusFailed: every agent ended and at least one failed.
	StatusFailed Status = "failed"
	// StatusBudgetExceeded: the run reached its budget.
	StatusBudgetExceeded Status = "budget_exceeded"
	// StatusAsking: nothing can progress while agents wait for answers
	// (protocol.md §15).
	StatusAsking Status = "asking"
)

// Terminal reports whether the run ended with an outcome (completed, failed or
// budget exceeded): nothing happens to it until someone resumes it.
func (s Status) Terminal() bool {
	switch s {
	case StatusCompleted, StatusFailed, StatusBudgetExceeded:
		return true
	}
	return false
}

// Resumable reports whether raymond resume may drive the run: every status but
// completed. A failed run is resumed by retrying its failed agents; a running
// one only when no process holds its lock.
func (s Status) Resumable() bool {
	return s != StatusCompleted && s != ""
}

// Wait says until when a run sleeps on a usage limit, and why.
type Wait struct {
	// Until is the announced reset time (margin included).
	Until time.Time `json:"until"`
	// Reason is what Claude Code said, for the user.
	Reason string `json:"reason"`
	// Model is the model whose limit it is, "" for every model (the
	// limit of a step whose model was not known).
	Model string `json:"model,omitempty"`
}

// Defaults of the options cli.md gives defaults for.
const (
	DefaultMaxParallel    = 8
	DefaultMaxAgents      = 2000
	DefaultMaxDepth       = 64
	DefaultMaxForks       = 10000
	DefaultTimeout        = 10 * time.Minute
	DefaultStepTimeout    = 2 * time.Hour
	DefaultPermissionMode = "acceptEdits"
	// DefaultLoopWarn and DefaultLoopStop are how many identical tool
	// calls in one step warn and stop it; DefaultCycleStop how many times
	// an agent may go round the same cycle of states with identical
	// answers before it fails.
	DefaultLoopWarn  = 5
	DefaultLoopStop  = 10
	DefaultCycleStop = 3
)

// Limits returns the run's limits on live agents, stack depth and agents
// forked over its life, with the defaults for those not set.
func (o Options) Limits() (agents, depth, forks int) {
	agents, depth, forks = o.MaxAgents, o.MaxDepth, o.MaxForks
	if agents <= 0 {
		agents = DefaultMaxAgents
	}
	if depth <= 0 {
		depth = DefaultMaxDepth
	}
	if forks <= 0 {
		forks = DefaultMaxForks
	}
	return agents, depth, forks
}

// Options are the flags of run, start and resume (cli.md) that shape how a run
// is driven. resume may override them; the file keeps the latest.
type Options struct {
	// Input is --input, nil when not given (an empty --input is not "none").
	Input *string `json:"input,omitempty"`
	// Model is the default model of states without a model of their own.
	Model string `json:"model,omitempty"`
	// FallbackModels follow Model when --model (or the config) gave a
	// list: the models such a step goes on with, in order.
	FallbackModels []string `json:"fallback_models,omitempty"`
	// Effort is the default effort.
	Effort string `json:"effort,omitempty"`
	// MaxParallel is the most steps that run at once.
	MaxParallel int `json:"max_parallel"`
	// MaxAgents is the most agents alive at once in the run, main
	// included; a fork past it fails the forking agent. 0 means
	// DefaultMaxAgents (runs made before the limit existed).
	MaxAgents int `json:"max_agents,omitempty"`
	// MaxDepth is the deepest an agent's return stack may grow; a call or
	// function past it fails the agent. 0 means DefaultMaxDepth.
	MaxDepth int `json:"max_depth,omitempty"`
	// MaxForks is the most agents the run may fork over its life; a fork
	// past it fails the forking agent, so a runaway that forks as fast as
	// its agents end still stops. 0 means DefaultMaxForks.
	MaxForks int `json:"max_forks,omitempty"`
	// Timeout kills a step that prints nothing for this long, while none of
	// its tool calls is outstanding; 0 means never.
	Timeout Duration `json:"timeout"`
	// Scripted says the run has been driven with scripted replies
	// (--replies): its answers came from no model, and claude must not
	// take over the rest of it (and be paid for it) unless replies are given
	// again.
	Scripted bool `json:"scripted,omitempty"`
	// Replies is the absolute path of the replies file the run was last
	// driven with (--replies); resume, recover and the daemon answer its
	// steps from it again unless given another. "" for a run no replies
	// file drove, and for a scripted run made before it was stored, which
	// needs --replies again. A raymond that does not know the field still
	// refuses to resume a Scripted run without --replies, so adding it
	// needs no new Version.
	Replies string `json:"replies,omitempty"`
	// StepTimeout kills a step that has run this long, whatever it prints;
	// 0 means never (and is what runs created before it existed have).
	StepTimeout Duration `json:"step_timeout,omitempty"`
	// MaxTurns limits the turns of each claude step (--max-turns); 0 means
	// no limit. A state's own max_turns replaces it.
	MaxTurns int `json:"max_turns,omitempty"`
	// LoopWarn and LoopStop are how many identical tool calls (the same
	// tool with the same input) in one claude step print a warning and
	// stop the step; 0 turns each off, and is what runs made before they
	// existed have. A state's own loop_warn and loop_stop replace them.
	LoopWarn int `json:"loop_warn,omitempty"`
	LoopStop int `json:"loop_stop,omitempty"`
	// CycleStop is how many times in a row an agent may go round the same
	// cycle of states with identical answers before it fails; 0 turns the
	// check off.
	CycleStop int `json:"cycle_stop,omitempty"`
	// NoWait pauses the run on a usage limit instead of sleeping.
	NoWait bool `json:"no_wait,omitempty"`
	// Env holds variables every step's process gets on top of raymond's
	// own environment (a manifest's environment, for runs a daemon
	// starts); they replace variables of the same name.
	Env map[string]string `json:"env,omitempty"`
	// PermissionMode is passed to claude --permission-mode.
	PermissionMode string `json:"permission_mode,omitempty"`
	// SkipPermissions passes --dangerously-skip-permissions instead.
	SkipPermissions bool `json:"skip_permissions,omitempty"`
	// ClaudePath is the claude executable: absolute, or a bare name looked
	// up in PATH.
	ClaudePath string `json:"claude_path,omitempty"`
	// ClaudeFrom says where ClaudePath was set when the person did not give
	// it on the command line: the config file's path, or "RAYMOND_CLAUDE".
	// Each drive names that program on its first line.
	ClaudeFrom string `json:"claude_from,omitempty"`
	// Debug turns the transcript folder on.
	Debug bool `json:"debug"`
	// ProjectDir is the absolute folder that holds .raymond/.
	ProjectDir string `json:"project_dir,omitempty"`
	// OnAsk is --on-ask as given: auto, prompt, pause or reject ("" is
	// auto). The mode a drive uses is decided when it starts.
	OnAsk string `json:"on_ask,omitempty"`
	// Confine refuses a cd= that leaves ProjectDir (the model is reminded,
	// as for a folder that does not exist); without it such a cd is allowed
	// with a warning.
	Confine bool `json:"confine,omitempty"`
}

// Duration is a time.Duration stored as Go duration text ("10m0s"), in JSON
// and in any other encoding that uses encoding.TextMarshaler (TOML).
type Duration time.Duration

// String returns the duration as time.Duration writes it.
func (d Duration) String() string { return time.Duration(d).String() }

// Std returns d as a time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// MarshalText implements encoding.TextMarshaler.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it accepts what
// time.ParseDuration accepts.
func (d *Duration) UnmarshalText(text []byte) error {
	v, err := time.ParseDuration(string(text))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}
