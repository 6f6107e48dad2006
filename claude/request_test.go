package claude

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"raymond/claude/fakeclaude"
	"raymond/state"
	"raymond/step"
)

func TestArgs(t *testing.T) {
	head := []string{"-p", "--output-format", "stream-json", "--verbose"}
	with := func(opts ...string) []string { return append(append([]string{}, head...), opts...) }
	big := strings.Repeat("p", 200<<10) // over Linux's 128 KiB for one argv string

	tests := []struct {
		name      string
		req       Request
		argv      []string
		stdin     string
		wantValid bool
	}{
		{
			name: "new session", req: Request{Prompt: "hi"},
			argv: head, stdin: "hi", wantValid: true,
		},
		{
			name: "new session with a chosen id", req: Request{Prompt: "hi", SessionID: "6ba83b8e-1812-467c-be30-af35edfab17b"},
			argv: with("--session-id", "6ba83b8e-1812-467c-be30-af35edfab17b"), stdin: "hi", wantValid: true,
		},
		{
			name: "fallback models and MCP servers", req: Request{Prompt: "hi", Model: "opus", FallbackModel: "sonnet,haiku", MCPConfig: "/r/mcp/1.json"},
			argv:  with("--model", "opus", "--fallback-model", "sonnet,haiku", "--mcp-config", "/r/mcp/1.json", "--strict-mcp-config"),
			stdin: "hi", wantValid: true,
		},
		{
			name: "fallback the model itself", req: Request{Prompt: "hi", Model: "opus", FallbackModel: "opus"},
			argv: with("--model", "opus"), stdin: "hi", wantValid: true,
		},
		{
			name: "resume", req: Request{Prompt: "hi", Resume: "abc"},
			argv: with("--resume", "abc"), stdin: "hi", wantValid: true,
		},
		{
			name: "fork", req: Request{Prompt: "hi", Resume: "abc", Fork: true},
			argv: with("--resume", "abc", "--fork-session"), stdin: "hi", wantValid: true,
		},
		{
			name: "fork with the branch's id",
			req:  Request{Prompt: "hi", Resume: "abc", Fork: true, SessionID: "11111111-2222-4333-8444-555555555555"},
			argv: with("--resume", "abc", "--fork-session", "--session-id", "11111111-2222-4333-8444-555555555555"), stdin: "hi", wantValid: true,
		},
		{
			name: "fork without resume is refused", req: Request{Prompt: "hi", Fork: true},
			argv: head, stdin: "hi",
		},
		{
			name: "a negative step budget is refused", req: Request{Prompt: "hi", MaxBudgetUSD: -0.5},
			argv: head, stdin: "hi",
		},
		{
			name: "plain resume cannot choose an id", req: Request{Prompt: "hi", Resume: "abc", SessionID: "11111111-2222-4333-8444-555555555555"},
			argv: with("--resume", "abc", "--session-id", "11111111-2222-4333-8444-555555555555"), stdin: "hi",
		},
		{
			name: "session id must be a UUID", req: Request{Prompt: "hi", SessionID: "not-a-uuid"},
			argv: with("--session-id", "not-a-uuid"), stdin: "hi",
		},
		{
			name: "empty prompt is refused", req: Request{},
			argv: head, stdin: "",
		},
		{
			name: "permission mode", req: Request{Prompt: "hi", PermissionMode: "acceptEdits"},
			argv: with("--permission-mode", "acceptEdits"), stdin: "hi", wantValid: true,
		},
		{
			name: "skip permissions replaces the mode", req: Request{Prompt: "hi", PermissionMode: "acceptEdits", SkipPermissions: true},
			argv: with("--dangerously-skip-permissions"), stdin: "hi", wantValid: true,
		},
		{
			name: "every option",
			req: Request{
				Prompt: "-starts with a dash", Model: "opus", Effort: "high", MaxTurns: 7, MaxBudgetUSD: 0.25,
				AppendSystemPrompt: "be brief", ExtraArgs: []string{"--add-dir", "/tmp"},
			},
			argv: with("--model", "opus", "--effort", "high", "--max-turns", "7", "--max-budget-usd", "0.25",
				"--append-system-prompt", "be brief", "--add-dir", "/tmp"),
			stdin: "-starts with a dash", wantValid: true,
		},
		{
			name: "variadic options may come last",
			req:  Request{Prompt: "go", AllowedTools: []string{"Bash(git log:*)", "Edit"}, DisallowedTools: []string{"WebFetch"}},
			argv: with("--allowedTools", "Bash(git log:*)", "Edit", "--disallowedTools", "WebFetch"), stdin: "go", wantValid: true,
		},
		{
			name: "a large prompt too", req: Request{Prompt: big, AllowedTools: []string{"Edit"}},
			argv: with("--allowedTools", "Edit"), stdin: big, wantValid: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			argv, stdin := Args(tc.req)
			eq(t, "argv", argv, tc.argv)
			eq(t, "stdin", stdin, tc.stdin)
			err := tc.req.validate()
			if (err == nil) != tc.wantValid {
				t.Errorf("validate() = %v, want valid=%v", err, tc.wantValid)
			}
		})
	}
}

