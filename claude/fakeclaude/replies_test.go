package fakeclaude

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestSuccessReplies(t *testing.T) {
	tests := []struct {
		name   string
		script string
		kinds  []string
		text   string
		turns  float64
	}{
		{"text only", "replies: [{text: hello}]",
			[]string{"system/init", "assistant", "result/success"}, "hello", 1},
		{"say replaces the streamed text", "replies: [{say: [a, b], text: final}]",
			[]string{"system/init", "assistant", "assistant", "result/success"}, "final", 1},
		{"tools", "replies: [{say: [look], tools: [{name: Bash, input: {command: ls}, result: x}, {name: Read}], text: done}]",
			[]string{"system/init", "assistant", "assistant", "user", "assistant", "user", "result/success"}, "done", 3},
		{"tools then the text", "replies: [{tools: [{name: Bash}], text: done}]",
			[]string{"system/init", "assistant", "user", "assistant", "result/success"}, "done", 2},
		{"turns", "replies: [{text: t, turns: 7}]",
			[]string{"system/init", "assistant", "result/success"}, "t", 7},
		{"empty reply", "replies: [{}]",
			[]string{"system/init", "result/success"}, "", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := newFake(t, tt.script).ask("hi")
			check(t, "exit", out.code, 0)
			check(t, "lines", out.kinds(t), tt.kinds)
			res := out.result(t)
			check(t, "result", res["result"], tt.text)
			check(t, "is_error", res["is_error"], false)
			check(t, "num_turns", res["num_turns"], tt.turns)
			check(t, "api_error_status", res["api_error_status"], nil)
		})
	}
}

func TestToolLines(t *testing.T) {
	out := newFake(t, "replies: [{tools: [{name: Write, input: {file_path: /x, n: {a: [1, 2]}}, result: denied, error: true}]}]").ask("hi")
	ls := out.lines(t)
	use := ls[1]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	check(t, "tool_use name", use["name"], "Write")
	check(t, "tool_use input", jsonText(use["input"]), `{"file_path":"/x","n":{"a":[1,2]}}`)
	res := ls[2]["message"].(map[string]any)["content"].([]any)[0].(map[string]any)
	check(t, "tool_result type", res["type"], "tool_result")
	check(t, "tool_result id", res["tool_use_id"], use["id"])
	check(t, "tool_result is_error", res["is_error"], true)
	check(t, "tool_result content", res["content"], "denied")
}

func TestAPIErrors(t *testing.T) {
	for kind, e := range apiErrors {
		if kind == "authentication_failed" {
			continue // TestAuthenticationFailed: it depends on the key
		}
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			out := newFake(t, "replies: [{error: "+kind+"}]").ask("hi")
			check(t, "exit", out.code, 1)
			want := []string{"system/init", "system/api_retry", "assistant", "result/success"}
			if !e.retry {
				want = slices.Delete(want, 1, 2)
			}
			check(t, "lines", out.kinds(t), want)
			ls := out.lines(t)
			msg := ls[len(ls)-2]
			check(t, "synthetic model", msg["message"].(map[string]any)["model"], "<synthetic>")
			check(t, "error", msg["error"], e.kind)
			res := out.result(t)
			check(t, "is_error", res["is_error"], true)
			check(t, "api_error_status", res["api_error_status"], float64(e.status))
			check(t, "result", res["result"], e.text)
			check(t, "total_cost_usd", res["total_cost_usd"], 0.0)
			check(t, "modelUsage", res["modelUsage"], map[string]any{})
		})
	}
	out := newFake(t, "replies: [{error: server_error, text: 'API Error: 502 Bad gateway', exit: 0}]").ask("hi")
	check(t, "custom text", out.result(t)["result"], "API Error: 502 Bad gateway")
	check(t, "scripted exit", out.code, 0)
}

