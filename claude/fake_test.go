package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"raymond/claude/fakeclaude"
	"raymond/step"
)

// fakeRun holds the fake claude's folder and a working directory, so that
// several steps of one test share sessions.
type fakeRun struct {
	t   *testing.T
	dir string // FAKE_CLAUDE_DIR; its config folder is CLAUDE_CONFIG_DIR
	cwd string
	env []string
}

// newFake writes the script and returns a fake whose calls all see env too.
func newFake(t *testing.T, replies []fakeclaude.Reply, env ...string) *fakeRun {
	t.Helper()
	dir := t.TempDir()
	script := filepath.Join(dir, "script.yaml")
	must(t, fakeclaude.WriteScript(script, &fakeclaude.Script{Replies: replies}))
	base := append(childTestEnv(), fakeEnv+"=1", "FAKE_CLAUDE_DIR="+dir, "FAKE_CLAUDE_SCRIPT="+script,
		"CLAUDE_CONFIG_DIR="+filepath.Join(dir, "config"), "FAKE_CLAUDE_ROOT=0", "CLAUDECODE=1")
	return &fakeRun{t: t, dir: dir, cwd: t.TempDir(), env: append(base, env...)}
}

// request is a step of this fake with the given prompt.
func (f *fakeRun) request(prompt string) Request {
	return Request{Executable: os.Args[0], Prompt: prompt, Cwd: f.cwd, Env: f.env}
}

// run runs req, collecting its events.
func (f *fakeRun) run(req Request) (*Result, []Event) {
	f.t.Helper()
	var events []Event
	res := runHelper(f.t, f.t.Context(), req, Handler{OnEvent: func(e Event) { events = append(events, e) }})
	return res, events
}

func (f *fakeRun) calls() []fakeclaude.Call {
	f.t.Helper()
	calls, err := fakeclaude.ReadCalls(f.dir)
	must(f.t, err)
	return calls
}

func eventsOf(events []Event, k EventKind) []Event {
	return slices.DeleteFunc(slices.Clone(events), func(e Event) bool { return e.Kind != k })
}

func TestFakeSessions(t *testing.T) {
	f := newFake(t, []fakeclaude.Reply{
		{
			Say:   []string{"Reading. <print>step one", " done</print>"},
			Tools: []fakeclaude.Tool{{Name: "Read", Input: map[string]any{"file_path": "/src/main.go"}, Result: "package main"}},
			Text:  "Planned. <goto>NEXT.md</goto>",
		},
		{Text: "resumed", Repeat: true},
	})

	// A new session with a chosen id.
	first := NewSessionID()
	req := f.request("plan it")
	req.SessionID = first
	res, events := f.run(req)
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "SessionID", res.SessionID, first)
	eq(t, "Text", res.Text, "Planned. <goto>NEXT.md</goto>")
	eq(t, "prints", eventsOf(events, EventPrint), []Event{{Kind: EventPrint, Text: "step one done"}})
	uses := eventsOf(events, EventToolUse)
	if len(uses) == 1 && strings.HasPrefix(uses[0].ToolID, "toolu_") {
		uses[0].ToolID = "toolu_…"
	}
	eq(t, "tool uses", uses, []Event{{Kind: EventToolUse, Tool: "Read", Detail: "/src/main.go", ToolID: "toolu_…"}})
	if results := eventsOf(events, EventToolResult); len(results) != 1 || results[0].Tool != "Read" || results[0].Detail != "package main" {
		t.Errorf("tool results = %+v", results)
	}
	near(t, "first step cost", StepCost(res, 0, false), 0.0053)
	total := res.TotalCostUSD

	// Resume: same id, cumulative total.
	req = f.request("go on")
	req.Resume = first
	res, _ = f.run(req)
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "resumed SessionID", res.SessionID, first)
	near(t, "resumed total", res.TotalCostUSD, 2*0.0053)
	near(t, "resumed step cost", StepCost(res, total, true), 0.0053)
	res.CallCostUSD = nil // as if the CLI did not report it: the difference
	near(t, "resumed step cost from totals", StepCost(res, total, true), 0.0053)
	total = res.TotalCostUSD

	// Fork into a chosen id: the parent is untouched.
	branch := NewSessionID()
	req = f.request("branch off")
	req.Resume, req.Fork, req.SessionID = first, true, branch
	res, _ = f.run(req)
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "branch SessionID", res.SessionID, branch)
	near(t, "branch step cost", StepCost(res, total, true), 0.0053)

	// Fork without choosing: the CLI mints the id.
	req = f.request("branch again")
	req.Resume, req.Fork = first, true
	res, _ = f.run(req)
	eq(t, "Outcome", res.Outcome, Success)
	if res.SessionID == "" || res.SessionID == first || res.SessionID == branch {
		t.Errorf("minted branch SessionID = %q", res.SessionID)
	}

	calls := f.calls()
	if len(calls) != 4 {
		t.Fatalf("%d calls logged, want 4", len(calls))
	}
	for i, c := range calls {
		eq(t, "call cwd", c.Cwd, f.cwd)
		eq(t, "call saw CLAUDECODE", c.EnvClaudeCode, false)
		eq(t, "call exit", c.Exit, 0)
		argv, _ := Args(f.request(c.Prompt))
		if slices.Contains(c.Argv, c.Prompt) || len(c.Argv) < len(argv) {
			t.Errorf("call %d argv %q", i, c.Argv)
		}
	}
	eq(t, "prompts", []string{calls[0].Prompt, calls[1].Prompt, calls[2].Prompt}, []string{"plan it", "go on", "branch off"})
	eq(t, "resumed", []string{calls[0].Resumed, calls[1].Resumed, calls[2].Resumed}, []string{"", first, first})
	eq(t, "forked", []bool{calls[1].Forked, calls[2].Forked, calls[3].Forked}, []bool{false, true, true})
}

