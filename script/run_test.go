package script

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"raymond/step"
)

func TestRunGoto(t *testing.T) {
	req := request(t, `echo "working in $PWD"; echo '<goto>NEXT.md</goto>'`)
	var rec recorder
	res := run(t, t.Context(), req, rec.handler())
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	eq(t, "Class", res.Class, "success")
	eq(t, "Text", res.Text, "working in "+req.Step.Cwd+"\n<goto>NEXT.md</goto>\n")
	eq(t, "stdout handed on", string(rec.stdout), res.Text)
	eq(t, "Billed", res.Billed, false)
	eq(t, "CostUSD", res.CostUSD, 0.0)
	eq(t, "SessionID", res.SessionID, "")
	eq(t, "ExitCode", res.ExitCode, 0)
	eq(t, "Runner", res.Runner, "script")
	eq(t, "Argv[1]", res.Argv[1], req.Script.Path)
	eq(t, "Timeout", res.Timeout, time.Minute)
	eq(t, "TimeoutFrom", res.TimeoutFrom, "--timeout")
	if res.Started.IsZero() || res.Ended.Before(res.Started) {
		t.Errorf("Started %v, Ended %v", res.Started, res.Ended)
	}
	if !strings.HasSuffix(res.Argv[0], "bash") {
		t.Errorf("Argv[0] = %q, want bash", res.Argv[0])
	}
}