// The real CLI retries a 401 for an API key ten times, about 3 minutes, each
// retry announced by an api_retry line, and its init line names the key's
// source; without a key it does not call the API: not logged in, no retry.
func TestAuthenticationFailed(t *testing.T) {
	t.Run("api key", func(t *testing.T) {
		f := newFake(t, "replies: [{error: authentication_failed}]")
		f.env = append(f.env, "ANTHROPIC_API_KEY=sk-ant-placeholder")
		out := f.ask("hi")
		check(t, "exit", out.code, 1)
		ls := out.lines(t)
		check(t, "apiKeySource", ls[0]["apiKeySource"], "ANTHROPIC_API_KEY")
		want := []string{"system/init"}
		for range keyRetries {
			want = append(want, "system/api_retry")
		}
		check(t, "lines", out.kinds(t), append(want, "assistant", "result/success"))
		for i, l := range ls[1 : 1+keyRetries] {
			check(t, "attempt", l["attempt"], float64(i+1))
			check(t, "max_retries", l["max_retries"], float64(keyRetries))
			check(t, "error_status", l["error_status"], 401.0)
			check(t, "error", l["error"], "authentication_failed")
		}
		check(t, "last delay", ls[keyRetries]["retry_delay_ms"], 32000.0)
		res := out.result(t)
		check(t, "api_error_status", res["api_error_status"], 401.0)
		check(t, "result", res["result"], "Invalid API key · Fix external API key")
	})
	t.Run("no key", func(t *testing.T) {
		out := newFake(t, "replies: [{error: authentication_failed}]").ask("hi")
		check(t, "exit", out.code, 1)
		check(t, "apiKeySource", out.lines(t)[0]["apiKeySource"], "none")
		check(t, "lines", out.kinds(t), []string{"system/init", "assistant", "result/success"})
		res := out.result(t)
		check(t, "api_error_status", res["api_error_status"], nil)
		check(t, "result", res["result"], "Not logged in · Please run /login")
		check(t, "error", out.lines(t)[1]["error"], "authentication_failed")
	})
}

// FAKE_CLAUDE_RETRY_DELAY makes the retries of a refused key take time, as the
// real ones do: a signal during them ends the fake with no result line.
func TestKeyRetriesTakeTime(t *testing.T) {
	f := newFake(t, "replies: [{error: authentication_failed}]")
	f.env = append(f.env, "ANTHROPIC_API_KEY=sk-ant-placeholder", "FAKE_CLAUDE_RETRY_DELAY=1h")
	cmd := f.command(slices.Concat(streamArgs, []string{"--", "hi"})...)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	r := bufio.NewReader(stdout)
	var kinds []string
	for len(kinds) < 2 {
		line, err := r.ReadBytes('\n')
		must(t, err)
		var v map[string]any
		must(t, json.Unmarshal(line, &v))
		kinds = append(kinds, kindOf(v))
	}
	check(t, "first lines", kinds, []string{"system/init", "system/api_retry"})
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	rest, _ := io.ReadAll(r)
	check(t, "after the signal", string(rest), "")
	var exit *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &exit) || exit.ExitCode() != 143 {
		t.Errorf("exit = %v, want status 143", err)
	}
}

// A 429 whose anthropic-ratelimit-unified-status is rejected is not retried
// and carries no reset time.
func TestRateLimitRejected(t *testing.T) {
	out := newFake(t, "replies: [{error: rate_limit_rejected}]").ask("hi")
	check(t, "exit", out.code, 1)
	check(t, "lines", out.kinds(t), []string{"system/init", "assistant", "result/success"})
	res := out.result(t)
	check(t, "api_error_status", res["api_error_status"], 429.0)
	if text := res["result"].(string); !strings.HasPrefix(text, "API Error: Request rejected (429)") || strings.Contains(text, "resets") {
		t.Errorf("result = %q", text)
	}
}

