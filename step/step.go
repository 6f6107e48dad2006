package step

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"raymond/permission"
	"raymond/state"
)

// Request is one step to run, decided in full by the orchestrator and already
// persisted in the run's state file.
type Request struct {
	// RunID is the run the step belongs to.
	RunID string
	// Agent is the id of the agent that runs the step.
	Agent string
	// Seq numbers the agent's steps from 1, reminders and retries included;
	// it is the NNN of the transcript files.
	Seq int
	// Step is the pending step as stored in the state file: state, session
	// mode, session to resume or branch from, pre-minted session id, cwd,
	// model, effort, attempt, reminder.
	Step state.Step
	// Prompt is the text sent to the model: the state's prompt after
	// templates, or the reminder when Step.Reminder is set.
	Prompt string
	// Vars are the template values the prompt was rendered with (input,
	// run_id, agent_id, state, fork variables); a scripted runner renders its
	// replies with them.
	Vars map[string]string
	// Options are the run's options (claude path, permissions, timeout).
	Options state.Options
	// MaxBudgetUSD caps what this step may spend; 0 means no cap.
	MaxBudgetUSD float64
	// PriorCostUSD is what the session this step resumes or branches from
	// has cost so far, as its runner last reported it (Result.SessionCostUSD);
	// PriorCostKnown says whether the run has seen that session before. A
	// runner whose costs are cumulative over a session (Claude Code's are)
	// needs it to tell what this step alone cost.
	PriorCostUSD   float64
	PriorCostKnown bool
	// Script is set when the step runs a script state (protocol.md §11)
	// rather than a prompt.
	Script *Script
	// Spool is the file a runner that starts a detached process sends
	// that process's output to (for claude, the step's .jsonl in the
	// transcript: the stream as claude writes it is the transcript); ""
	// leaves the choice to the runner. It is known from the state file
	// alone, so the driver after one that died finds it again.
	Spool string
	// TraceParent and TraceState are the W3C trace context of the step's
	// span (the values of the traceparent and tracestate headers), "" when
	// the run is not traced. Env hands them to the step's processes.
	TraceParent, TraceState string
}

// The variables that carry a step's trace context into its processes, as
// OpenTelemetry's environment carriers name them.
const (
	TraceParentEnv = "TRACEPARENT"
	TraceStateEnv  = "TRACESTATE"
)

// Env is the variables every process of the step gets on top of the
// runner's environment: the run's own (Options.Env), then the step's trace
// context when it has one.
func (r Request) Env() map[string]string {
	if r.TraceParent == "" {
		return r.Options.Env
	}
	env := make(map[string]string, len(r.Options.Env)+2)
	maps.Copy(env, r.Options.Env)
	env[TraceParentEnv] = r.TraceParent
	if r.TraceState != "" {
		env[TraceStateEnv] = r.TraceState
	}
	return env
}

// IdleTimeout is how long the step may print nothing before it is stopped,
// 0 for never: the state's own timeout when it has one (fromState), else
// the run's --timeout.
func (r Request) IdleTimeout() (d time.Duration, fromState bool) {
	if t := r.Step.Timeout; t != nil {
		return t.Std(), true
	}
	return r.Options.Timeout.Std(), false
}

// Script is the script a script state's step runs.
type Script struct {
	// Path is the script's absolute path in a folder scope. It is "" for a
	// script read from a zip archive or a YAML file: the runner then writes
	// Body to a private temporary folder and runs that copy.
	Path string
	// Body is the script's text, as read when the step was prepared.
	Body []byte
}

// Name is the transcript base name of the step, <agent>_<state stem>_<NNN>
// (protocol.md §10).
func (r Request) Name() string {
	return Name(r.Agent, r.Step.State, r.Seq)
}