// TestRunMultiForkIsJustStdout: the runner reads no tags; several of them
// come back as the text, for the orchestrator to read.
func TestRunMultiForkIsJustStdout(t *testing.T) {
	body := `for i in 1 2; do echo "<fork next=\"W.md\" item=\"$i\">DONE.md</fork>"; done; echo '<goto>WAIT.md</goto>'`
	res := run(t, t.Context(), request(t, body), step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	eq(t, "Text", res.Text, "<fork next=\"W.md\" item=\"1\">DONE.md</fork>\n<fork next=\"W.md\" item=\"2\">DONE.md</fork>\n<goto>WAIT.md</goto>\n")
}

func TestRunExitStatus(t *testing.T) {
	body := `for i in $(seq 1 2000); do echo "stderr line $i" >&2; done; echo '<goto>NEXT.md</goto>'; exit 3`
	var rec recorder
	res := run(t, t.Context(), request(t, body), rec.handler())
	eq(t, "Outcome", res.Outcome, step.Failed)
	eq(t, "Class", res.Class, "exit status")
	eq(t, "ExitCode", res.ExitCode, 3)
	eq(t, "Text", res.Text, "")
	want := "POLL.sh exited with status 3\n  stderr line 1996\n  stderr line 1997\n  stderr line 1998\n  stderr line 1999\n  stderr line 2000"
	eq(t, "Reason", res.Reason, want)
	if len(res.Stderr) > stderrTail || !strings.HasSuffix(res.Stderr, "stderr line 2000\n") {
		t.Errorf("Stderr is %d bytes ending %q; want the last %d bytes", len(res.Stderr), res.Stderr[max(0, len(res.Stderr)-40):], stderrTail)
	}
	if !strings.HasPrefix(string(rec.stderr), "stderr line 1\n") || !strings.HasSuffix(string(rec.stderr), "stderr line 2000\n") {
		t.Errorf("the handler did not get the whole stderr (%d bytes)", len(rec.stderr))
	}
	eq(t, "Reason without stderr", run(t, t.Context(), request(t, "exit 1"), step.Handler{}).Reason, "POLL.sh exited with status 1")
}

func TestRunKilledBySignal(t *testing.T) {
	res := run(t, t.Context(), request(t, `echo dying >&2; kill -KILL $$`), step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Failed)
	eq(t, "Class", res.Class, "signal")
	eq(t, "Signal", res.Signal, "SIGKILL")
	eq(t, "Reason", res.Reason, "POLL.sh was killed by signal KILL\n  dying")
}

// TestRunOutputKeepsTimerAlive: output on either stream restarts the idle
// timer, so a script that prints more often than its timeout runs for
// longer than the timeout.
func TestRunOutputKeepsTimerAlive(t *testing.T) {
	// read -t waits without starting a process, which a loaded machine may
	// take long to do; the script runs three times as long as its timeout.
	body := `exec 3<> <(:)
for i in $(seq 1 30); do echo tick; echo tock >&2; read -t 0.05 -u 3; done
echo '<goto>DONE.md</goto>'`
	res := run(t, t.Context(), withTimeout(request(t, body), 500*time.Millisecond), step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	if res.Outcome != step.Succeeded {
		t.Logf("Reason: %s", res.Reason)
	}
	eq(t, "TimeoutFrom", res.TimeoutFrom, "the state's timeout")
	if !strings.HasSuffix(res.Text, "<goto>DONE.md</goto>\n") {
		t.Errorf("Text = %q", res.Text)
	}
}

// TestRunEnvironment: raymond's variables, the fork variables that may be
// passed and warnings for the others; nothing replaces raymond's
// environment, and CLAUDECODE and an outer step's variables are dropped.
func TestRunEnvironment(t *testing.T) {
	req := request(t, "env")
	req.Step.Vars = map[string]string{"item": "a b", "PATH": "x", "bad-name": "1", "EXISTING": "new", "LD_PRELOAD": "evil.so"}
	req.Vars = map[string]string{"task_folder": "/tmp/tasks/main", "result": "payload", "ask_id": "ask-1"}
	req.TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	r := &Runner{Env: []string{"PATH=" + os.Getenv("PATH"), "EXISTING=old", "CLAUDECODE=1", "RAYMOND_INPUT=outer", step.MarkerEnv + "=outer/main/1", "RAYMOND_CLAUDE=/opt/claude",
		"TRACEPARENT=00-outer"}}
	res := r.Run(t.Context(), req, step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	env := envOf(res.Text)
	for name, want := range map[string]string{
		EnvWorkflowID: req.RunID, EnvRunID: req.RunID, EnvAgentID: "main", EnvState: "POLL.sh",
		EnvTaskFolder: "/tmp/tasks/main", EnvResult: "payload", EnvAskID: "ask-1",
		step.MarkerEnv: req.Marker(), "item": "a b", "EXISTING": "old", "PATH": os.Getenv("PATH"),
		"RAYMOND_CLAUDE": "/opt/claude", step.TraceParentEnv: req.TraceParent,
	} {
		eq(t, name, env[name], want)
	}
	for _, name := range []string{"CLAUDECODE", EnvInput, "bad-name", "LD_PRELOAD"} {
		if v, ok := env[name]; ok {
			t.Errorf("%s=%q is in the environment", name, v)
		}
	}
	if !strings.HasPrefix(res.Env[EnvResult+FileSuffix], os.TempDir()) {
		t.Errorf("%s = %q, want a file in %s", EnvResult+FileSuffix, res.Env[EnvResult+FileSuffix], os.TempDir())
	}
	delete(res.Env, EnvResult+FileSuffix)
	eq(t, "Env", res.Env, map[string]string{
		EnvWorkflowID: req.RunID, EnvRunID: req.RunID, EnvAgentID: "main", EnvState: "POLL.sh",
		EnvTaskFolder: "/tmp/tasks/main", EnvResult: "payload", EnvAskID: "ask-1",
		step.MarkerEnv: req.Marker(), "item": "a b",
	})
	eq(t, "warnings", len(res.Warnings), 4)
	for i, name := range []string{"EXISTING", "LD_PRELOAD", "PATH", "bad-name"} {
		if i < len(res.Warnings) && !strings.HasPrefix(res.Warnings[i], fmt.Sprintf("fork variable %q is not passed to POLL.sh: ", name)) {
			t.Errorf("warning %d = %q, want one about %s", i, res.Warnings[i], name)
		}
	}
}

// TestRunLargeInput: an input too large for an environment variable (Linux
// refuses to start a process with one over 128 KiB) reaches the script
// through RAYMOND_INPUT_FILE alone, with a warning, instead of failing the
// step at every attempt; a small one is in both.
func TestRunLargeInput(t *testing.T) {
	body := `echo "input=${RAYMOND_INPUT+set} result=${RAYMOND_RESULT+set}"; ` +
		`[ "$RAYMOND_INPUT_FILE" = "$RAYMOND_RESULT_FILE" ] && echo same; wc -c < "$RAYMOND_INPUT_FILE"; ` +
		`stat -c %a "$RAYMOND_INPUT_FILE" 2>/dev/null || stat -f %Lp "$RAYMOND_INPUT_FILE"; echo "$RAYMOND_INPUT_FILE" > "$HOME/where"`
	for _, tc := range []struct {
		size     int
		want     string
		warnings int
	}{
		{10, "input=set result=set\nsame\n10\n600\n", 0},
		{200 << 10, "input= result=\nsame\n204800\n600\n", 1},
	} {
		req := request(t, body)
		req.Vars = map[string]string{"input": strings.Repeat("x", tc.size), "result": strings.Repeat("x", tc.size)}
		home := t.TempDir()
		r := &Runner{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}}
		res := r.Run(t.Context(), req, step.Handler{})
		eq(t, "Outcome", res.Outcome, step.Succeeded)
		eq(t, fmt.Sprintf("stdout for %d bytes", tc.size), res.Text, tc.want)
		eq(t, "warnings", len(res.Warnings), tc.warnings)
		if tc.warnings > 0 && !strings.Contains(res.Warnings[0], "RAYMOND_INPUT and RAYMOND_RESULT for POLL.sh are 200 KiB") {
			t.Errorf("warning = %q", res.Warnings[0])
		}
		where, err := os.ReadFile(filepath.Join(home, "where"))
		must(t, err)
		if _, err := os.Stat(strings.TrimSpace(string(where))); !os.IsNotExist(err) {
			t.Errorf("the input file %s is left after the step (%v)", where, err)
		}
	}
}

// TestRunLargeInputAndResult: an input and a result too large for the
// environment are warned of once when they are the same value (a
// function's result is its caller's input) and once each when they differ.
func TestRunLargeInputAndResult(t *testing.T) {
	big, other := strings.Repeat("x", 100<<10), strings.Repeat("y", 100<<10)
	for _, tc := range []struct {
		input, result string
		want          []string
	}{
		{big, big, []string{"RAYMOND_INPUT and RAYMOND_RESULT for POLL.sh are 100 KiB, more than an environment variable can safely hold (64 KiB): " +
			"they are not set, and the script reads the value from the file named by $RAYMOND_INPUT_FILE or $RAYMOND_RESULT_FILE (the same file)"}},
		{big, other, []string{"RAYMOND_INPUT for POLL.sh is 100 KiB", "RAYMOND_RESULT for POLL.sh is 100 KiB"}},
		{"small", big, []string{"RAYMOND_RESULT for POLL.sh is 100 KiB, more than an environment variable can safely hold (64 KiB): " +
			"it is not set, and the script reads the value from the file named by $RAYMOND_RESULT_FILE"}},
	} {
		req := request(t, "true")
		req.Vars = map[string]string{"input": tc.input, "result": tc.result}
		r := &Runner{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}}
		res := r.Run(t.Context(), req, step.Handler{})
		eq(t, "Outcome", res.Outcome, step.Succeeded)
		eq(t, "warnings", len(res.Warnings), len(tc.want))
		for i := range min(len(tc.want), len(res.Warnings)) {
			if !strings.HasPrefix(res.Warnings[i], tc.want[i]) {
				t.Errorf("warning %d = %q, want it to start with %q", i, res.Warnings[i], tc.want[i])
			}
		}
	}
}

// TestRunInput: RAYMOND_INPUT is set when the step has an input, even an
// empty one, and only then.
func TestRunInput(t *testing.T) {
	body := `if [ "${RAYMOND_INPUT+set}" = set ]; then echo "input=[$RAYMOND_INPUT]"; else echo "no input"; fi`
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{nil, "no input\n"},
		{map[string]string{"input": ""}, "input=[]\n"},
		{map[string]string{"input": "two\nlines"}, "input=[two\nlines]\n"},
	} {
		req := request(t, body)
		req.Vars = tc.vars
		eq(t, fmt.Sprintf("stdout with %v", tc.vars), run(t, t.Context(), req, step.Handler{}).Text, tc.want)
	}
}