func TestFakeOldCLICost(t *testing.T) {
	f := newFake(t, []fakeclaude.Reply{{Text: "ok", Repeat: true}}, "FAKE_CLAUDE_VERSION=2.1.197")
	res, _ := f.run(f.request("one"))
	prev := res.TotalCostUSD
	req := f.request("two")
	req.Resume = res.SessionID
	res, _ = f.run(req)
	eq(t, "Version", res.Version, "2.1.197")
	if res.CallCostUSD != nil {
		t.Errorf("CallCostUSD = %v from a CLI that does not report it", *res.CallCostUSD)
	}
	near(t, "per-call total", res.TotalCostUSD, 0.0053)
	near(t, "step cost", StepCost(res, prev, true), 0.0053)
}

func TestFakeOutcomes(t *testing.T) {
	chicago, err := time.LoadLocation("America/Chicago")
	must(t, err)
	const limitText = "You've hit your session limit · resets 3pm (America/Chicago)"
	tests := []struct {
		name   string
		reply  fakeclaude.Reply
		adjust func(*Request)
		env    []string
		want   Outcome
		check  func(t *testing.T, r *Result, events []Event)
	}{
		{name: "overloaded", reply: fakeclaude.Reply{Error: "overloaded"}, want: APIError,
			check: func(t *testing.T, r *Result, events []Event) {
				eq(t, "retries", len(eventsOf(events, EventRetry)), 1)
				eq(t, "api errors", len(eventsOf(events, EventAPIError)), 1)
			}},
		{name: "rate limited", reply: fakeclaude.Reply{Error: "rate_limit"}, want: APIError},
		{name: "server error", reply: fakeclaude.Reply{Error: "server_error"}, want: APIError},
		{name: "not logged in", reply: fakeclaude.Reply{Error: "authentication_failed"}, want: AuthError,
			env: []string{"ANTHROPIC_API_KEY="},
			check: func(t *testing.T, r *Result, events []Event) {
				eq(t, "KeySource", r.KeySource, "none")
				eq(t, "HasResult", r.HasResult, true)
				eq(t, "retries", len(eventsOf(events, EventRetry)), 0)
			}},
		// The CLI would retry the key ten times over minutes (here an hour
		// each); raymond stops it at the first retry. The step timeout only
		// bounds the test should it not.
		{name: "api key refused: stopped at the first retry", reply: fakeclaude.Reply{Error: "authentication_failed"}, want: AuthError,
			env:    []string{"ANTHROPIC_API_KEY=sk-ant-placeholder", "FAKE_CLAUDE_RETRY_DELAY=1h"},
			adjust: func(r *Request) { r.StepTimeout = 30 * time.Second },
			check: func(t *testing.T, r *Result, events []Event) {
				eq(t, "KeySource", r.KeySource, "ANTHROPIC_API_KEY")
				eq(t, "HasResult", r.HasResult, false)
				eq(t, "ExitCode (SIGTERM)", r.ExitCode, 143)
				eq(t, "retries", len(eventsOf(events, EventRetry)), 1)
			}},
		{name: "rate limit rejected: a usage limit with no reset", reply: fakeclaude.Reply{Error: "rate_limit_rejected"}, want: UsageLimit,
			check: func(t *testing.T, r *Result, events []Event) {
				eq(t, "retries", len(eventsOf(events, EventRetry)), 0)
				eq(t, "ResetAt", r.ResetAt, time.Time{})
			}},
		{name: "no credit", reply: fakeclaude.Reply{Error: "billing_error"}, want: BillingError},
		{name: "usage limit, time in the text", reply: fakeclaude.Reply{UsageLimit: limitText}, want: UsageLimit,
			check: func(t *testing.T, r *Result, _ []Event) {
				at := r.ResetAt.In(chicago)
				if at.Hour() != 15 || at.Minute() != 0 || !at.After(r.Ended.Add(-resetSkew)) || at.Sub(r.Ended) > 24*time.Hour {
					t.Errorf("ResetAt = %v for %q at %v", r.ResetAt, limitText, r.Ended)
				}
				near(t, "cost", StepCost(r, 0, false), 0)
			}},
		{name: "usage limit, reset in an event", reply: fakeclaude.Reply{UsageLimit: limitText, RateLimitReset: 1763700000}, want: UsageLimit,
			check: func(t *testing.T, r *Result, events []Event) {
				eq(t, "ResetAt", r.ResetAt.Unix(), int64(1763700000))
				if ev := eventsOf(events, EventRateLimit); len(ev) != 1 || ev[0].LimitStatus != "rejected" || ev[0].ResetAt.Unix() != 1763700000 {
					t.Errorf("rate-limit events = %+v", ev)
				}
			}},
		{name: "system lines of other subtypes are passed over", want: Success,
			reply: fakeclaude.Reply{System: []string{"informational", "task_started", "task_notification"}, Text: "<goto>X</goto>"},
			check: func(t *testing.T, r *Result, events []Event) {
				eq(t, "events", kinds(events), []EventKind{EventInit, EventText})
				eq(t, "Text", r.Text, "<goto>X</goto>")
			}},
		{name: "error during execution: its errors are the reason", want: APIError,
			reply: fakeclaude.Reply{ExecutionError: "Tool permission request failed: stream closed"},
			check: func(t *testing.T, r *Result, _ []Event) {
				eq(t, "Errors", r.Errors, []string{"Tool permission request failed: stream closed"})
				out := Neutral(r, step.Request{})
				eq(t, "Outcome", out.Outcome, step.Transient)
				eq(t, "Reason", out.Reason, "claude ended the step with an error: Tool permission request failed: stream closed")
			}},
		{name: "max turns", reply: fakeclaude.Reply{MaxTurns: true}, want: Exhausted},
		{name: "max budget", reply: fakeclaude.Reply{MaxBudget: true}, want: Exhausted},
		{name: "step budget from the request", reply: fakeclaude.Reply{Text: "<goto>X</goto>", Cost: new(0.02)}, want: Exhausted,
			adjust: func(r *Request) { r.MaxBudgetUSD = 0.01 },
			check: func(t *testing.T, r *Result, _ []Event) {
				eq(t, "Subtype", r.Subtype, "error_max_budget_usd")
			}},
		{name: "crash with exit 0", reply: fakeclaude.Reply{Say: []string{"working"}, Crash: true, Exit: ptr(0)}, want: Crash},
		{name: "crash with a message", reply: fakeclaude.Reply{Crash: true, Exit: ptr(2), Stderr: "boom"}, want: Crash,
			check: func(t *testing.T, r *Result, _ []Event) {
				eq(t, "ExitCode", r.ExitCode, 2)
				if !strings.Contains(r.Stderr, "boom") {
					t.Errorf("Stderr = %q", r.Stderr)
				}
			}},
		{name: "hang", reply: fakeclaude.Reply{Say: []string{"thinking"}, Hang: true}, want: Timeout,
			adjust: func(r *Request) { r.IdleTimeout = 2 * time.Second },
			check: func(t *testing.T, r *Result, _ []Event) {
				eq(t, "ExitCode", r.ExitCode, 143)
				if r.SessionID == "" {
					t.Error("no session id from the init line")
				}
			}},
		{name: "unknown session", reply: fakeclaude.Reply{Text: "never"}, want: SessionNotFound,
			adjust: func(r *Request) { r.Resume = NewSessionID() }},
		{name: "root guard", reply: fakeclaude.Reply{Text: "never"}, want: InvocationError, env: []string{"FAKE_CLAUDE_ROOT=1"},
			adjust: func(r *Request) { r.SkipPermissions = true },
			check: func(t *testing.T, r *Result, _ []Event) {
				eq(t, "RootRefused", r.RootRefused, true)
				eq(t, "Lines", r.Lines, 0)
			}},
		{name: "unknown flag", reply: fakeclaude.Reply{Text: "never"}, want: InvocationError,
			adjust: func(r *Request) { r.ExtraArgs = []string{"--bogus"} },
			check: func(t *testing.T, r *Result, _ []Event) {
				eq(t, "RootRefused", r.RootRefused, false)
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, []fakeclaude.Reply{tc.reply}, tc.env...)
			req := f.request("do it")
			if tc.adjust != nil {
				tc.adjust(&req)
			}
			res, events := f.run(req)
			eq(t, "Outcome", res.Outcome, tc.want)
			if t.Failed() {
				t.Logf("result: %+v", res)
			}
			if tc.check != nil {
				tc.check(t, res, events)
			}
		})
	}
}

func TestFakeLargePromptThroughStdin(t *testing.T) {
	f := newFake(t, []fakeclaude.Reply{{Text: "read it"}})
	var b strings.Builder
	for b.Len() < 300<<10 {
		b.WriteString("line of a large prompt: ünïcödé and <tags>\n")
	}
	prompt := b.String()
	res, _ := f.run(f.request(prompt))
	eq(t, "Outcome", res.Outcome, Success)
	calls := f.calls()
	if len(calls) != 1 {
		t.Fatalf("%d calls logged, want 1", len(calls))
	}
	if calls[0].Prompt != prompt || calls[0].Stdin != prompt {
		t.Errorf("prompt arrived with %d bytes (stdin %d), want %d", len(calls[0].Prompt), len(calls[0].Stdin), len(prompt))
	}
	if slices.Contains(calls[0].Argv, prompt) || slices.Contains(calls[0].Argv, "--") {
		t.Error("the large prompt is on argv")
	}
}
