package claude

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"raymond/internal/proc"
	"raymond/permission"
	"raymond/state"
	"raymond/step"
)

// Runner runs each step as a `claude -p` process. It implements
// [step.Runner]; Env, when set, is the environment the process starts from
// (the current one otherwise, always without CLAUDECODE).
type Runner struct {
	Env []string
}

var (
	_ step.Runner  = Runner{}
	_ step.Sweeper = Runner{}
	_ step.Adopter = Runner{}
)

// Name implements [step.Named].
func (Runner) Name() string { return "claude" }

// Request is the claude invocation for a step.
func (c Runner) Request(req step.Request) Request {
	s := req.Step
	o := req.Options
	r := Request{
		Executable:      o.ClaudePath,
		Prompt:          req.Prompt,
		Cwd:             s.Cwd,
		Model:           s.Model,
		FallbackModel:   strings.Join(s.Fallbacks, ","),
		MCPConfig:       s.MCPConfig,
		Effort:          s.Effort,
		AllowedTools:    s.AllowedTools,
		DisallowedTools: s.DisallowedTools,
		MaxBudgetUSD:    req.MaxBudgetUSD,
		Env:             c.Env,
		Spool:           req.Spool,
	}
	if env := req.Env(); len(env) > 0 {
		base := c.Env
		if base == nil {
			base = os.Environ()
		}
		r.Env = step.WithEnv(base, env)
	}
	r.PermissionMode, r.SkipPermissions = req.Permissions()
	r.IdleTimeout, r.IdleTimeoutFrom = IdleLimit(req)
	if req.RunID != "" {
		r.Marker = req.Marker()
	}
	r.StepTimeout, r.StepTimeoutFrom = StepLimit(req)
	r.MaxTurns, _ = req.MaxTurns()
	r.LoopWarn, r.LoopStop = req.LoopLimits()
	switch s.Mode {
	case state.SessionNew:
		r.SessionID = s.SessionID
	case state.SessionResume:
		r.Resume = s.ResumeSession
	case state.SessionBranch:
		r.Resume = s.ResumeSession
		r.ResumeAt = s.ResumeAt
		r.Fork = true
		r.SessionID = s.SessionID
	}
	return r
}

// StepLimit is the wall-clock limit of a step and where it was set: the
// state's own step_timeout when it has one, else the run's --step-timeout.
func StepLimit(req step.Request) (time.Duration, string) {
	if t := req.Step.StepTimeout; t != nil {
		return t.Std(), "step_timeout in " + req.Step.State
	}
	return req.Options.StepTimeout.Std(), "--step-timeout"
}

// IdleLimit is the idle timeout of a step and where it was set: the
// state's own timeout when it has one, else the run's --timeout.
func IdleLimit(req step.Request) (time.Duration, string) {
	d, fromState := req.IdleTimeout()
	if fromState {
		return d, "timeout in " + req.Step.State
	}
	return d, "--timeout"
}

// Run implements [step.Runner].
func (c Runner) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	r := c.Request(req)
	prior, known := priorCost(r, req, true)
	res, err := Run(ctx, r, Handler{
		OnEvent:  Live(h.OnEvent),
		OnLine:   linesTo(h.OnLine, r),
		OnStderr: h.OnStderr,
		OnStart:  onStart(h.OnStart),
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return step.NotStarted(step.Unusable, err)
		}
		return step.StartFailed(err)
	}
	out := Neutral(res, req)
	if !res.HasResult && !res.NotStarted {
		bookUnreported(&out, r, req, prior, known)
	}
	return out
}

// linesTo is where the stream's lines go besides the decoder: nowhere when
// they are in a spool of the caller's already (the transcript's .jsonl).
func linesTo(on func([]byte), r Request) func([]byte) {
	if r.Spool != "" {
		return nil
	}
	return on
}

// onStart passes a started process's identity on as the state file keeps it.
func onStart(on func(state.Process)) func(proc.Identity) {
	if on == nil {
		return nil
	}
	return func(id proc.Identity) {
		on(state.Process{PID: id.PID, Start: id.Start, Started: time.Now()})
	}
}

// Adoptable implements [step.Adopter]: the step's own process still runs
// (see [Found]), or its output holds its result line.
func (c Runner) Adoptable(req step.Request) (ok, running bool) {
	if req.Spool == "" {
		return false, false
	}
	if _, ok := Found(identity(req.Step.Process), req.Marker()); ok {
		return true, true
	}
	lines, err := os.ReadFile(req.Spool)
	if err != nil {
		return false, false
	}
	_, ok = Salvage(req, lines)
	return ok, false
}