func TestRunStdoutLimit(t *testing.T) {
	body := fmt.Sprintf("head -c %d /dev/zero; echo '<goto>NEXT.md</goto>'", MaxStdout+1)
	res := run(t, t.Context(), request(t, body), step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Failed)
	eq(t, "Class", res.Class, "output too large")
	eq(t, "Text", res.Text, "")
	if !strings.Contains(res.Reason, "printed more than 64 MiB on stdout") {
		t.Errorf("Reason = %q", res.Reason)
	}
}

// TestRunPrints: <print> payloads on either stream are shown; tags on
// stderr never reach the text.
func TestRunPrints(t *testing.T) {
	body := `echo '<print>from stdout</print>'; echo '<print>from stderr</print> <goto>NO.md</goto>' >&2; echo '<goto>YES.md</goto>'`
	var rec recorder
	res := run(t, t.Context(), request(t, body), rec.handler())
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	eq(t, "prints", rec.sortedPrints(), []string{"from stderr", "from stdout"})
	eq(t, "Text", res.Text, "<print>from stdout</print>\n<goto>YES.md</goto>\n")
}

// TestRunBodyCopy: a script without a path runs from a copy in a private
// folder, which is gone after the step.
func TestRunBodyCopy(t *testing.T) {
	req := request(t, "")
	req.Script = &step.Script{Body: []byte(`echo "$0"; stat -c %a "$(dirname "$0")" 2>/dev/null || stat -f %Lp "$(dirname "$0")"; cat "$0" | wc -l`)}
	res := run(t, t.Context(), req, step.Handler{})
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	lines := strings.Fields(res.Text)
	if len(lines) != 3 {
		t.Fatalf("stdout = %q", res.Text)
	}
	eq(t, "script name", filepath.Base(lines[0]), "POLL.sh")
	eq(t, "Argv[1]", res.Argv[1], lines[0])
	eq(t, "folder mode", lines[1], "700")
	if _, err := os.Stat(filepath.Dir(lines[0])); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy's folder is still there after the step: %v", err)
	}
}

