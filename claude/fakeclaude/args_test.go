package fakeclaude

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, o *options)
	}{
		{"prompt after --", []string{"-p", "--", "--not-a-flag"}, func(t *testing.T, o *options) {
			check(t, "print", o.print, true)
			check(t, "prompt", o.prompt(), "--not-a-flag")
		}},
		{"last positional is the prompt", []string{"first", "-p", "second"}, func(t *testing.T, o *options) {
			check(t, "prompt", o.prompt(), "second")
		}},
		{"variadic swallows the prompt", []string{"-p", "--allowedTools", "Bash", "Read", "do it"}, func(t *testing.T, o *options) {
			check(t, "allowedTools", o.allowedTools, []string{"Bash", "Read", "do it"})
			check(t, "prompt", o.prompt(), "")
		}},
		{"-- ends a variadic", []string{"-p", "--disallowed-tools", "Bash", "--", "do it"}, func(t *testing.T, o *options) {
			check(t, "disallowed", o.disallowed, []string{"Bash"})
			check(t, "prompt", o.prompt(), "do it")
		}},
		{"an option ends a variadic", []string{"--add-dir", "a", "b", "-p", "do it"}, func(t *testing.T, o *options) {
			check(t, "addDirs", o.addDirs, []string{"a", "b"})
			check(t, "prompt", o.prompt(), "do it")
		}},
		{"= form of a variadic still swallows", []string{"--tools=Bash", "do it", "-p"}, func(t *testing.T, o *options) {
			check(t, "tools", o.tools, []string{"Bash", "do it"})
			check(t, "prompt", o.prompt(), "")
		}},
		{"value options take the next word whatever it is", []string{"--append-system-prompt", "-x", "--model=opus"}, func(t *testing.T, o *options) {
			check(t, "appendPrompt", o.appendPrompt, "-x")
			check(t, "model", o.model, "opus")
		}},
		{"resume with and without a value", []string{"-r", "abc", "--fork-session"}, func(t *testing.T, o *options) {
			check(t, "resume", o.resume, "abc")
			check(t, "forkSession", o.forkSession, true)
		}},
		{"resume followed by an option has no value", []string{"--resume", "-p"}, func(t *testing.T, o *options) {
			check(t, "resumeGiven", o.resumeGiven, true)
			check(t, "resume", o.resume, "")
		}},
		{"short option with attached value", []string{"-rabc"}, func(t *testing.T, o *options) {
			check(t, "resume", o.resume, "abc")
		}},
		{"numbers", []string{"--max-turns", "3", "--max-budget-usd=0.5"}, func(t *testing.T, o *options) {
			check(t, "maxTurns", o.maxTurns, 3.0)
			check(t, "maxBudget", o.maxBudget, 0.5)
		}},
		{"defaults", nil, func(t *testing.T, o *options) {
			check(t, "outputFormat", o.outputFormat, "text")
			check(t, "inputFormat", o.inputFormat, "text")
			check(t, "print", o.print, false)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseArgs(tt.args)
			must(t, err)
			tt.check(t, o)
		})
	}
}

func TestParseArgsErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "--bogus"}, "error: unknown option '--bogus'"},
		{[]string{"--bogus=1"}, "error: unknown option '--bogus'"},
		{[]string{"-x"}, "error: unknown option '-x'"},
		{[]string{"-px"}, "error: unknown option '-px'"},
		{[]string{"--verbose=yes"}, "error: option '--verbose' does not take an argument"},
		{[]string{"--model"}, "error: option '--model <model>' argument missing"},
		{[]string{"--allowedTools"}, "error: option '--allowedTools, --allowed-tools <tools...>' argument missing"},
		{[]string{"--tools", "--", "x"}, "error: option '--tools <tools...>' argument missing"},
		{[]string{"--output-format", "yaml"},
			"error: option '--output-format <format>' argument 'yaml' is invalid. Allowed choices are text, json, stream-json."},
		{[]string{"--permission-mode", "yolo"},
			"error: option '--permission-mode <mode>' argument 'yolo' is invalid. Allowed choices are acceptEdits, auto, bypassPermissions, default, dontAsk, manual, plan."},
		{[]string{"--max-turns", "abc"}, "error: option '--max-turns <turns>' argument 'abc' is invalid. must be a number"},
		{[]string{"--max-turns", "3x"}, "error: option '--max-turns <turns>' argument '3x' is invalid. must be a number"},
		{[]string{"--max-budget-usd", "-1"}, "error: option '--max-budget-usd <amount>' argument '-1' is invalid."},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, err := parseArgs(tt.args)
			if _, ok := err.(cliError); !ok {
				t.Fatalf("parseArgs(%q) = %v, want a cliError", tt.args, err)
			}
			check(t, "error", err.Error(), tt.want)
		})
	}
}

