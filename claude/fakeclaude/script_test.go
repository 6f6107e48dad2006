package fakeclaude

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPick plays a sequence of prompts against a script and checks which reply each
// one gets (-1: none left).
func TestPick(t *testing.T) {
	tests := []struct {
		name    string
		script  string
		prompts []string
		want    []int
	}{
		{"in order, once each", "replies: [{text: a}, {text: b}]", []string{"x", "x", "x"}, []int{0, 1, -1}},
		{"match skips ahead and leaves earlier replies",
			"replies: [{match: '^plan', text: a}, {match: 'review', text: b}, {text: c}]",
			[]string{"please review", "plan it", "plan again", "other"}, []int{1, 0, 2, -1}},
		{"times", "replies: [{text: a, times: 2}, {text: b}]", []string{"x", "x", "x", "x"}, []int{0, 0, 1, -1}},
		{"repeat never runs out", "replies: [{text: a}, {text: b, repeat: true}]", []string{"x", "x", "x", "x"}, []int{0, 1, 1, 1}},
		{"match with repeat as a catch-all", "replies: [{match: DONE, text: a, repeat: true}, {text: b}]",
			[]string{"x", "DONE", "x", "DONE"}, []int{1, 0, -1, 0}},
		{"empty script", "", []string{"x"}, []int{-1}},
		{"JSON is YAML", `{"replies": [{"text": "a", "times": 2}]}`, []string{"x", "x", "x"}, []int{0, 0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parseScript([]byte(tt.script))
			must(t, err)
			var c consumption
			var got []int
			for _, p := range tt.prompts {
				got = append(got, s.pick(&c, p, "claude-opus-5-5"))
			}
			check(t, "replies", got, tt.want)
		})
	}
}

func TestBadScript(t *testing.T) {
	tests := []struct{ script, want string }{
		{"replies: [{txet: a}]", "field txet not found"},
		{"replies: [{match: '('}]", "reply 0: match: error parsing regexp"},
		{"replies: [{text: a}, {delay: soon}]", "reply 1: delay: time: invalid duration"},
		{"replies: [{error: teapot}]", `reply 0: unknown error kind "teapot"`},
		{"replies: [{times: -1}]", "reply 0: times must not be negative"},
		{"replies: [{tools: [{input: {a: 1}}]}]", "reply 0: tool 0 has no name"},
		{"replies: {text: a}", "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			f := newFake(t, tt.script)
			out := f.ask("hi")
			check(t, "exit", out.code, 1)
			check(t, "stdout", out.stdout, "")
			if !strings.HasPrefix(out.stderr, "fake claude: script ") || !strings.Contains(out.stderr, tt.want) {
				t.Errorf("stderr = %q, want the script error %q", out.stderr, tt.want)
			}
		})
	}
}

func TestNoReplyLeft(t *testing.T) {
	f := newFake(t, "replies:\n  - text: only\n")
	f.ask("one")
	long := strings.Repeat("x", 100)
	out := f.ask(long)
	check(t, "exit", out.code, 1)
	check(t, "stderr", out.stderr, "fake claude: no scripted reply left for prompt: "+long[:80]+"\n")
	check(t, "lines", out.kinds(t), []string{"system/init"})
	// Nothing was written for the session the init line named.
	id := out.lines(t)[0]["session_id"].(string)
	if _, err := LoadSession(f.config, f.cwd, id); err == nil {
		t.Error("a call without a reply stored its session")
	}
	check(t, "logged reply", f.calls()[1].Reply, -1)
}

// TestConsumptionAcrossProcesses runs the fake as two real processes one after the
// other: the second gets the second reply.
func TestConsumptionAcrossProcesses(t *testing.T) {
	f := newFake(t, "replies:\n  - text: first\n  - text: second\n")
	for i, want := range []string{"first", "second"} {
		cmd := f.command("-p", "--output-format", "json", "--", "hi")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("process %d: %v; stderr: %s", i, err, stderr.String())
		}
		res := output{stdout: stdout.String()}.result(t)
		check(t, "result", res["result"], want)
	}
	calls := f.calls()
	if len(calls) != 2 || calls[0].Pid == calls[1].Pid {
		t.Fatalf("want two calls from two processes, got %+v", calls)
	}
	check(t, "logged replies", []int{calls[0].Reply, calls[1].Reply}, []int{0, 1})
}

// TestRewrittenScript: a test that replaces the script starts from its first reply.
func TestRewrittenScript(t *testing.T) {
	f := newFake(t, "replies: [{text: a}, {text: b}]")
	check(t, "first", f.ask("x").result(t)["result"], "a")
	f.writeScript("replies: [{text: c}, {text: d}]")
	check(t, "after rewrite", f.ask("x").result(t)["result"], "c")
	check(t, "then", f.ask("x").result(t)["result"], "d")
}

func TestScriptPath(t *testing.T) {
	f := newFake(t, "replies: [{text: default}]")
	must(t, os.WriteFile(filepath.Join(f.cwd, "other.yaml"), []byte("replies: [{text: other}]"), 0o644))
	out := f.runInv(&invocation{args: []string{"-p", "--", "hi"}}, []string{"FAKE_CLAUDE_SCRIPT=other.yaml"})
	check(t, "relative to the cwd", out.stdout, "other\n")
	out = f.runInv(&invocation{args: []string{"-p", "--", "hi"}}, []string{"FAKE_CLAUDE_SCRIPT=" + filepath.Join(f.dir, "missing.yaml")})
	check(t, "missing script: exit", out.code, 1)
	if !strings.Contains(out.stderr, "no scripted reply left") {
		t.Errorf("a missing script should have no replies; stderr: %s", out.stderr)
	}
}

func TestWriteScript(t *testing.T) {
	f := newFake(t, "")
	cost, exit := 0.5, 3
	must(t, WriteScript(filepath.Join(f.dir, "script.yaml"), &Script{Replies: []Reply{{
		Match: "^go", Text: "<goto>B.md</goto>", Cost: &cost, Exit: &exit,
		Tools: []Tool{{Name: "Bash", Input: map[string]any{"command": "ls"}, Result: "a.txt"}},
	}}}))
	out := f.ask("go on")
	check(t, "exit", out.code, 3)
	res := out.result(t)
	check(t, "result", res["result"], "<goto>B.md</goto>")
	near(t, "cost", res["total_cost_usd"], 0.5)
	if !strings.Contains(out.stdout, `"input":{"command":"ls"}`) {
		t.Errorf("tool input lost: %s", out.stdout)
	}
}
