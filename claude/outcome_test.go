package claude

import (
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	result := func(r Result) *Result { r.HasResult = true; return &r }
	rootStderr := "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n"

	tests := []struct {
		name string
		res  *Result
		end  ending
		want Outcome
		root bool
	}{
		{"success", result(Result{Subtype: "success"}), ending{}, Success, false},
		{"success even if killed afterwards", result(Result{Subtype: "success"}), ending{canceled: true}, Success, false},
		{"usage limit", result(Result{IsError: true, Text: "You've hit your session limit · resets 3pm"}), ending{}, UsageLimit, false},
		{"old usage limit", result(Result{IsError: true, Text: "Claude AI usage limit reached|1763700000"}), ending{}, UsageLimit, false},
		{"overloaded", result(Result{IsError: true, APIErrorStatus: 529, APIErrorKind: "overloaded", Text: "API Error: Overloaded"}), ending{}, APIError, false},
		{"per-minute rate limit, retried by the CLI", result(Result{IsError: true, APIErrorStatus: 429, RetryStatus: 429, Text: "exceeded your per-minute rate limit"}), ending{}, APIError, false},
		{"a 429 the CLI did not retry (unified limit rejected)", result(Result{IsError: true, APIErrorStatus: 429, Text: "API Error: Request rejected (429) · rejected"}), ending{}, UsageLimit, false},
		{"a 429 after retries of another error", result(Result{IsError: true, APIErrorStatus: 429, RetryStatus: 529, Text: "API Error: Request rejected (429)"}), ending{}, UsageLimit, false},
		{"a fixed API key refused at the first retry, no result", &Result{Lines: 2, ExitCode: -1, Signal: "SIGTERM", KeyRefused: true}, ending{}, AuthError, false},
		{"a refused key, then canceled", &Result{Lines: 2, ExitCode: -1, Signal: "SIGTERM", KeyRefused: true}, ending{canceled: true}, Canceled, false},
		{"forbidden", result(Result{IsError: true, APIErrorStatus: 403, Text: "API Error: 403"}), ending{}, AuthError, false},
		{"not logged in, by text", result(Result{IsError: true, Text: "Not logged in · Please run /login"}), ending{}, AuthError, false},
		{"billing, by kind", result(Result{IsError: true, APIErrorKind: "billing_error", Text: "?"}), ending{}, BillingError, false},
		{"max turns", result(Result{IsError: true, Subtype: "error_max_turns"}), ending{}, Exhausted, false},
		{"max budget", result(Result{IsError: true, Subtype: "error_max_budget_usd"}), ending{}, Exhausted, false},
		{"session not found", result(Result{IsError: true, Subtype: "error_during_execution", Errors: []string{"No conversation found with session ID: x"}}), ending{}, SessionNotFound, false},
		{"other execution error", result(Result{IsError: true, Subtype: "error_during_execution", Errors: []string{"boom"}}), ending{}, APIError, false},
		{"unknown error subtype", result(Result{IsError: true, Subtype: "error_something_new"}), ending{}, APIError, false},
		{"no result, exit 0 (SIGINT mid-turn)", &Result{Lines: 2}, ending{}, Crash, false},
		{"no result, killed by a signal", &Result{Lines: 2, ExitCode: -1, Signal: "SIGKILL"}, ending{}, Crash, false},
		{"no output at all, exit 1, silent", &Result{ExitCode: 1}, ending{}, Crash, false},
		{"no output, exit 0, stderr", &Result{Stderr: "warning"}, ending{}, Crash, false},
		{"no output, a signal, stderr", &Result{ExitCode: -1, Signal: "segmentation fault", Stderr: "SIGSEGV\n"}, ending{}, Crash, false},
		{"bad flag", &Result{ExitCode: 1, Stderr: "error: unknown option '--bogus'\n"}, ending{}, InvocationError, false},
		{"root guard", &Result{ExitCode: 1, Stderr: rootStderr}, ending{}, InvocationError, true},
		{"root guard text after output is a crash", &Result{Lines: 1, ExitCode: 1, Stderr: rootStderr}, ending{}, Crash, false},
		{"unknown session, stderr only", &Result{ExitCode: 1, Stderr: "No conversation found with session ID: x\n"}, ending{}, SessionNotFound, false},
		{"idle timeout", &Result{Lines: 1, ExitCode: -1, Signal: "SIGTERM"}, ending{timedOut: true}, Timeout, false},
		{"canceled", &Result{Lines: 1, ExitCode: -1, Signal: "SIGTERM"}, ending{canceled: true}, Canceled, false},
		{"canceled before any output", &Result{ExitCode: -1, Stderr: "bye\n"}, ending{canceled: true}, Canceled, false},
		{"step timeout", &Result{Lines: 1, ExitCode: -1, Signal: "SIGTERM"}, ending{stepTimedOut: true}, StepTimeout, false},
		{"a result line too long", &Result{Lines: 3, LongLine: &LongLine{Bytes: 70 << 20, Type: "result"}}, ending{}, LineTooLong, false},
		{"another line too long, no result", &Result{Lines: 3, LongLine: &LongLine{Bytes: 70 << 20, Type: "user"}}, ending{}, Crash, false},
		{"a result line too long, then killed", &Result{Lines: 3, LongLine: &LongLine{Bytes: 70 << 20, Type: "result"}}, ending{canceled: true}, Canceled, false},
		{"a line too long and a result", result(Result{Subtype: "success", LongLine: &LongLine{Bytes: 70 << 20, Type: "user"}}), ending{}, Success, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.res.settle(tc.end, time.Time{})
			eq(t, "Outcome", tc.res.Outcome, tc.want)
			eq(t, "RootRefused", tc.res.RootRefused, tc.root)
		})
	}
}

func TestSettleResetAt(t *testing.T) {
	ended := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	event := time.Unix(1763740800, 0)
	tests := []struct {
		name  string
		text  string
		event time.Time
		want  time.Time
	}{
		{"from the text", "5-hour limit reached ∙ resets 3pm", time.Time{}, time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)},
		{"the event wins", "5-hour limit reached ∙ resets 3pm", event, event},
		{"unknown", "You've hit your weekly limit", time.Time{}, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{HasResult: true, IsError: true, Text: tc.text, Ended: ended}
			r.settle(ending{}, tc.event)
			eq(t, "Outcome", r.Outcome, UsageLimit)
			if !r.ResetAt.Equal(tc.want) {
				t.Errorf("ResetAt = %v, want %v", r.ResetAt, tc.want)
			}
		})
	}
	r := &Result{HasResult: true, IsError: true, Text: "API Error: Overloaded"}
	r.settle(ending{}, event)
	eq(t, "ResetAt of an API error", r.ResetAt, time.Time{})
}

func TestOutcomeNames(t *testing.T) {
	transient := map[Outcome]bool{APIError: true, Crash: true, Timeout: true}
	for o := Success; o <= Canceled; o++ {
		if o.String() == "" || o.String() == outcomeNames[0] {
			t.Errorf("Outcome(%d) has no name", int(o))
		}
		eq(t, o.String()+" transient", o.Transient(), transient[o])
	}
	eq(t, "zero", Outcome(0).String(), "Outcome(0)")
	for k := EventInit; k <= EventAPIError; k++ {
		if _, ok := eventKindNames[k]; !ok {
			t.Errorf("EventKind(%d) has no name", int(k))
		}
	}
	eq(t, "zero kind", EventKind(0).String(), "EventKind(0)")
}
