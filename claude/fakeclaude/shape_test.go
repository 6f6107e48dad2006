package fakeclaude

import (
	"slices"
	"testing"
)

// TestShapeMatchesFixtures compares the fake's lines with the real CLI's captured
// outputs: every field the fake writes exists in the real line of the same kind (no
// invented names), the fields consumers read are all there, and where the script can
// say the same thing the sequence of lines is the same.
func TestShapeMatchesFixtures(t *testing.T) {
	bash := "{name: Bash, input: {command: echo hello-from-tool, description: Print a greeting}, result: hello-from-tool}"
	tests := []struct {
		fixture  string
		script   string
		sequence bool // whether the kinds of lines must match one to one
	}{
		{"success.stream.jsonl", "replies: [{text: 'Hello! This is a scripted reply.'}]", true},
		{"tool-use.stream.jsonl", "replies: [{say: ['I will run a command.'], tools: [" + bash + "], text: 'Done: the tool said hello.'}]", false},
		{"api-429.stream.jsonl", "replies: [{error: rate_limit}]", true},
		{"api-credit.stream.jsonl", "replies: [{error: billing_error}]", true},
		{"auth-failure.stream.jsonl", "replies: [{error: authentication_failed}]", true},
		{"max-turns.stream.jsonl", "replies: [{max_turns: true, say: ['I will run a command.'], tools: [" + bash + ", " + bash + "]}]", false},
		{"max-budget.stream.jsonl", "replies: [{say: ['I will run a command.'], tools: [" + bash + "]}]", true},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			real := readFixture(t, tt.fixture)
			var args []string
			if tt.fixture == "max-budget.stream.jsonl" {
				args = []string{"--max-budget-usd", "0.001"}
			}
			out := newFake(t, tt.script).ask("hi", args...)
			if tt.sequence {
				check(t, "kinds", out.kinds(t), output{stdout: readFixtureText(t, tt.fixture)}.kinds(t))
			}
			for _, line := range out.lines(t) {
				match := sameKind(real, line)
				if match == nil {
					t.Errorf("no line of kind %s in the fixture", kindOf(line))
					continue
				}
				subset(t, kindOf(line), line, match)
			}
			for _, line := range out.lines(t) {
				for _, k := range required[kindOf(line)] {
					if _, ok := line[k]; !ok {
						t.Errorf("%s line lacks %q", kindOf(line), k)
					}
				}
			}
		})
	}
}

// TestResumedShape checks the resumed run against session-resume: same lines, and the
// cumulative modelUsage beside this call's usage.
func TestResumedShape(t *testing.T) {
	real := readFixture(t, "session-resume.stream.jsonl")
	f := newFake(t, "replies: [{text: 'Hello! This is a scripted reply.', repeat: true}]")
	out := f.ask("again", "--resume", f.ask("hi").sessionID(t))
	check(t, "kinds", out.kinds(t), output{stdout: readFixtureText(t, "session-resume.stream.jsonl")}.kinds(t))
	ours, theirs := out.result(t), real[len(real)-1]
	subset(t, "result", ours, theirs)
	for _, k := range []string{"total_cost_usd", "num_turns", "is_error", "subtype", "result"} {
		if k == "total_cost_usd" {
			near(t, k, ours[k], theirs[k].(float64))
			continue
		}
		check(t, k, ours[k], theirs[k])
	}
	check(t, "usage input (this call)", ours["usage"].(map[string]any)["input_tokens"], theirs["usage"].(map[string]any)["input_tokens"])
}

// required lists the fields each kind of line must carry: what claude-code.md and
// raymond's parser rely on.
var required = map[string][]string{
	"system/init": {"type", "subtype", "session_id", "cwd", "model", "tools", "permissionMode", "claude_code_version", "uuid"},
	"assistant":   {"type", "message", "session_id", "uuid"},
	"user":        {"type", "message", "session_id", "uuid"},
	"system/api_retry": {"type", "subtype", "attempt", "retry_delay_ms", "error_status", "error", "session_id",
		"uuid"},
	"result/success": {"type", "subtype", "is_error", "result", "session_id", "total_cost_usd", "usage",
		"modelUsage", "model_usage_since_last_result", "num_turns", "duration_ms", "uuid", "api_error_status"},
	"result/error_max_turns": {"type", "subtype", "is_error", "errors", "session_id", "total_cost_usd", "usage",
		"modelUsage", "model_usage_since_last_result", "num_turns", "duration_ms", "uuid"},
	"result/error_max_budget_usd": {"type", "subtype", "is_error", "errors", "session_id", "total_cost_usd",
		"usage", "modelUsage", "model_usage_since_last_result", "num_turns", "duration_ms", "uuid"},
}

func kindOf(line map[string]any) string {
	k, _ := line["type"].(string)
	if s, ok := line["subtype"].(string); ok {
		k += "/" + s
	}
	return k
}

// contentType is the type of an assistant or user line's first content block.
func contentType(line map[string]any) any {
	msg, _ := line["message"].(map[string]any)
	content, _ := msg["content"].([]any)
	if len(content) == 0 {
		return nil
	}
	block, _ := content[0].(map[string]any)
	return block["type"]
}

// sameKind finds the first line of real of the same kind and content type as line.
func sameKind(real []map[string]any, line map[string]any) map[string]any {
	i := slices.IndexFunc(real, func(r map[string]any) bool {
		return kindOf(r) == kindOf(line) && contentType(r) == contentType(line)
	})
	if i < 0 {
		return nil
	}
	return real[i]
}

// subset reports every key of ours (recursively through objects and the first
// element of arrays) that theirs lacks.
func subset(t *testing.T, path string, ours, theirs any) {
	t.Helper()
	switch o := ours.(type) {
	case map[string]any:
		th, ok := theirs.(map[string]any)
		if !ok {
			return // the real value is null or of another shape here: nothing to compare
		}
		for k, v := range o {
			tv, ok := th[k]
			if !ok {
				t.Errorf("%s.%s: the real CLI has no such field", path, k)
				continue
			}
			subset(t, path+"."+k, v, tv)
		}
	case []any:
		th, ok := theirs.([]any)
		if ok && len(o) > 0 && len(th) > 0 {
			subset(t, path+"[0]", o[0], th[0])
		}
	}
}

func readFixtureText(t *testing.T, name string) string {
	t.Helper()
	var s string
	for _, l := range readFixture(t, name) {
		s += jsonText(l) + "\n"
	}
	return s
}