// TestRefusals checks every refusal before work starts: one line on stderr, nothing on
// stdout, exit 1, no session written, and the call still logged.
func TestRefusals(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"unknown option", []string{"-p", "--frobnicate", "--", "hi"}, nil, "error: unknown option '--frobnicate'"},
		{"not print mode", []string{"--", "hi"}, nil, "fake claude: only print mode (-p) is supported"},
		{"stream-json without --verbose", []string{"-p", "--output-format", "stream-json", "--", "hi"}, nil,
			"Error: When using --print, --output-format=stream-json requires --verbose"},
		{"root with --dangerously-skip-permissions", []string{"-p", "--dangerously-skip-permissions", "--", "hi"},
			[]string{"FAKE_CLAUDE_ROOT=1"},
			"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"},
		{"root with bypassPermissions", []string{"-p", "--permission-mode", "bypassPermissions", "--", "hi"},
			[]string{"FAKE_CLAUDE_ROOT=1", "IS_SANDBOX=0"},
			"--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"},
		{"session id not a uuid", []string{"-p", "--session-id", "abc", "--", "hi"}, nil,
			"Error: Invalid session ID. Must be a valid UUID."},
		{"session id with resume but no fork", []string{"-p", "--resume", "11111111-2222-4333-8444-555555555555",
			"--session-id", "11111111-2222-4333-8444-666666666666", "--", "hi"}, nil,
			"Error: --session-id can only be used with --continue or --resume if --fork-session is also specified."},
		{"resume without an id", []string{"-p", "--resume", "--", "hi"}, nil,
			"Error: --resume requires a valid session ID when used with --print"},
		{"no prompt", []string{"-p"}, nil,
			"Error: Input must be provided either through stdin or as a prompt argument when using --print"},
		{"prompt swallowed by a variadic option", []string{"-p", "--allowedTools", "Bash", "hi"}, nil,
			"Error: Input must be provided either through stdin or as a prompt argument when using --print"},
		{"stream-json input", []string{"-p", "--input-format", "stream-json", "--", "hi"}, nil,
			"fake claude: --input-format stream-json is not supported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "replies:\n  - text: ok\n    repeat: true\n")
			out := f.runInv(&invocation{args: tt.args}, tt.env)
			check(t, "exit", out.code, 1)
			check(t, "stdout", out.stdout, "")
			check(t, "stderr", out.stderr, tt.want+"\n")
			if _, err := os.Stat(projectDir(f.dir, f.cwd)); err == nil {
				t.Error("a refused call wrote a session")
			}
			calls := f.calls()
			if len(calls) != 1 {
				t.Fatalf("%d calls logged, want 1", len(calls))
			}
			check(t, "logged exit", calls[0].Exit, 1)
			check(t, "logged reply", calls[0].Reply, -1)
			check(t, "logged argv", calls[0].Argv, tt.args)
		})
	}
}

// TestRootGuardAllows checks the cases the root guard lets through.
func TestRootGuardAllows(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  []string
	}{
		{"root in a sandbox", []string{"--dangerously-skip-permissions"}, []string{"FAKE_CLAUDE_ROOT=1", "IS_SANDBOX=1"}},
		{"bypassPermissions in a sandbox", []string{"--permission-mode", "bypassPermissions"}, []string{"FAKE_CLAUDE_ROOT=1", "IS_SANDBOX=1"}},
		{"not root", []string{"--dangerously-skip-permissions"}, []string{"FAKE_CLAUDE_ROOT=0"}},
		{"root without skipping permissions", []string{"--permission-mode", "acceptEdits"}, []string{"FAKE_CLAUDE_ROOT=1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "replies:\n  - text: ok\n")
			out := f.runInv(&invocation{args: append(append([]string{}, streamArgs...), append(tt.args, "--", "hi")...)}, tt.env)
			check(t, "exit", out.code, 0)
			check(t, "result", out.result(t)["result"], "ok")
		})
	}
}

func TestFakeDirRequired(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(&invocation{args: []string{"-p", "hi"}, env: []string{"FAKE_CLAUDE_ROOT=0"}, cwd: t.TempDir(),
		stdout: &stdout, stderr: &stderr})
	check(t, "exit", code, 1)
	check(t, "stdout", stdout.String(), "")
	check(t, "stderr", stderr.String(), "fake claude: FAKE_CLAUDE_DIR is not set\n")
}

func TestVersion(t *testing.T) {
	f := newFake(t, "")
	f.env = append(f.env, "FAKE_CLAUDE_VERSION=2.1.197")
	out := f.run("--version")
	check(t, "exit", out.code, 0)
	check(t, "stdout", out.stdout, "2.1.197 (Claude Code)\n")
}

func TestEffortWarning(t *testing.T) {
	f := newFake(t, "replies:\n  - text: ok\n")
	out := f.ask("hi", "--effort", "extreme")
	check(t, "exit", out.code, 0)
	if !strings.Contains(out.stderr, "Warning: unknown effort level 'extreme'") {
		t.Errorf("no warning for an unknown effort; stderr: %s", out.stderr)
	}
	check(t, "logged effort", f.calls()[0].Effort, "")
}