func TestUsageLimit(t *testing.T) {
	const text = "You've hit your session limit · resets 3pm (America/Chicago)"
	out := newFake(t, "replies: [{usage_limit: \""+text+"\", rate_limit_reset: 1763700000}]").ask("hi")
	check(t, "exit", out.code, 1)
	check(t, "lines", out.kinds(t), []string{"system/init", "assistant", "rate_limit_event", "result/success"})
	ev := out.lines(t)[2]["rate_limit_info"].(map[string]any)
	check(t, "rate_limit_info", ev, map[string]any{"status": "rejected", "resetsAt": 1763700000.0, "rateLimitType": "five_hour"})
	res := out.result(t)
	check(t, "is_error", res["is_error"], true)
	check(t, "result", res["result"], text)
}

func TestRateLimitEventStatus(t *testing.T) {
	out := newFake(t, "replies: [{text: ok, rate_limit_reset: 5, rate_limit_status: allowed_warning}]").ask("hi")
	check(t, "exit", out.code, 0)
	check(t, "lines", out.kinds(t), []string{"system/init", "assistant", "rate_limit_event", "result/success"})
	check(t, "status", out.lines(t)[2]["rate_limit_info"].(map[string]any)["status"], "allowed_warning")
}

func TestLimits(t *testing.T) {
	twoTools := "tools: [{name: Bash, result: a}, {name: Bash, result: b}]"
	tests := []struct {
		name, script string
		args         []string
		kinds        []string
		subtype      string
		errors       string
		turns        float64
	}{
		{"max_turns reply", "replies: [{max_turns: true, " + twoTools + "}]", nil,
			[]string{"system/init", "assistant", "user", "assistant", "user", "result/error_max_turns"},
			"error_max_turns", `["Reached maximum number of turns (2)"]`, 3},
		{"--max-turns below the tools", "replies: [{text: never, " + twoTools + "}]", []string{"--max-turns", "1"},
			[]string{"system/init", "assistant", "user", "result/error_max_turns"},
			"error_max_turns", `["Reached maximum number of turns (1)"]`, 2},
		// As the real CLI 2.1.330: a negative or fractional limit stops
		// after the first tool turn, and the message shows it as given.
		{"--max-turns -1", "replies: [{text: never, " + twoTools + "}]", []string{"--max-turns", "-1"},
			[]string{"system/init", "assistant", "user", "result/error_max_turns"},
			"error_max_turns", `["Reached maximum number of turns (-1)"]`, 2},
		{"--max-turns 1.5", "replies: [{text: never, " + twoTools + "}]", []string{"--max-turns", "1.5"},
			[]string{"system/init", "assistant", "user", "result/error_max_turns"},
			"error_max_turns", `["Reached maximum number of turns (1.5)"]`, 2},
		{"--max-turns equal to the tools", "replies: [{text: never, " + twoTools + "}]", []string{"--max-turns", "2"},
			[]string{"system/init", "assistant", "user", "assistant", "user", "result/error_max_turns"},
			"error_max_turns", `["Reached maximum number of turns (2)"]`, 3},
		{"max_budget reply", "replies: [{max_budget: true, say: [plan], " + twoTools + "}]", nil,
			[]string{"system/init", "assistant", "assistant", "result/error_max_budget_usd"},
			"error_max_budget_usd", `["Reached maximum budget ($0.0053)"]`, 1},
		{"--max-budget-usd below the cost", "replies: [{text: costly, cost: 0.5}]", []string{"--max-budget-usd", "0.001"},
			[]string{"system/init", "assistant", "result/error_max_budget_usd"},
			"error_max_budget_usd", `["Reached maximum budget ($0.001)"]`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := newFake(t, tt.script).ask("hi", tt.args...)
			check(t, "exit", out.code, 1)
			check(t, "lines", out.kinds(t), tt.kinds)
			res := out.result(t)
			check(t, "is_error", res["is_error"], true)
			check(t, "errors", jsonText(res["errors"]), tt.errors)
			check(t, "num_turns", res["num_turns"], tt.turns)
			if _, ok := res["result"]; ok {
				t.Error("an error subtype has no result field")
			}
		})
	}
	// Within the limits nothing changes.
	out := newFake(t, "replies: [{text: fine, "+twoTools+"}]").ask("hi", "--max-turns", "3", "--max-budget-usd", "1")
	check(t, "within limits", out.result(t)["subtype"], "success")
	// --max-turns 0 is no limit to the real CLI 2.1.330.
	out = newFake(t, "replies: [{text: fine, "+twoTools+"}]").ask("hi", "--max-turns", "0")
	check(t, "--max-turns 0", out.result(t)["subtype"], "success")
}