// Adopt implements [step.Adopter]: see [Adopt]. A step that ended without
// its result line gets what it spent from its session file, as a step Run
// followed does.
func (c Runner) Adopt(ctx context.Context, req step.Request, h step.Handler) step.Result {
	r := c.Request(req)
	a := Adoption{}
	if id, ok := Found(identity(req.Step.Process), req.Marker()); ok {
		a.ID = id
	}
	if p := req.Step.Process; p != nil {
		a.Started = p.Started
	}
	prior, known := priorCost(r, req, false)
	res := Adopt(ctx, r, a, Handler{OnEvent: Live(h.OnEvent), OnLine: linesTo(h.OnLine, r), OnStderr: h.OnStderr})
	out := Neutral(res, req)
	if !res.HasResult {
		bookUnreported(&out, r, req, prior, known)
	}
	return out
}

// identity is the process a state file saved, the zero Identity for none.
func identity(p *state.Process) proc.Identity {
	if p == nil {
		return proc.Identity{}
	}
	return proc.Identity{PID: p.PID, Start: p.Start}
}

// Sweep implements [step.Sweeper]: see [Sweep].
func (Runner) Sweep(marker string) ([]int, error) {
	return Sweep(marker, DefaultKillGrace)
}

// Argv implements [step.Describer]: the command line of the step's process.
func (c Runner) Argv(req step.Request) []string {
	r := c.Request(req)
	argv, _ := Args(r)
	exe := r.Executable
	if exe == "" {
		exe = "claude"
	}
	return append([]string{exe}, argv...)
}

// Salvage implements [step.Salvager]: the step's result line among lines
// (see [Salvage]), else what its session file says it spent before it was
// cut short.
func (c Runner) Salvage(req step.Request, lines []byte) (step.Result, bool) {
	if res, ok := Salvage(req, lines); ok {
		return res, true
	}
	return salvageUnreported(c.Request(req), req, lines)
}

// Salvage reads the stream-json lines of a step whose end was not applied
// and, when they hold its result line, returns the step's Result with what
// it cost (from the session's prior total the request carries).
func Salvage(req step.Request, lines []byte) (step.Result, bool) {
	d := NewDecoder(nil)
	for line := range bytes.Lines(lines) {
		d.Line(bytes.TrimRight(line, "\n"))
	}
	res := d.Result()
	if !res.HasResult {
		return step.Result{}, false
	}
	return Neutral(d.Finish(End{}), req), true
}

// Live turns the decoder's events into the step's live events, dropping
// those a person does not follow (init, rate-limit notices, the text of an
// API error, which the result reports). A nil on gives a nil func.
func Live(on func(step.Event)) func(Event) {
	if on == nil {
		return nil
	}
	return func(e Event) {
		switch e.Kind {
		case EventText:
			on(step.Event{Kind: step.EventText, Text: e.Text})
		case EventToolUse:
			on(step.Event{Kind: step.EventToolUse, Tool: e.Tool, Detail: e.Detail, ToolID: e.ToolID})
		case EventToolResult:
			on(step.Event{Kind: step.EventToolResult, Tool: e.Tool, Detail: e.Detail, IsError: e.IsError, Text: e.Text, ToolID: e.ToolID})
		case EventPrint:
			on(step.Event{Kind: step.EventPrint, Text: e.Text})
		case EventRetry:
			on(step.Event{Kind: step.EventRetry, Status: e.Status, Attempt: e.Attempt})
		case EventLoopWarning:
			on(step.Event{Kind: step.EventLoopWarning, Tool: e.Tool, Detail: e.Detail, Count: e.Count, Limit: e.Limit})
		case EventFallback:
			on(step.Event{Kind: step.EventFallback, From: e.From, To: e.Model, Text: e.ErrorKind})
		}
	}
}

// budgetSubtype and turnsSubtype are the result subtypes of a step
// stopped by --max-budget-usd and by --max-turns.
const (
	budgetSubtype = "error_max_budget_usd"
	turnsSubtype  = "error_max_turns"
)