// Permissions returns the permission mode of the step, or that it skips
// permissions (--dangerously-skip-permissions): the state's own
// permission_mode when it has one, else the run's (permission.Effective).
func (r Request) Permissions() (mode string, skip bool) {
	return permission.Effective(r.Options.PermissionMode, r.Options.SkipPermissions, r.Step.PermissionMode)
}

// Name returns the transcript base name of an agent's seq-th step at state,
// <agent>_<stem>_<NNN>, with the agent id and the stem each shortened by
// NamePart, so that a name stays far below the 255 bytes a file name may
// have however deep the forks that made the agent id.
func Name(agent, stateName string, seq int) string {
	stem := strings.TrimSuffix(stateName, path.Ext(stateName))
	return fmt.Sprintf("%s_%s_%03d", NamePart(agent, MaxAgentPart), NamePart(stem, MaxStemPart), seq)
}

// The longest agent id and state stem that a step name holds as they are.
const (
	MaxAgentPart = 96
	MaxStemPart  = 64
)

// NamePart returns s when it is at most limit bytes long; else its first
// bytes (whole characters), "~" and 12 hex digits of the SHA-256 of all of
// s, limit bytes or a little fewer in all. Two long ids that share their
// first bytes still get different parts. limit must be above 13.
func NamePart(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	n := limit - 13
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "~" + hex.EncodeToString(sum[:6])
}

// Runner runs one step to its end and reports how it ended. Every way a step
// can end, including not starting at all, is a Result with an Outcome.
//
// Run calls the handler's funcs in stream order (OnEvent and OnLine from the
// goroutine that called Run; OnStderr possibly from another one; a script
// runner calls OnOutput from one goroutine per stream, and OnEvent, one
// call at a time, from either). Runners must be safe for concurrent use:
// the orchestrator runs many steps at once.
type Runner interface {
	Run(ctx context.Context, req Request, h Handler) Result
}

// Describer is implemented by runners that can show the command line of a
// step, for the transcript's meta record.
type Describer interface {
	Argv(req Request) []string
}

// Salvager is implemented by runners that can tell, from the output lines
// a step wrote (Handler.OnLine, as the transcript keeps them; nil without
// a transcript), how a step ended whose driver died before it could apply
// the end, or, for a step cut short, what it spent (Result.Unreported, as
// claude's session file tells). The driver books what such a step cost
// before it runs the step again, so a crash never makes a run's cost miss
// a call that was paid for. ok is false when neither is known.
type Salvager interface {
	Salvage(req Request, lines []byte) (res Result, ok bool)
}

// Adopter is implemented by runners whose steps outlive their driver: the
// process runs detached, writing to req.Spool, and Handler.OnStart gives
// what identifies it, which the driver saves. A driver that begins a run
// asks, for each step the last driver left in flight, whether it can be
// adopted, and follows those that can to their end.
type Adopter interface {
	// Adoptable reports whether the step req (req.Step.Process as saved,
	// nil when its driver died before saving it) can be adopted: its own
	// process still runs (running; a process that took its pid since is
	// not it), or it ended and its output holds its end.
	Adoptable(req Request) (ok, running bool)
	// Adopt follows an adoptable step to its end, as Run follows a step
	// it started: the same events, limits (from the step's real start)
	// and Result. Canceling ctx stops it as it stops a step Run started.
	Adopt(ctx context.Context, req Request, h Handler) Result
}

// Named is implemented by runners that have a name for the transcript's meta
// record ("claude", "scripted"); others are named by their Go type.
type Named interface {
	Name() string
}

// RunnerName is the name a transcript records for r.
func RunnerName(r Runner) string {
	if n, ok := r.(Named); ok {
		return n.Name()
	}
	return fmt.Sprintf("%T", r)
}

