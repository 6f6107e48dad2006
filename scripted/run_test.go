package scripted

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
	"raymond/state"
)

func TestRunRendersTemplateValues(t *testing.T) {
	r := parse(t, `
replies:
  WORKER.md:
    - text: "Checked {{item}} for {{agent_id}}. <result>{{item}}: ok</result> {{unknown}}"
      repeat: true
      say: ["Looking at {{item}}… <print>{{item}} started</print>"]
      tools: [{name: Bash, input: {command: "ls {{item}}", count: 3, args: ["{{item}}"]}, result: "{{item}}.go"}]
`)
	for _, item := range []string{"parsing", "state"} {
		res, rec := run(t, r, request("WORKER.md", map[string]string{"item": item, "agent_id": "main_worker1"}))
		assert.Equal(t, "Checked "+item+" for main_worker1. <result>"+item+": ok</result> {{unknown}}", res.Text,
			"a placeholder without a value is left as written")
		assert.Equal(t, []string{"Looking at " + item + "… <print>" + item + " started</print>", res.Text}, rec.texts(claude.EventText))
		assert.Equal(t, []string{item + " started"}, rec.texts(claude.EventPrint))
		assert.Equal(t, []string{item + ".go"}, rec.texts(claude.EventToolResult))
		assert.Contains(t, rec.lines[2], `"input":{"args":["`+item+`"],"command":"ls `+item+`","count":3}`)
	}
	assert.Equal(t, map[string]any{"command": "ls {{item}}", "count": 3, "args": []any{"{{item}}"}},
		r.queues[0].replies[0].tools[0].input, "rendering leaves the shared reply alone")
}

func TestRunConsumesInOrder(t *testing.T) {
	r := parse(t, `
replies:
  A.md:
    - one
    - {text: two, times: 2}
    - {text: never, times: 0}
    - {text: rest, repeat: true}
  B:
    - b1
    - b2
`)
	var got []string
	for _, s := range []string{"A.md", "B.md", "A.md", "A.md", "B.md", "A.md", "A.md", "B.md", "A.md"} {
		got = append(got, answer(t, r, s))
	}
	assert.Equal(t, []string{"one", "b1", "two", "two", "b2", "rest", "rest", "[invocation error]", "rest"}, got)
}

func TestRunWithoutReplyLeft(t *testing.T) {
	r := parse(t, "replies:\n  WORKER.md:\n    - {text: a, times: 2}\n    - b\n  OFF.md:\n    - {text: a, times: 0}\n")
	for range 3 {
		run(t, r, request("WORKER.md", nil))
	}
	tests := []struct {
		state string
		want  string
	}{
		{"WORKER.md", "no scripted reply left for WORKER.md: replies.yaml gives 3 and all were used"},
		{"OTHER.md", "no scripted reply for OTHER.md: replies.yaml gives none for it"},
		{"OFF.md", "no scripted reply for OFF.md: replies.yaml gives none for it"},
	}
	for _, tt := range tests {
		res, rec := run(t, r, request(tt.state, nil))
		assert.Equal(t, claude.InvocationError, res.Outcome)
		assert.False(t, res.HasResult)
		assert.Equal(t, tt.want+"\n", res.Stderr)
		assert.Equal(t, 1, res.ExitCode)
		assert.Equal(t, []string{tt.want}, rec.stderr)
		assert.Empty(t, rec.lines, "like a claude that refuses to start, it writes nothing on stdout")
		assert.Empty(t, rec.events)
	}

	var zero Runner
	res, _ := run(t, &zero, request("START.md", nil))
	assert.Equal(t, "no scripted reply for START.md: the replies file gives none for it\n", res.Stderr)
}

func TestUnused(t *testing.T) {
	r := parse(t, `
replies:
  START:
    - "Planning the whole thing in one long line that goes on and on past the limit"
  A.md:
    - {text: "\n  first line\nsecond", times: 3}
    - {outcome: crash}
    - {text: disabled, times: 0}
    - {text: always, repeat: true}
  B.md:
    - {text: b, repeat: true}
`)
	run(t, r, request("A.md", nil))
	run(t, r, request("B.md", nil))
	assert.Equal(t, []Unused{
		{State: "START", Index: 1, Text: "Planning the whole thing in one long line that goes on and …", Used: 0, Times: 1},
		{State: "A.md", Index: 1, Text: "first line", Used: 1, Times: 3},
		{State: "A.md", Index: 2, Text: "outcome: crash", Used: 0, Times: 1},
		{State: "A.md", Index: 4, Text: "always", Used: 0, Times: 0},
	}, r.Unused())
}