func TestChildEnv(t *testing.T) {
	r := Request{Env: []string{"A=1", "CLAUDECODE=1", "CLAUDECODEX=keep", "CLAUDECODE", "B=2", "CLAUDECODE="}}
	eq(t, "env", r.childEnv(), []string{"A=1", "CLAUDECODEX=keep", "B=2"})

	t.Setenv("CLAUDECODE", "1")
	for _, kv := range (Request{}).childEnv() {
		if strings.HasPrefix(kv, "CLAUDECODE=") {
			t.Errorf("os.Environ() passed on %q", kv)
		}
	}
}

func TestNewSessionID(t *testing.T) {
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := make(map[string]bool)
	for range 100 {
		id := NewSessionID()
		if !v4.MatchString(id) {
			t.Fatalf("NewSessionID() = %q, not a v4 UUID", id)
		}
		if seen[id] {
			t.Fatalf("NewSessionID() repeated %q", id)
		}
		seen[id] = true
		if err := (Request{Prompt: "x", SessionID: id}).validate(); err != nil {
			t.Fatalf("validate rejects %q: %v", id, err)
		}
	}
}

// TestRunnerIdleTimeout: a state's own idle timeout replaces the run's
// --timeout, 0 included, and the message of its expiry names the state.
func TestRunnerIdleTimeout(t *testing.T) {
	req := step.Request{Prompt: "hi", Step: state.Step{Ref: state.Ref{State: "POLL.md"}}}
	req.Options.Timeout = state.Duration(10 * time.Minute)
	r := Runner{}.Request(req)
	eq(t, "IdleTimeout from --timeout", r.IdleTimeout, 10*time.Minute)
	eq(t, "IdleTimeoutFrom", r.IdleTimeoutFrom, "--timeout")

	own := state.Duration(30 * time.Second)
	req.Step.Timeout = &own
	r = Runner{}.Request(req)
	eq(t, "IdleTimeout from the state", r.IdleTimeout, 30*time.Second)
	eq(t, "IdleTimeoutFrom", r.IdleTimeoutFrom, "timeout in POLL.md")

	never := state.Duration(0)
	req.Step.Timeout = &never
	eq(t, "IdleTimeout of a state's 0", Runner{}.Request(req).IdleTimeout, time.Duration(0))

	res := Neutral(&Result{Outcome: Timeout, Limit: 30 * time.Second, LimitFrom: "timeout in POLL.md"}, req)
	eq(t, "Reason", res.Reason, "claude printed nothing for 30s and was stopped (timeout in POLL.md 30s)")
	res = Neutral(&Result{Outcome: Timeout, Limit: time.Minute}, req)
	eq(t, "Reason without LimitFrom", res.Reason, "claude printed nothing for 1m0s and was stopped (--timeout 1m0s)")
}

// TestRunnerToolLimits: a state's tool rules reach claude, the prompt is
// never swallowed by the variadic options, and a state's permission mode
// replaces the run's mode or its skipping of permissions.
func TestRunnerToolLimits(t *testing.T) {
	f := newFake(t, []fakeclaude.Reply{{Text: "ok", Repeat: true}})
	req := step.Request{Prompt: "Read", Step: state.Step{Ref: state.Ref{State: "RESEARCH.md"}, Cwd: f.cwd,
		AllowedTools: []string{"Read", "Bash(git log:*)"}, DisallowedTools: []string{"Write", "Edit"}}}
	req.Options.ClaudePath, req.Options.PermissionMode = os.Args[0], "acceptEdits"

	tests := []struct {
		name      string
		runSkips  bool
		stateMode string
		mode      string
		skip      bool
	}{
		{"the run's mode", false, "", "acceptEdits", false},
		{"the state's mode", false, "plan", "plan", false},
		{"skip permissions, disallowed tools still go", true, "", "", true},
		{"the state's mode replaces skipping", true, "dontAsk", "dontAsk", false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := req
			req.Options.SkipPermissions, req.Step.PermissionMode = tt.runSkips, tt.stateMode
			r := Runner{Env: f.env}.Request(req)
			res, _ := f.run(r)
			eq(t, "Outcome", res.Outcome, Success)
			c := f.calls()[i]
			eq(t, "prompt", c.Prompt, "Read")
			eq(t, "allowed", c.AllowedTools, []string{"Read", "Bash(git log:*)"})
			eq(t, "disallowed", c.DisallowedTools, []string{"Write", "Edit"})
			eq(t, "permission mode", c.PermissionMode, tt.mode)
			eq(t, "skip", c.SkipPermissions, tt.skip)
		})
	}
}