func TestCrash(t *testing.T) {
	f := newFake(t, "replies: [{crash: true, exit: 2, say: [working], stderr: 'boom'}, {crash: true}]")
	out := f.ask("hi")
	check(t, "exit", out.code, 2)
	check(t, "lines", out.kinds(t), []string{"system/init", "assistant"})
	check(t, "stderr", out.stderr, "boom\n")
	check(t, "default crash exit", f.ask("again").code, 1)
	check(t, "no cost logged", f.calls()[0].Cost, 0.0)
}

func TestStderrAndExit(t *testing.T) {
	out := newFake(t, "replies: [{text: ok, stderr: \"warn\\n\", exit: 5}]").ask("hi")
	check(t, "exit", out.code, 5)
	check(t, "stderr", out.stderr, "warn\n")
	check(t, "result", out.result(t)["result"], "ok")
}

func TestRawLines(t *testing.T) {
	f := newFake(t, `replies:
  - lines: ['{"type":"system","subtype":"init","session_id":"x"}', '{"type":"result","subtype":"success","is_error":false,"result":"raw"}']
    cost: 0.1
    exit: 4
`)
	out := f.ask("hi")
	check(t, "exit", out.code, 4)
	check(t, "stdout", out.stdout, `{"type":"system","subtype":"init","session_id":"x"}`+"\n"+
		`{"type":"result","subtype":"success","is_error":false,"result":"raw"}`+"\n")
	call := f.calls()[0]
	s, err := LoadSession(f.config, f.cwd, call.SessionID)
	must(t, err)
	near(t, "session cost", s.CostUSD, 0.1)
}

func TestOutputFormats(t *testing.T) {
	f := newFake(t, "replies: [{say: [a], text: 'the <answer>'}, {text: j}, {error: billing_error}]")
	text := f.run("-p", "--", "hi")
	check(t, "text", text.stdout, "the <answer>\n")
	js := f.run("-p", "--output-format", "json", "--", "hi")
	check(t, "json lines", js.kinds(t), []string{"result/success"})
	check(t, "json result", js.result(t)["result"], "j")
	fail := f.run("-p", "--", "hi")
	check(t, "text of an API error", fail.stdout, "Credit balance is too low\n")
	check(t, "exit of an API error", fail.code, 1)
}

func TestInitLine(t *testing.T) {
	f := newFake(t, "replies: [{text: a, repeat: true}, {text: b}]")
	init := f.ask("hi", "--model", "sonnet", "--permission-mode", "plan",
		"--disallowedTools", "Bash,Write", "--add-dir", "/x").lines(t)[0]
	check(t, "model", init["model"], "claude-sonnet-5-5")
	check(t, "permissionMode", init["permissionMode"], "plan")
	check(t, "cwd", init["cwd"], f.cwd)
	check(t, "additional_directories", init["additional_directories"], []any{"/x"})
	for _, tool := range init["tools"].([]any) {
		if tool == "Bash" || tool == "Write" {
			t.Errorf("disallowed tool %v listed", tool)
		}
	}
	init = f.ask("hi", "--tools", "Read", "Edit", "--dangerously-skip-permissions").lines(t)[0]
	check(t, "tools", init["tools"], []any{"Read", "Edit"})
	check(t, "bypass", init["permissionMode"], "bypassPermissions")

	f.writeScript("replies: [{text: a, model: claude-test-1}]")
	out := f.ask("hi", "--model", "opus")
	check(t, "reply model", out.lines(t)[0]["model"], "claude-test-1")
	if _, ok := out.result(t)["modelUsage"].(map[string]any)["claude-test-1"]; !ok {
		t.Errorf("modelUsage not keyed by the model: %v", out.result(t)["modelUsage"])
	}
}

