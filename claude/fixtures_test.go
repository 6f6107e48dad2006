package claude

import (
	"os"
	"strings"
	"testing"
	"time"
)

// decodeOutput runs a captured stdout through the decoder as Run would and
// settles the result for a process that wrote stderr and exited with exit.
func decodeOutput(t testing.TB, stdout, stderr string, exit int) (*Result, []Event) {
	t.Helper()
	var events []Event
	res := &Result{}
	st := newStream(res, func(e Event) { events = append(events, e) })
	lr := newLineReader(strings.NewReader(stdout), maxLine)
	for {
		line, truncated, err := lr.next()
		if err != nil {
			break
		}
		res.Lines++
		if !truncated {
			st.decode(line)
		}
	}
	res.Stderr, res.ExitCode = stderr, exit
	res.settle(ending{}, st.resetAt)
	return res, events
}

func kinds(events []Event) []EventKind {
	var out []EventKind
	for _, e := range events {
		out = append(out, e.Kind)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

const scripted = "Hello! This is a scripted reply."

// The stream kinds of the common fixtures.
var (
	initText    = []EventKind{EventInit, EventText}
	initAPIErr  = []EventKind{EventInit, EventAPIError}
	initRetryAE = []EventKind{EventInit, EventRetry, EventAPIError}
	twoToolRuns = []EventKind{EventInit, EventText, EventToolUse, EventToolResult, EventText, EventToolUse, EventToolResult}
)

type fixtureCase struct {
	asStderr bool // the file is the stderr of a process with an empty stdout
	exit     int
	outcome  Outcome
	text     string
	session  string
	total    float64
	call     *float64 // nil: the CLI did not report model_usage_since_last_result
	events   []EventKind
	check    func(t *testing.T, r *Result, events []Event)
}

var fixtureCases = map[string]fixtureCase{
	"api-401.stream.jsonl": {
		exit: 1, outcome: AuthError, text: "Invalid API key · Fix external API key",
		session: "abe9fa26-3c4b-497e-9c4a-c80066b1c9db", call: ptr(0.0), events: initRetryAE,
		check: func(t *testing.T, r *Result, events []Event) {
			eq(t, "r.APIErrorStatus", r.APIErrorStatus, 401)
			eq(t, "r.APIErrorKind", r.APIErrorKind, "authentication_failed")
			eq(t, "r.KeySource", r.KeySource, "ANTHROPIC_API_KEY")
			eq(t, "r.KeyRefused", r.KeyRefused, true)
			eq(t, "r.RetryStatus", r.RetryStatus, 401)
			eq(t, "events[1]", events[1], Event{Kind: EventRetry, Attempt: 1, MaxRetries: 1, Delay: 611e6, Status: 401, ErrorKind: "authentication_failed"})
			eq(t, "events[2]", events[2], Event{Kind: EventAPIError, Text: "Invalid API key · Fix external API key", Status: 401, ErrorKind: "authentication_failed"})
		},
	},
	"api-429.stream.jsonl": {
		exit: 1, outcome: APIError, text: "API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit",
		session: "ad8465e3-87d5-48ba-86f5-f110c7fbb5ee", call: ptr(0.0), events: initRetryAE,
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.APIErrorStatus", r.APIErrorStatus, 429)
			eq(t, "r.APIErrorKind", r.APIErrorKind, "rate_limit")
			eq(t, "r.RetryStatus (a per-minute limit, retried)", r.RetryStatus, 429)
			eq(t, "ResetAt", r.ResetAt, time.Time{})
		},
	},
	"api-500.stream.jsonl": {
		exit: 1, outcome: APIError, session: "ee00a3ce-a03e-452c-b9c4-18271cbea0dc", call: ptr(0.0), events: initRetryAE,
		text: "API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:18765).",
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.APIErrorStatus", r.APIErrorStatus, 500)
			eq(t, "r.APIErrorKind", r.APIErrorKind, "server_error")
		},
	},
	"api-credit.stream.jsonl": {
		exit: 1, outcome: BillingError, text: "Credit balance is too low",
		session: "837939b5-2fba-4107-ad09-65ee08d744a7", call: ptr(0.0), events: initAPIErr,
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.APIErrorStatus", r.APIErrorStatus, 400)
			eq(t, "r.APIErrorKind", r.APIErrorKind, "billing_error")
		},
	},
	"auth-failure.2.1.197.stream.jsonl": {
		exit: 1, outcome: AuthError, text: "Not logged in · Please run /login",
		session: "0f92cd85-f22b-4ac9-9586-f35a777b580c", events: initAPIErr,
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.Version", r.Version, "2.1.197")
			eq(t, "r.Model", r.Model, "claude-opus-4-8[1m]")
			eq(t, "APIErrorStatus (null)", r.APIErrorStatus, 0)
		},
	},
	// The plain `--output-format json` output is a lone result object.
	"auth-failure.json": {
		exit: 1, outcome: AuthError, text: "Not logged in · Please run /login",
		session: "5a40eaf0-16ed-4f3f-a62f-0b8efeef5b37",
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "APIErrorKind (no synthetic message: recognised by its text)", r.APIErrorKind, "")
		},
	},
	"auth-failure.stream.jsonl": {
		exit: 1, outcome: AuthError, text: "Not logged in · Please run /login",
		session: "623dad87-f9e2-4645-9833-59841dd7e09c", call: ptr(0.0), events: initAPIErr,
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.KeySource", r.KeySource, "none")
			eq(t, "r.KeyRefused", r.KeyRefused, false)
		},
	},
	// `--output-format text` is not JSON: nothing to decode, so no result line.
	"auth-failure.text.txt": {
		exit: 1, outcome: Crash,
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.Lines", r.Lines, 1)
			eq(t, "HasResult", r.HasResult, false)
		},
	},
	"max-budget.stream.jsonl": {
		exit: 1, outcome: Exhausted, session: "3df9c621-0d00-441d-81d8-b08b02486880",
		total: 0.0053, call: ptr(0.0053), events: []EventKind{EventInit, EventText, EventToolUse},
		check: func(t *testing.T, r *Result, events []Event) {
			eq(t, "r.Subtype", r.Subtype, "error_max_budget_usd")
			eq(t, "r.Errors", r.Errors, []string{"Reached maximum budget ($0.001)"})
			eq(t, "events[2]", events[2], Event{Kind: EventToolUse, Tool: "Bash", Detail: "echo hello-from-tool", ToolID: "toolu_d6498f99554a462ab124e1e5"})
		},
	},
	"max-turns.2.1.197.stream.jsonl": {
		exit: 1, outcome: Exhausted, session: "c8221e41-baea-48dd-9241-4326b7d9a564",
		total: 0.01325, events: twoToolRuns,
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.Subtype", r.Subtype, "error_max_turns")
			eq(t, "r.Errors", r.Errors, []string{"Reached maximum number of turns (2)"})
			eq(t, "r.NumTurns", r.NumTurns, 3)
		},
	},
	"max-turns.stream.jsonl": {
		exit: 1, outcome: Exhausted, session: "3706f7b1-9782-44cb-93ea-6c7ce1c3b48c",
		total: 0.0106, call: ptr(0.0106), events: twoToolRuns,
	},
	"partial-messages.stream.jsonl": {
		outcome: Success, text: scripted, session: "f3ce404f-fa67-43b2-a4a4-0051764deed1",
		total: 0.0053, call: ptr(0.0053), events: initText,
		check: func(t *testing.T, r *Result, events []Event) {
			eq(t, "events[1].Text", events[1].Text, scripted)
			eq(t, "r.Lines", r.Lines, 11)
		},
	},
	"permission-denied.stream.jsonl": {
		outcome: Success, text: "Done: the tool said hello.", session: "ca01c201-9182-447f-81cb-a1a987db8741",
		total: 0.0106, call: ptr(0.0106), events: []EventKind{EventInit, EventToolUse, EventToolResult, EventText},
		check: func(t *testing.T, _ *Result, events []Event) {
			eq(t, "events[1]", events[1], Event{Kind: EventToolUse, Tool: "Write", Detail: "/home/dev/project/out.txt", ToolID: "toolu_77868526c298404db6ad9055"})
			denied := "Claude requested permissions to write to /home/dev/project/out.txt, but you haven't granted it yet."
			eq(t, "events[2]", events[2], Event{Kind: EventToolResult, Tool: "Write", IsError: true, Text: denied, Detail: denied, ToolID: "toolu_77868526c298404db6ad9055"})
		},
	},
	"resume-unknown.stderr.txt": {
		asStderr: true, exit: 1, outcome: SessionNotFound,
	},
	"resume-unknown.stream.jsonl": {
		exit: 1, outcome: SessionNotFound, session: "11111111-2222-4333-8444-555555555555",
		check: func(t *testing.T, r *Result, _ []Event) {
			eq(t, "r.Subtype", r.Subtype, "error_during_execution")
			eq(t, "Transient", r.Outcome.Transient(), false)
		},
	},
	"session-fork.stream.jsonl": {
		outcome: Success, text: scripted, session: "2a2ba185-366e-4a73-8dad-ea46e170e83f",
		total: 0.0159, call: ptr(0.0053), events: initText,
		check: func(t *testing.T, r *Result, _ []Event) {
			near(t, "StepCost", StepCost(r, 0.0106, true), 0.0053)
		},
	},
	"session-new.stream.jsonl": {
		outcome: Success, text: scripted, session: "2657efea-6de2-4a53-82c4-3f0782ed6f1c",
		total: 0.0053, call: ptr(0.0053), events: initText,
		check: func(t *testing.T, r *Result, _ []Event) {
			near(t, "StepCost", StepCost(r, 0, false), 0.0053)
		},
	},
	"session-resume.stream.jsonl": {
		outcome: Success, text: scripted, session: "2657efea-6de2-4a53-82c4-3f0782ed6f1c",
		total: 0.0106, call: ptr(0.0053), events: initText,
		check: func(t *testing.T, r *Result, _ []Event) {
			near(t, "StepCost", StepCost(r, 0.0053, true), 0.0053)
		},
	},
	// SIGINT mid-turn: exit 0 and no result line.
	"sigint-midturn.stream.jsonl": {
		outcome: Crash, session: "084ef3f3-8fb3-47fa-8f64-be479ae6f02e", events: []EventKind{EventInit},
	},
	"success.stream.jsonl": {
		outcome: Success, text: scripted, session: "6ba83b8e-1812-467c-be30-af35edfab17b",
		total: 0.0053, call: ptr(0.0053), events: initText,
		check: func(t *testing.T, r *Result, events []Event) {
			eq(t, "events[0]", events[0], Event{Kind: EventInit, SessionID: r.SessionID, Model: "claude-opus-5-5", Version: "2.1.330"})
			eq(t, "r.Usage", r.Usage, Usage{InputTokens: 1200, OutputTokens: 25})
			eq(t, "r.NumTurns", r.NumTurns, 1)
			eq(t, "r.DurationMS", r.DurationMS, int64(205))
			eq(t, "r.Lines", r.Lines, 3)
		},
	},
	"tool-use.stream.jsonl": {
		outcome: Success, text: "Done: the tool said hello.", session: "3cfc1498-bbaa-41e2-9eb2-687163416c7c",
		total: 0.0106, call: ptr(0.0106), events: []EventKind{EventInit, EventText, EventToolUse, EventToolResult, EventText},
		check: func(t *testing.T, _ *Result, events []Event) {
			eq(t, "events[2]", events[2], Event{Kind: EventToolUse, Tool: "Bash", Detail: "echo hello-from-tool", ToolID: "toolu_ed4ba2161a664e81ab87ed4a"})
			eq(t, "events[3]", events[3], Event{Kind: EventToolResult, Tool: "Bash", Text: "hello-from-tool", Detail: "hello-from-tool", ToolID: "toolu_ed4ba2161a664e81ab87ed4a"})
		},
	},
}