// Neutral says how a claude step ended in the orchestrator's terms, with the
// step's own cost worked out from the session's cumulative total (see
// [StepCost]) and the prior total the request carries.
func Neutral(res *Result, req step.Request) step.Result {
	out := step.Result{
		Class:       res.Outcome.String(),
		NotStarted:  res.NotStarted,
		Text:        res.Text,
		ResetAt:     res.ResetAt,
		SessionID:   res.SessionID,
		LastMessage: res.LastMessage,
		Usage:       res.Usage,
		Turns:       res.NumTurns,
		Model:       res.Model,
		Version:     res.Version,
		ExitCode:    res.ExitCode,
		Signal:      res.Signal,
		Stderr:      res.Stderr,
		Started:     res.Started,
		Ended:       res.Ended,
		// Another model may answer a step its own was too busy for.
		Overloaded: res.APIErrorKind == "overloaded" || res.APIErrorStatus == 529,
		FellBack:   res.FellBack,
	}
	for _, l := range res.LoopWarned {
		out.Repeats = append(out.Repeats, step.Repeat{Call: l.Call, Count: l.Count, Stop: l.Stop})
	}
	if res.HasResult {
		prior, known := 0.0, false
		if req.Step.Mode != state.SessionNew && req.Step.ResumeSession != "" {
			prior, known = req.PriorCostUSD, req.PriorCostKnown
		}
		out.Billed = true
		out.CostUSD = StepCost(res, prior, known)
		out.SessionCostUSD = res.TotalCostUSD
	}
	switch {
	case res.Outcome == Success:
		out.Outcome = step.Succeeded
	case res.Outcome == Canceled:
		out.Outcome = step.Canceled
	case res.Outcome == UsageLimit:
		out.Outcome, out.Reason = step.UsageLimit, FirstLine(res.Text)
	case res.RootRefused, res.Outcome == AuthError, res.Outcome == BillingError:
		out.Outcome, out.Reason = step.Unusable, unusableReason(res, req)
	case res.Outcome == StepTimeout, res.Outcome == Loop:
		res.runID = req.RunID
		out.Outcome, out.Reason = step.Failed, outcomeReason(res)
	case res.Outcome == Exhausted && res.Subtype == turnsSubtype:
		out.Outcome, out.Reason = step.Failed, turnsReason(res, req)
	case res.Outcome == Exhausted && res.Subtype == budgetSubtype:
		out.Outcome, out.Reason = step.BudgetExhausted, outcomeReason(res)
	case res.Outcome.Transient():
		out.Outcome, out.Reason = step.Transient, outcomeReason(res)
	default:
		out.Outcome, out.Reason = step.Failed, outcomeReason(res)
	}
	return out
}

// SessionLost starts the reason of a step whose session claude no longer
// has; the command line finds it in an agent's last error to say how to go
// on (raymond resume --new-session).
const SessionLost = "claude no longer has the session to resume"

// outcomeReason says in one line why a step did not succeed.
func outcomeReason(res *Result) string {
	var b strings.Builder
	switch res.Outcome {
	case Crash:
		switch {
		case res.Signal != "":
			fmt.Fprintf(&b, "claude was killed by %s without an answer", res.Signal)
		case res.Adopted:
			b.WriteString("claude ended without an answer (its process outlived the raymond that started it, so its exit status is not known)")
		default:
			fmt.Fprintf(&b, "claude exited with status %d without an answer", res.ExitCode)
		}
		if l := res.LongLine; l != nil {
			fmt.Fprintf(&b, "; a line of %s, over raymond's limit of %s a line, was dropped", mib(l.Bytes), mib(maxLine))
		}
	case Timeout:
		from := res.LimitFrom
		if from == "" {
			from = "--timeout"
		}
		fmt.Fprintf(&b, "claude printed nothing for %s and was stopped (%s %s)", res.Limit, from, res.Limit)
		if res.Tool != "" {
			fmt.Fprintf(&b, " while %s was running", res.Tool)
		}
	case StepTimeout:
		from := res.LimitFrom
		if from == "" {
			from = "--step-timeout"
		}
		fmt.Fprintf(&b, "the step ran for %s and was stopped (%s %s)", res.Limit, from, res.Limit)
		if res.Tool != "" {
			fmt.Fprintf(&b, " while %s was running", res.Tool)
		}
		run := res.runID
		if run == "" {
			run = "ID"
		}
		if strings.HasPrefix(from, "step_timeout in ") {
			state := strings.TrimPrefix(from, "step_timeout in ")
			fmt.Fprintf(&b, "; not retried, since it would likely take as long again: raise step_timeout in %s's frontmatter (0 for none), then `raymond resume %s`", state, run)
		} else {
			fmt.Fprintf(&b, "; not retried, since it would likely take as long again: raise the limit with `raymond resume %s --step-timeout DUR` (0 for none)", run)
		}
	case Loop:
		l := res.Loop
		if l == nil { // a decoder finished as looped without the loop seen
			l = &ToolLoop{Call: "a tool call"}
		}
		fmt.Fprintf(&b, "%s repeated %d times: stopped (loop_stop %d); not retried, since the same step would most likely loop again: "+
			"look at what the tool answered (raymond transcript %s --step …), change the state's prompt or raise its loop_stop (0 for none), then `raymond resume %s`",
			l.Call, l.Count, l.Stop, runOr(res.runID), runOr(res.runID))
	case LineTooLong:
		fmt.Fprintf(&b, "claude wrote a result line of %s, over raymond's limit of %s a line, so the step's answer could not be read; "+
			"not retried, since it would most likely be as long again: have the state write large output to a file",
			mib(res.LongLine.Bytes), mib(maxLine))
	case APIError:
		if res.Subtype == "error_during_execution" {
			fmt.Fprintf(&b, "claude ended the step with an error: %s", FirstLine(res.errorText()))
			break
		}
		fmt.Fprintf(&b, "API error: %s", FirstLine(res.errorText()))
	case Exhausted:
		fmt.Fprintf(&b, "the step used up its own limit (%s)", res.Subtype)
	case SessionNotFound:
		b.WriteString(SessionLost + " (was ~/.claude cleaned, or the working directory moved?)")
	case InvocationError:
		b.WriteString("the step could not run: ")
		b.WriteString(FirstLine(res.Stderr))
	default:
		b.WriteString(res.Outcome.String())
	}
	if res.Outcome != InvocationError && res.Outcome != APIError {
		if t := FirstLine(lastLine(res.Stderr)); t != "" {
			fmt.Fprintf(&b, " (stderr: %s)", t)
		}
	}
	return b.String()
}

