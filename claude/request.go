package claude

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"raymond/internal/proc"
	"raymond/step"
)

// DefaultKillGrace is how long [Run] waits after SIGTERM before it sends
// SIGKILL to the process group, when Request.KillGrace is zero.
const DefaultKillGrace = proc.DefaultKillGrace

// Request describes one `claude -p` invocation.
type Request struct {
	// Executable is the claude program: a name looked up on PATH or a path.
	// Empty means "claude".
	Executable string
	// Prompt is the user message for this step. It must not be empty.
	Prompt string
	// Cwd is the working directory of the process; empty means raymond's own.
	// Sessions are stored per directory: resume a session from the directory
	// it was created in.
	Cwd string

	// Resume is the session to continue (--resume), or to branch from when
	// Fork is set. Empty starts a new session.
	Resume string
	// Fork branches a copy of Resume instead of appending to it
	// (--fork-session). It requires Resume.
	Fork bool
	// ResumeAt, with Fork, branches Resume as it stood at that message
	// (--resume-session-at: the uuid of an assistant line of its stream);
	// the model sees the turns up to it and no later ones.
	ResumeAt string
	// SessionID is a pre-minted UUID (see [NewSessionID]) for a new session,
	// or for the branch when Fork is set (--session-id). It cannot be combined
	// with a plain resume, which keeps the resumed id.
	SessionID string

	// Model is an alias (opus, sonnet, haiku) or a full model id.
	Model string
	// FallbackModel is the models the CLI goes on with by itself, in
	// order, when Model is overloaded (--fallback-model a,b: the CLI takes
	// the next after three 529s in a row, never for a rejected 429).
	FallbackModel string
	// MCPConfig is a file of MCP servers (--mcp-config); the step sees
	// only those (--strict-mcp-config).
	MCPConfig string
	// Effort is low, medium, high, xhigh or max.
	Effort string
	// PermissionMode is passed as --permission-mode unless SkipPermissions is set.
	PermissionMode string
	// SkipPermissions passes --dangerously-skip-permissions instead of a
	// permission mode. The CLI refuses it when run as root.
	SkipPermissions bool
	// AllowedTools and DisallowedTools are tool rules such as "Bash(git:*)".
	AllowedTools    []string
	DisallowedTools []string
	// MaxTurns limits the agentic turns of the step; 0 means no limit.
	// It must not be negative.
	MaxTurns int
	// LoopWarn and LoopStop watch the step's tool calls: the LoopWarn-th
	// identical call (same tool, same input) is reported as an
	// EventLoopWarning, and at the LoopStop-th the process group is
	// stopped and the step ends as a Loop. 0 turns each off.
	LoopWarn, LoopStop int
	// MaxBudgetUSD caps what this one step may spend (--max-budget-usd); the
	// orchestrator can pass what is left of a run's budget so a single long
	// step cannot overrun it. 0 means no cap; it must not be negative.
	MaxBudgetUSD float64
	// AppendSystemPrompt is appended to Claude Code's system prompt.
	AppendSystemPrompt string
	// ExtraArgs are passed verbatim after the options above.
	ExtraArgs []string

	// Env is the child's environment; nil means os.Environ(). CLAUDECODE is
	// always removed so the child does not believe it is nested in a session.
	Env []string
	// Marker, when set, is the step's [step.Marker]: the child gets it as
	// RAYMOND_STEP (replacing any it would inherit), and so does everything
	// it starts, which lets [Sweep] find those processes later.
	Marker string
	// IdleTimeout kills the process group when neither stdout nor stderr has
	// produced a line for this long; 0 means never.
	// A tool call that has not answered yet does not count: claude prints
	// nothing while its tool runs.
	IdleTimeout time.Duration
	// IdleTimeoutFrom says where IdleTimeout was set, for the message when
	// it fires: "--timeout" (also when empty), or "timeout in STATE.md".
	IdleTimeoutFrom string
	// StepTimeout kills the process group when the step has run this long,
	// whatever it prints; 0 means never.
	StepTimeout time.Duration
	// StepTimeoutFrom says where StepTimeout was set, for the message when
	// it fires: "--step-timeout", or "step_timeout in STATE.md".
	StepTimeoutFrom string
	// KillGrace is the time between SIGTERM and SIGKILL when the process is
	// stopped; 0 means DefaultKillGrace.
	KillGrace time.Duration
	// Spool is the file the process writes its stdout and stderr to, read
	// as it grows (created, or emptied, at the start); "" means a temporary
	// file, removed after the step. The process runs detached (see
	// [proc.DetachedAttr]): it goes on if raymond dies, and its output
	// waits in the file for the driver that adopts it (see [Adopt]).
	Spool string
}