func TestRunNotStarted(t *testing.T) {
	req := request(t, "echo hi")
	req.Step.Cwd = filepath.Join(t.TempDir(), "missing")
	res := run(t, t.Context(), req, step.Handler{})
	eq(t, "Outcome with a missing cwd", res.Outcome, step.Failed)
	eq(t, "NotStarted", res.NotStarted, true)
	eq(t, "Argv kept", len(res.Argv), 2)

	res = (&Runner{Bash: filepath.Join(t.TempDir(), "bash")}).Run(t.Context(), request(t, "echo hi"), step.Handler{})
	eq(t, "Outcome without bash", res.Outcome, step.Unusable)
	if !errors.Is(res.Err, ErrNoBash) || !strings.Contains(res.Reason, "install bash") {
		t.Errorf("Err %v, Reason %q", res.Err, res.Reason)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	eq(t, "Outcome when canceled before", run(t, ctx, request(t, "echo hi"), step.Handler{}).Outcome, step.Canceled)
}

// TestRunBackgroundChildHoldingOutput: a script that exits 0 ends its step
// although a process it started in the background still holds its
// streams; the step is not held until the idle timeout, and a warning says
// why output after the script's end is not read.
func TestRunBackgroundChildHoldingOutput(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "bg.pid")
	body := fmt.Sprintf(`sleep 60 & echo $! > %q; echo "last words" >&2; echo '<result>started</result>'`, pidFile)
	req := request(t, body)
	req.Options.Timeout = 0 // never: without the fix the step would wait for sleep
	done := make(chan step.Result, 1)
	go func() { done <- run(t, t.Context(), req, step.Handler{}) }()
	var res step.Result
	select {
	case res = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the step waited for the background process")
	}
	t.Cleanup(func() {
		if b, err := os.ReadFile(pidFile); err == nil {
			var pid int
			fmt.Sscan(string(b), &pid)
			if p, err := os.FindProcess(pid); err == nil && pid > 0 {
				_ = p.Kill()
			}
		}
	})
	eq(t, "Outcome", res.Outcome, step.Succeeded)
	eq(t, "Text", res.Text, "<result>started</result>\n")
	eq(t, "Stderr", res.Stderr, "last words\n")
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "a process it started in the background still holds its output") {
		t.Errorf("Warnings = %q", res.Warnings)
	}
}