func TestFixtures(t *testing.T) {
	entries, err := os.ReadDir(fixturesDir)
	must(t, err)
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		if _, ok := fixtureCases[e.Name()]; !ok {
			t.Errorf("fixture %s has no test case", e.Name())
		}
	}
	for name, tc := range fixtureCases {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(fixture(t, name))
			must(t, err)
			stdout, stderr := string(data), ""
			if tc.asStderr {
				stdout, stderr = "", string(data)
			}
			r, events := decodeOutput(t, stdout, stderr, tc.exit)
			eq(t, "r.Outcome", r.Outcome, tc.outcome)
			eq(t, "r.Text", r.Text, tc.text)
			eq(t, "r.SessionID", r.SessionID, tc.session)
			near(t, "TotalCostUSD", r.TotalCostUSD, tc.total)
			switch {
			case tc.call == nil && r.CallCostUSD != nil:
				t.Errorf("CallCostUSD = %v, want nil", *r.CallCostUSD)
			case tc.call != nil && r.CallCostUSD == nil:
				t.Errorf("CallCostUSD = nil, want %v", *tc.call)
			case tc.call != nil:
				near(t, "CallCostUSD", *r.CallCostUSD, *tc.call)
			}
			eq(t, "kinds(events)", kinds(events), tc.events)
			eq(t, "RootRefused", r.RootRefused, false)
			if tc.check != nil && len(events) == len(tc.events) {
				tc.check(t, r, events)
			}
		})
	}
}