func TestPartialMessages(t *testing.T) {
	out := newFake(t, "replies: [{text: hello}]").ask("hi", "--include-partial-messages")
	kinds := out.kinds(t)
	check(t, "first and last", []string{kinds[0], kinds[len(kinds)-1]}, []string{"system/init", "result/success"})
	var deltas []string
	for _, l := range out.lines(t) {
		if e, ok := l["event"].(map[string]any); ok && e["type"] == "content_block_delta" {
			deltas = append(deltas, e["delta"].(map[string]any)["text"].(string))
		}
	}
	check(t, "deltas", strings.Join(deltas, ""), "hello")
	check(t, "stream events", strings.Count(strings.Join(kinds, " "), "stream_event"), 6)
}

// The real CLI's Bash tool refuses a standalone `sleep N`, even when
// --allowedTools allows Bash(sleep:*): the tool result is an error and the
// command does not run. A sleep with more to do is not standalone.
func TestBashRefusesStandaloneSleep(t *testing.T) {
	f := newFake(t, `replies:
  - tools:
      - {name: Bash, input: {command: "sleep 30"}, result: "", run: "touch ran"}
      - {name: Bash, input: {command: "sleep 1 && ls"}, result: "a.txt"}
      - {name: Read, input: {command: "sleep 30"}, result: "read"}
    text: waited
`)
	out := f.ask("wait", "--allowedTools", "Bash(sleep:*)")
	check(t, "exit", out.code, 0)
	var results []map[string]any
	for _, l := range out.lines(t) {
		if kindOf(l) == "user" {
			results = append(results, l["message"].(map[string]any)["content"].([]any)[0].(map[string]any))
		}
	}
	check(t, "tool results", len(results), 3)
	check(t, "sleep 30: refused", results[0]["content"], "Blocked: standalone sleep 30. To wait for a condition, use Monitor.")
	check(t, "sleep 30: is_error", results[0]["is_error"], true)
	if _, err := os.Stat(filepath.Join(f.cwd, "ran")); err == nil {
		t.Error("the refused command ran")
	}
	check(t, "sleep and more: runs", results[1]["content"], "a.txt")
	check(t, "sleep and more: is_error", results[1]["is_error"], false)
	check(t, "another tool", results[2]["content"], "read")
}

// The real CLI also writes system/informational, system/task_started and
// system/task_notification lines; a reply's system field streams them.
func TestSystemLines(t *testing.T) {
	out := newFake(t, "replies: [{system: [informational, task_started, task_notification], text: ok}]").ask("hi")
	check(t, "exit", out.code, 0)
	check(t, "lines", out.kinds(t), []string{"system/init", "system/informational", "system/task_started",
		"system/task_notification", "assistant", "result/success"})
	for _, l := range out.lines(t)[1:4] {
		check(t, "session_id", l["session_id"], out.sessionID(t))
	}
	path := filepath.Join(t.TempDir(), "script.yaml")
	must(t, os.WriteFile(path, []byte("replies: [{system: [task_done]}]"), 0o644))
	_, err := loadScript(path)
	if err == nil || !strings.Contains(err.Error(), `unknown subtype "task_done"`) {
		t.Errorf("unknown subtype: err = %v", err)
	}
}

// An error_during_execution result carries errors[] and no result field.
func TestExecutionError(t *testing.T) {
	out := newFake(t, "replies: [{execution_error: 'Tool permission request failed: stream closed'}]").ask("hi")
	check(t, "exit", out.code, 1)
	check(t, "lines", out.kinds(t), []string{"system/init", "result/error_during_execution"})
	res := out.result(t)
	check(t, "is_error", res["is_error"], true)
	check(t, "errors", res["errors"], []any{"Tool permission request failed: stream closed"})
	if _, ok := res["result"]; ok {
		t.Errorf("result field %v: an error result has none", res["result"])
	}
}