// Handler receives what happens while a step runs. Any func may be nil.
// Callbacks should be quick: the step blocks while they run.
type Handler struct {
	// OnEvent receives what the step does as it does it, for progress.
	OnEvent func(Event)
	// OnLine receives every raw output line of the step (for claude, each
	// stream-json line) without its newline, for the transcript. raw is only
	// valid during the call.
	OnLine func(raw []byte)
	// OnStderr receives every line the step writes to its error stream.
	OnStderr func(line string)
	// OnStart receives what identifies a detached step's process once it
	// has started (see [Adopter]); the driver saves it.
	OnStart func(state.Process)
	// OnOutput receives the bytes a script step writes, in the chunks they
	// arrive in, stderr true for its error stream, for the transcript's
	// .stdout.txt and .stderr.txt. chunk is only valid during the call. It
	// is called from one goroutine per stream, so calls for stdout and
	// stderr may run at once.
	OnOutput func(stderr bool, chunk []byte)
}

// EventKind says what an Event reports.
type EventKind int

// The kinds of live events.
const (
	// EventText is text the model wrote (Text).
	EventText EventKind = iota + 1
	// EventToolUse is a tool call (Tool, with its key argument in Detail).
	EventToolUse
	// EventToolResult is a tool's answer (Tool, IsError, Detail).
	EventToolResult
	// EventPrint is a <print> payload (Text), shown to the user as is.
	EventPrint
	// EventRetry is an API error the model's client retries by itself
	// (Status, Attempt).
	EventRetry
	// EventLoopWarning is the Count-th identical tool call of the step, its
	// loop warning (Tool; Detail: the call with its input); Limit is the
	// count that stops the step, 0 for none.
	EventLoopWarning
	// EventFallback: the model's client went on with another model by
	// itself (From, To; Text is why, such as "overloaded").
	EventFallback
)

// Event is one thing a running step did.
type Event struct {
	Kind    EventKind
	Text    string
	Tool    string
	Detail  string
	IsError bool
	Status  int
	Attempt int
	// ToolID is the id of a tool call (EventToolUse) and of the call a
	// result answers (EventToolResult); "" when the runner has none.
	ToolID string
	Count  int
	Limit  int
	// From and To are the models of an EventFallback.
	From, To string
}

// MarkerEnv is the environment variable a runner sets, in every process it
// starts for a step, to the step's [Marker]. The processes those start
// inherit it, so a [Sweeper] can find what an attempt left running even
// when it left the step's process group, and never mistakes another process
// for it (a reused pid does not carry the marker).
const MarkerEnv = "RAYMOND_STEP"

// Marker names one attempt of a step across processes: <run>/<agent>/<seq>,
// then @<project> when the run's project folder is known. Every part is in
// the state file before the step starts (the run's id, the agent's id, its
// step count, which the save before the start counts this step in, and the
// project folder of its options), so after a crash the marker of the step
// that was in flight is known from the file alone. The project folder keeps
// two projects' runs of the same id apart: ids are unique, but tests and
// `--id` give their own, and a sweep must never end another project's step.
func Marker(project, run, agent string, seq int) string {
	m := fmt.Sprintf("%s/%s/%d", run, agent, seq)
	if project != "" {
		m += "@" + project
	}
	return m
}

// Marker is the marker of r's attempt.
func (r Request) Marker() string { return Marker(r.Options.ProjectDir, r.RunID, r.Agent, r.Seq) }

// Sweeper is implemented by runners whose steps start processes that can
// outlive the driver that started them (a tool's background command, after
// raymond was killed with SIGKILL). Sweep ends every process that still
// carries marker in its environment ([MarkerEnv]) and returns their pids.
// The driver calls it for each step that was in flight when the run was
// last driven, before any step of the run starts again.
type Sweeper interface {
	Sweep(marker string) (pids []int, err error)
}

// WithEnv returns base with the variables of vars set, replacing any of the
// same name, in the order of their names; base is not changed. With no
// vars it returns base itself.
func WithEnv(base []string, vars map[string]string) []string {
	if len(vars) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(vars))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[name]; !ok {
			out = append(out, kv)
		}
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		out = append(out, name+"="+vars[name])
	}
	return out
}