func TestRunSession(t *testing.T) {
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	tests := []struct {
		name string
		step state.Step
		want string // "" means a freshly minted id
	}{
		{"new", state.Step{Mode: state.SessionNew, SessionID: testSession}, testSession},
		{"new without id", state.Step{Mode: state.SessionNew}, ""},
		{"no mode", state.Step{}, ""},
		{"resume", state.Step{Mode: state.SessionResume, ResumeSession: "s-old"}, "s-old"},
		{"branch", state.Step{Mode: state.SessionBranch, ResumeSession: "s-old", SessionID: testSession}, testSession},
		{"branch without id", state.Step{Mode: state.SessionBranch, ResumeSession: "s-old"}, ""},
	}
	r := parse(t, "replies:\n  S.md: [{text: ok, repeat: true}]\n")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := request("S.md", nil)
			tt.step.State = "S.md"
			req.Step = tt.step
			res, rec := run(t, r, req)
			if tt.want == "" {
				assert.Regexp(t, uuid, res.SessionID)
				assert.NotEqual(t, "s-old", res.SessionID)
			} else {
				assert.Equal(t, tt.want, res.SessionID)
			}
			require.NotEmpty(t, rec.events)
			assert.Equal(t, res.SessionID, rec.events[0].SessionID)
		})
	}

	bad := []struct {
		step state.Step
		want string
	}{
		{state.Step{Mode: state.SessionResume}, "scripted step main_S_001: resume step without a session to resume"},
		{state.Step{Mode: state.SessionBranch, SessionID: testSession}, "scripted step main_S_001: branch step without a session to branch from"},
		{state.Step{Mode: "fork"}, `scripted step main_S_001: unknown session mode "fork"`},
	}
	for _, tt := range bad {
		req := request("S.md", nil)
		tt.step.State = "S.md"
		req.Step = tt.step
		res, err := r.play(context.Background(), req, claude.Handler{})
		assert.Nil(t, res)
		assert.EqualError(t, err, tt.want)
	}
	assert.Empty(t, r.Unused(), "refused steps use no reply")
}