// Args returns the command line for r, without the executable, and the data
// to write to the child's stdin: the prompt. The prompt is never on the
// command line, which every user of the machine can read in
// /proc/PID/cmdline; with no prompt argument the CLI reads it from stdin
// (and Linux would refuse an argv string over 128 KiB anyway).
func Args(r Request) (argv []string, stdin string) {
	argv = []string{"-p", "--output-format", "stream-json", "--verbose"}
	if r.Resume != "" {
		argv = append(argv, "--resume", r.Resume)
		if r.ResumeAt != "" {
			argv = append(argv, "--resume-session-at", r.ResumeAt)
		}
		if r.Fork {
			argv = append(argv, "--fork-session")
		}
	}
	if r.SessionID != "" {
		argv = append(argv, "--session-id", r.SessionID)
	}
	if r.Model != "" {
		argv = append(argv, "--model", r.Model)
	}
	if r.FallbackModel != "" && r.FallbackModel != r.Model {
		argv = append(argv, "--fallback-model", r.FallbackModel)
	}
	if r.Effort != "" {
		argv = append(argv, "--effort", r.Effort)
	}
	if r.MCPConfig != "" {
		argv = append(argv, "--mcp-config", r.MCPConfig, "--strict-mcp-config")
	}
	switch {
	case r.SkipPermissions:
		argv = append(argv, "--dangerously-skip-permissions")
	case r.PermissionMode != "":
		argv = append(argv, "--permission-mode", r.PermissionMode)
	}
	if r.MaxTurns > 0 {
		argv = append(argv, "--max-turns", strconv.Itoa(r.MaxTurns))
	}
	if r.MaxBudgetUSD > 0 {
		argv = append(argv, "--max-budget-usd", strconv.FormatFloat(r.MaxBudgetUSD, 'f', -1, 64))
	}
	if r.AppendSystemPrompt != "" {
		argv = append(argv, "--append-system-prompt", r.AppendSystemPrompt)
	}
	if len(r.AllowedTools) > 0 {
		argv = append(append(argv, "--allowedTools"), r.AllowedTools...)
	}
	if len(r.DisallowedTools) > 0 {
		argv = append(append(argv, "--disallowedTools"), r.DisallowedTools...)
	}
	return append(argv, r.ExtraArgs...), r.Prompt
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// validate rejects requests the CLI would refuse for reasons of our own making.
func (r Request) validate() error {
	switch {
	case r.Prompt == "":
		return errors.New("empty prompt")
	case r.Fork && r.Resume == "":
		return errors.New("fork requires a session to resume")
	case r.ResumeAt != "" && !r.Fork:
		return errors.New("resuming at a message requires a fork: the session itself must stay as it was")
	case r.SessionID != "" && r.Resume != "" && !r.Fork:
		return errors.New("a session id can only be chosen for a new session or a fork")
	case r.SessionID != "" && !uuidPattern.MatchString(r.SessionID):
		return fmt.Errorf("session id %q is not a UUID", r.SessionID)
	case r.MaxTurns < 0:
		return fmt.Errorf("max turns %d is not a number of turns: give a positive number, or 0 for none", r.MaxTurns)
	case r.MaxBudgetUSD < 0 || math.IsNaN(r.MaxBudgetUSD) || math.IsInf(r.MaxBudgetUSD, 0):
		return fmt.Errorf("step budget %v is not a cost: give a positive amount in USD, or 0 for none", r.MaxBudgetUSD)
	}
	return nil
}

// childEnv returns the child's environment: r.Env or os.Environ(), without
// any CLAUDECODE entry, and with RAYMOND_STEP set to r.Marker when there is
// one (a raymond run inside a step must not pass its own step's on).
func (r Request) childEnv() []string {
	base := r.Env
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+1)
	for _, kv := range base {
		if isVar(kv, "CLAUDECODE") || r.Marker != "" && isVar(kv, step.MarkerEnv) {
			continue
		}
		env = append(env, kv)
	}
	if r.Marker != "" {
		env = append(env, step.MarkerEnv+"="+r.Marker)
	}
	return env
}

// isVar reports whether the environment entry kv sets name.
func isVar(kv, name string) bool {
	return kv == name || strings.HasPrefix(kv, name+"=")
}

// NewSessionID returns a random version 4 UUID, suitable for --session-id.
func NewSessionID() string { return step.NewSessionID() }
