package claude

import (
	"fmt"
	"strings"
	"time"
)

// Outcome is how a step ended. The zero value is not a valid outcome.
type Outcome int

// The outcomes of a step. See classify for how each is decided.
const (
	// Success: a result line with is_error false.
	Success Outcome = iota + 1
	// UsageLimit: the subscription's usage limit is reached, or a 429 the
	// CLI did not retry (the API's unified rate limit said rejected);
	// Result.ResetAt says when it resets, if known. Retry after the reset,
	// not before.
	UsageLimit
	// APIError: the API failed after the CLI's own retries (overload, server
	// error, per-minute rate limit), or the CLI reported an error it gave no
	// more specific reason for. Transient.
	APIError
	// AuthError: an API error no retry can fix: not logged in, invalid API
	// key, access denied (HTTP 401/403). The user must act. A step whose
	// fixed API key was refused is stopped at the CLI's first retry
	// (Result.KeyRefused), without a result line.
	AuthError
	// BillingError: an API error no retry can fix: the credit balance is too low.
	BillingError
	// Exhausted: the step hit its own --max-turns or --max-budget-usd limit.
	Exhausted
	// SessionNotFound: the session to resume does not exist (in this
	// working directory). Not transient.
	SessionNotFound
	// Crash: the process ended without a result line, whatever its exit code
	// (a signal, an uncaught exception, SIGINT mid-turn exits 0). Transient.
	Crash
	// InvocationError: nothing on stdout, a reason on stderr and a non-zero
	// exit: a bad flag, or the root guard (Result.RootRefused). Not transient.
	InvocationError
	// Timeout: the idle timeout expired and the process group was killed. Transient.
	Timeout
	// StepTimeout: the step ran for its whole time limit and the process
	// group was killed. Not transient: running it again would most likely
	// take as long, at the same price.
	StepTimeout
	// Canceled: the caller's context was canceled and the process group was killed.
	Canceled
	// LineTooLong: the result line was over the limit of a line
	// (Result.LongLine) and could not be read. Not transient: a re-run
	// would most likely write as much again, at the same price.
	LineTooLong
	// Loop: the model made the same tool call (name and input) loop_stop
	// times in the step, which was stopped for it (Result.Loop). Not
	// transient: the same step would most likely loop again.
	Loop
)

var outcomeNames = map[Outcome]string{
	Success:         "success",
	UsageLimit:      "usage limit",
	APIError:        "api error",
	AuthError:       "authentication error",
	BillingError:    "billing error",
	Exhausted:       "exhausted",
	SessionNotFound: "session not found",
	Crash:           "crash",
	InvocationError: "invocation error",
	Timeout:         "timeout",
	StepTimeout:     "step timeout",
	Canceled:        "canceled",
	LineTooLong:     "line too long",
	Loop:            "loop",
}

// String returns a short lower-case name such as "usage limit".
func (o Outcome) String() string {
	if s, ok := outcomeNames[o]; ok {
		return s
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Transient reports whether running the same step again may succeed without
// anyone doing anything: APIError, Crash and Timeout. A usage limit is not
// transient in this sense: it needs a wait until the reset.
func (o Outcome) Transient() bool {
	switch o {
	case APIError, Crash, Timeout:
		return true
	}
	return false
}

// Texts the CLI writes, matched case-insensitively.
const (
	sessionNotFoundText = "no conversation found with session id"
	rootGuardText       = "cannot be used with root/sudo privileges"
)

// authTexts and billingTexts identify API errors that retrying cannot fix
// when the CLI gives no error kind (older versions, plain json output).
var (
	authTexts    = []string{"not logged in", "invalid api key", "please run /login", "oauth token has expired", "oauth token revoked"}
	billingTexts = []string{"credit balance is too low"}
)

// ending is what Run knows about how the process ended, besides the stream.
type ending struct {
	timedOut     bool          // the idle timeout killed it
	stepTimedOut bool          // the step timeout killed it
	looped       bool          // the loop check stopped it (Result.Loop)
	canceled     bool          // the caller's context killed it
	limit        time.Duration // the timeout that killed it
	tool         string        // the tool call outstanding when it ended
}

// classify decides the outcome of a step, following the table "Deciding the
// outcome of a step" in claude-code.md. A result line decides whenever there
// is one, even if the process was killed afterwards: the step's work is done
// and its cost known. Without a result line, a kill by raymond explains the
// end; otherwise an empty stdout with a reason on stderr and a non-zero exit
// status (not a signal) is an invocation error, and anything else is a crash.
func classify(r *Result, e ending) Outcome {
	if r.HasResult {
		return classifyResult(r)
	}
	stderr := strings.ToLower(r.Stderr)
	switch {
	case e.canceled:
		return Canceled
	case e.timedOut:
		return Timeout
	case e.stepTimedOut:
		return StepTimeout
	case e.looped:
		return Loop
	case r.KeyRefused:
		return AuthError
	case r.LongLine != nil && r.LongLine.Type == "result":
		return LineTooLong
	case strings.Contains(stderr, sessionNotFoundText):
		return SessionNotFound
	case r.Lines == 0 && r.ExitCode > 0 && strings.TrimSpace(stderr) != "":
		return InvocationError
	}
	return Crash
}

// classifyResult decides the outcome from a result line. Any error result
// this package cannot place more precisely (error_during_execution for
// another reason, an unknown error subtype) counts as a transient APIError:
// the CLI finished abnormally and said so, and retrying is the safe default.
func classifyResult(r *Result) Outcome {
	if !r.IsError {
		return Success
	}
	text := strings.ToLower(r.errorText())
	switch {
	case r.Subtype == "error_max_turns" || r.Subtype == "error_max_budget_usd":
		return Exhausted
	case strings.Contains(text, sessionNotFoundText):
		return SessionNotFound
	case IsUsageLimit(text), rejected(r):
		return UsageLimit
	case r.APIErrorKind == "authentication_failed" || r.APIErrorStatus == 401 || r.APIErrorStatus == 403 ||
		containsAny(text, authTexts):
		return AuthError
	case r.APIErrorKind == "billing_error" || containsAny(text, billingTexts):
		return BillingError
	}
	return APIError
}

// rejected reports a 429 the CLI gave up on without retrying: what it does
// when the API's unified rate limit says rejected, with no reset time. A
// per-minute rate limit is retried first, and then is a transient APIError.
func rejected(r *Result) bool {
	return r.APIErrorStatus == 429 && r.RetryStatus != 429
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// settle fills in the fields decided once the process has ended: the
// outcome, the root-guard refusal and, for a usage limit, the reset time. A
// rate_limit_event's resetsAt (rateLimitReset, zero if none) wins over the
// time written in the message.
func (r *Result) settle(e ending, rateLimitReset time.Time) {
	r.Outcome = classify(r, e)
	if r.Outcome == Timeout || r.Outcome == StepTimeout {
		r.Limit, r.Tool = e.limit, e.tool
	}
	r.RootRefused = r.Outcome == InvocationError && strings.Contains(strings.ToLower(r.Stderr), rootGuardText)
	if r.Outcome != UsageLimit {
		return
	}
	if !rateLimitReset.IsZero() {
		r.ResetAt = rateLimitReset
		return
	}
	now := r.Ended
	if now.IsZero() {
		now = time.Now()
	}
	if t, ok := ParseResetTime(r.errorText(), now); ok {
		r.ResetAt = t
	}
}