// runOr is the run's id for a command in a message, "ID" when unknown.
func runOr(id string) string {
	if id == "" {
		return "ID"
	}
	return id
}

// turnsReason says why a step that used up its turns (error_max_turns)
// stopped: after how many, at which limit, and what to do. Its agent fails
// rather than retry: the same step would stop at the same limit.
func turnsReason(res *Result, req step.Request) string {
	limit, from := req.MaxTurns()
	run := runOr(req.RunID)
	const again = "; not retried, since it would stop at the same limit: "
	switch {
	case limit <= 0:
		return fmt.Sprintf("stopped after %d turns (claude's turn limit)%sgive the step more room, then `raymond resume %s`", res.NumTurns, again, run)
	case req.Step.MaxTurns != nil:
		return fmt.Sprintf("stopped after %d turns (max_turns %d of %s)%sraise max_turns in %s (0 for none), then `raymond resume %s`",
			limit, limit, req.Step.State, again, req.Step.State, run)
	}
	return fmt.Sprintf("stopped after %d turns (%s %d)%sraise it with `raymond resume %s --max-turns N` (0 for none)", limit, from, limit, again, run)
}

// mib writes a size in MiB, to one decimal when it has one.
func mib(n int) string {
	v := float64(n) / (1 << 20)
	if v == float64(int(v)) {
		return fmt.Sprintf("%d MiB", int(v))
	}
	return fmt.Sprintf("%.1f MiB", v)
}

// unusableReason says why claude cannot run any step of req, and what to
// do. A refusal as root names what asked for bypassPermissions: the run's
// --dangerously-skip-permissions, its --permission-mode, or the state's own
// permission_mode, which dropping the run's flag would not change.
func unusableReason(res *Result, req step.Request) string {
	const sandbox = " If you run inside a sandbox you set up yourself, you may export " +
		"IS_SANDBOX=1 for claude; raymond never sets it for you"
	switch {
	case res.RootRefused && req.Step.PermissionMode == permission.Bypass:
		return req.Step.State + " has permission_mode: bypassPermissions, which claude refuses when run as root. " +
			"Run raymond as a normal user, or give the state another permission_mode (or none, to take the run's)." + sandbox
	case res.RootRefused && !req.Options.SkipPermissions && req.Options.PermissionMode == permission.Bypass:
		return "claude refuses --permission-mode bypassPermissions when run as root. " +
			"Run raymond as a normal user, or use another --permission-mode (the default is acceptEdits)." + sandbox
	case res.RootRefused:
		return "claude refuses --dangerously-skip-permissions (and bypassPermissions) when run as root. " +
			"Run raymond as a normal user, or drop --dangerously-skip-permissions and use --permission-mode " +
			"(the default is acceptEdits)." + sandbox
	case res.Outcome == AuthError:
		return authReason(res)
	default:
		return "the account cannot pay for more requests (" + FirstLine(res.Text+res.Stderr) + "). Add credit, then resume the run"
	}
}

// authReason says why claude was refused and what to do: for an API key,
// named by where it came from (the init line's apiKeySource), check that
// key; for a login, log in again.
func authReason(res *Result) string {
	detail := FirstLine(res.Text + res.Stderr)
	if detail == "" && res.RetryStatus != 0 {
		detail = fmt.Sprintf("HTTP %d", res.RetryStatus)
	}
	if detail != "" {
		detail = " (" + detail + ")"
	}
	switch src := res.KeySource; {
	case src == "apiKeyHelper":
		return "the API key from claude's apiKeyHelper was refused" + detail +
			": check the helper in claude's settings, then resume the run"
	case fixedKey(src) && !strings.HasPrefix(src, "/login"):
		return "the API key from " + src + " was refused" + detail +
			": check it, or unset it to use your Claude login, then resume the run"
	}
	return "claude is not logged in" + detail + ". Run `claude` once to log in, then resume the run"
}

// FirstLine is the first non-blank line of s, trimmed and cut at 200 bytes.
func FirstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "…"
			}
			return line
		}
	}
	return ""
}

// lastLine is the last line of s after trimming.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