func TestRunOutcomes(t *testing.T) {
	r := parse(t, `
replies:
  S.md:
    - {text: "Done. <goto>NEXT</goto>", cost: 0.25, say: [Working.]}
    - {outcome: crash, say: [Working.]}
    - {outcome: api_error, cost: 0.01}
    - {outcome: usage_limit, reset: 30m}
    - {outcome: timeout}
    - {outcome: max_turns, cost: 0.5}
`)
	ptr := func(f float64) *float64 { return &f }
	tests := []struct {
		outcome claude.Outcome
		want    claude.Result // the fields that do not depend on time
	}{
		{claude.Success, claude.Result{
			HasResult: true, Text: "Done. <goto>NEXT</goto>", Subtype: "success",
			TotalCostUSD: 0.25, CallCostUSD: ptr(0.25), NumTurns: 1, Lines: 4,
			Usage: claude.Usage{InputTokens: 5, OutputTokens: 8}, // 31 bytes of text
		}},
		{claude.Crash, claude.Result{
			ExitCode: 1, Stderr: "scripted crash: reply 2 of S.md has outcome crash\n", Lines: 2,
		}},
		{claude.APIError, claude.Result{
			HasResult: true, Text: apiErrorText, Subtype: "success", IsError: true,
			APIErrorStatus: 500, APIErrorKind: "server_error", ExitCode: 1,
			TotalCostUSD: 0.01, CallCostUSD: ptr(0.01), NumTurns: 1, Lines: 3,
			Usage: claude.Usage{InputTokens: 5},
		}},
		{claude.UsageLimit, claude.Result{
			HasResult: true, Subtype: "success", IsError: true,
			APIErrorStatus: 429, APIErrorKind: "rate_limit", ExitCode: 1,
			CallCostUSD: ptr(0), NumTurns: 1, Lines: 4,
			Usage: claude.Usage{InputTokens: 5},
		}},
		{claude.Timeout, claude.Result{ExitCode: -1, Signal: "SIGTERM", Lines: 1}},
		{claude.Exhausted, claude.Result{
			HasResult: true, Subtype: "error_max_turns", IsError: true,
			Errors: []string{"Reached maximum number of turns (1)"}, ExitCode: 1,
			TotalCostUSD: 0.5, CallCostUSD: ptr(0.5), NumTurns: 1, Lines: 2,
			Usage: claude.Usage{InputTokens: 5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.outcome.String(), func(t *testing.T) {
			req := request("S.md", nil)
			req.Prompt = "Do it, please now." // 18 bytes: 5 tokens
			req.Step.Model = "sonnet"
			before := time.Now()
			res, rec := run(t, r, req)

			assert.Equal(t, tt.outcome, res.Outcome)
			want := tt.want
			want.Outcome, want.SessionID, want.Model, want.Version = tt.outcome, testSession, "sonnet", "scripted"
			want.KeySource = "none" // the init line's apiKeySource: a login, as claude without a key says
			want.Started, want.Ended, want.DurationMS = res.Started, res.Ended, res.DurationMS
			// The uuid of the last assistant line the scripted runner made
			// up: fresh each time, but there whenever it wrote one.
			want.LastMessage = res.LastMessage
			if tt.outcome == claude.Success {
				assert.Len(t, res.LastMessage, 36, "an answer's last message is recorded")
			}
			if tt.outcome == claude.UsageLimit {
				assert.WithinRange(t, res.ResetAt, before.Add(30*time.Minute).Truncate(time.Second), time.Now().Add(30*time.Minute+time.Second))
				assert.Regexp(t, `^You've hit your session limit · resets \d{1,2}(:\d\d)?[ap]m$`, res.Text)
				assert.True(t, claude.IsUsageLimit(res.Text), "the text reads as a usage limit")
				want.ResetAt, want.Text = res.ResetAt, res.Text
			}
			assert.Equal(t, want, *res)
			assert.False(t, res.Started.Before(before))
			assert.False(t, res.Ended.Before(res.Started))
			assert.Len(t, rec.lines, res.Lines)
		})
	}
}

func TestRunOverStepBudget(t *testing.T) {
	r := parse(t, "replies:\n  S.md:\n    - {text: cheap, cost: 0.25, times: 2}\n    - {text: dear, cost: 0.5}\n")
	req := request("S.md", nil)
	req.MaxBudgetUSD = 0.25
	res, _ := run(t, r, req)
	assert.Equal(t, claude.Success, res.Outcome, "a step may cost its whole budget")

	req.MaxBudgetUSD = 0
	res, _ = run(t, r, req)
	assert.Equal(t, claude.Success, res.Outcome, "0 means no budget")

	req.MaxBudgetUSD = 0.3
	res, rec := run(t, r, req)
	assert.Equal(t, claude.Exhausted, res.Outcome)
	assert.True(t, res.IsError)
	assert.Equal(t, "error_max_budget_usd", res.Subtype)
	assert.Equal(t, []string{"Reached maximum budget ($0.3)"}, res.Errors)
	assert.Empty(t, res.Text)
	assert.Equal(t, 0.5, *res.CallCostUSD, "the step reports what it spent")
	assert.Empty(t, rec.texts(claude.EventText), "the step stopped before its answer")
}

func TestUsageLimitText(t *testing.T) {
	now := time.Date(2026, 11, 21, 14, 10, 0, 0, time.Local)
	tests := []struct {
		reset time.Time
		want  string
	}{
		{now.Add(50 * time.Minute), "You've hit your session limit · resets 3pm"},
		{now.Add(2 * time.Hour), "You've hit your session limit · resets 4:10pm"},
		{now.Add(10 * time.Hour), "You've hit your session limit · resets 12:10am"},
		{now.Add(49 * time.Hour), "You've hit your session limit · resets Nov 23, 3:10pm"},
	}
	for _, tt := range tests {
		text := usageLimitText(tt.reset, now)
		assert.Equal(t, tt.want, text)
		got, ok := claude.ParseResetTime(text, now)
		require.True(t, ok, text)
		assert.True(t, got.Equal(tt.reset), "the claude package reads back %v from %q, not %v", got, text, tt.reset)
	}
}

// TestRunLinesAreStreamJSON checks the shape of every line: the keys the
// real CLI writes and raymond reads.
func TestRunLinesAreStreamJSON(t *testing.T) {
	r := parse(t, `
replies:
  S.md:
    - {text: "Done <goto>NEXT</goto>", say: [Hi.], tools: [{name: Bash, input: {command: ls}, result: "a\nb"}]}
    - {text: "", say: [Only this.]}
    - {outcome: api_error}
    - {outcome: usage_limit}
    - {outcome: max_turns, tools: [{name: Read}]}
    - {outcome: crash}
`)
	var all []map[string]any
	for range 6 {
		_, rec := run(t, r, request("S.md", nil))
		for _, line := range rec.lines {
			assert.False(t, strings.ContainsAny(line, "\n"), "one line: %s", line)
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &m), line)
			all = append(all, m)
		}
	}
	keys := func(m map[string]any, want ...string) {
		t.Helper()
		for _, k := range want {
			assert.Contains(t, m, k, "%s line lacks %s: %v", m["type"], k, m)
		}
	}
	types := map[string]int{}
	for _, m := range all {
		types[m["type"].(string)]++
		keys(m, "type", "session_id", "uuid")
		switch m["type"] {
		case "system":
			keys(m, "subtype", "cwd", "model", "tools", "claude_code_version")
		case "assistant", "user":
			keys(m, "message", "parent_tool_use_id")
			msg := m["message"].(map[string]any)
			assert.Len(t, msg["content"], 1)
		case "rate_limit_event":
			keys(m["rate_limit_info"].(map[string]any), "status", "resetsAt", "rateLimitType")
		case "result":
			keys(m, "subtype", "is_error", "total_cost_usd", "usage", "num_turns", "duration_ms", "model_usage_since_last_result")
			keys(m["usage"].(map[string]any), "input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
			if m["subtype"] == "success" {
				keys(m, "result")
			} else {
				keys(m, "errors")
				assert.NotContains(t, m, "result", "error subtypes have no result field")
			}
		default:
			t.Errorf("unexpected line type %v", m["type"])
		}
	}
	assert.Equal(t, map[string]int{"system": 6, "assistant": 7, "user": 2, "rate_limit_event": 1, "result": 5}, types)
	assert.Equal(t, "Done <goto>NEXT</goto>", all[5]["result"], "tags are written as they are, not escaped")
}

func TestRunWritesFiles(t *testing.T) {
	dir := t.TempDir()
	r := parse(t, `
replies:
  REVIEW.md:
    - text: "<goto>CHECK.sh</goto>"
      writes:
        "{{input}}/REVIEW.md": "Verdict: {{verdict}}\n"
        `+dir+`/abs/{{verdict}}.txt: "absolute"
    - text: "verbatim"
      template: false
      writes: {"{{input}}.md": "{{input}}"}
`)
	req := request("REVIEW.md", map[string]string{"input": "changes/x", "verdict": "APPROVED"})
	req.Step.Cwd = dir
	res, _ := run(t, r, req)
	assert.Equal(t, claude.Success, res.Outcome)
	got, err := os.ReadFile(filepath.Join(dir, "changes/x/REVIEW.md"))
	require.NoError(t, err, "a relative path starts from the step's working directory; its folders are made")
	assert.Equal(t, "Verdict: APPROVED\n", string(got))
	got, err = os.ReadFile(filepath.Join(dir, "abs/APPROVED.txt"))
	require.NoError(t, err)
	assert.Equal(t, "absolute", string(got))

	run(t, r, req)
	got, err = os.ReadFile(filepath.Join(dir, "{{input}}.md"))
	require.NoError(t, err, "template: false writes path and content as written")
	assert.Equal(t, "{{input}}", string(got))
}

func TestRunWritesFailure(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	r := parse(t, "replies:\n  W.md:\n    - {text: done, writes: {file/under/a/file.txt: x}}\n")
	req := request("W.md", nil)
	req.Step.Cwd = dir
	res, rec := run(t, r, req)
	assert.Equal(t, claude.InvocationError, res.Outcome, "a reply that cannot write its file fails the step, as a claude that cannot start")
	assert.Contains(t, res.Stderr, "scripted reply for W.md: writes: ")
	assert.Empty(t, rec.lines)
}
