package fakeclaude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCallLog(t *testing.T) {
	f := newFake(t, "replies: [{text: a}, {text: b, cost: 0.5}]")
	args := slices.Concat(streamArgs, []string{"--model", "haiku", "--effort", "high",
		"--permission-mode", "acceptEdits", "--", "first"})
	f.runInv(&invocation{args: args}, []string{"CLAUDECODE=1"})
	id := f.calls()[0].SessionID
	f.ask("second", "--resume", id, "--fork-session")

	calls := f.calls()
	if len(calls) != 2 {
		t.Fatalf("%d calls logged, want 2", len(calls))
	}
	c := calls[0]
	check(t, "argv", c.Argv, args)
	check(t, "cwd", c.Cwd, f.cwd)
	check(t, "prompt", c.Prompt, "first")
	check(t, "model", c.Model, "haiku")
	check(t, "effort", c.Effort, "high")
	check(t, "permission_mode", c.PermissionMode, "acceptEdits")
	check(t, "pid", c.Pid, os.Getpid())
	check(t, "exit", c.Exit, 0)
	check(t, "reply", c.Reply, 0)
	near(t, "cost", c.Cost, defaultCost)
	check(t, "env_claudecode", c.EnvClaudeCode, true)
	if c.Started.IsZero() || c.Ended.Before(c.Started) {
		t.Errorf("started %v, ended %v", c.Started, c.Ended)
	}
	c = calls[1]
	check(t, "resumed", c.Resumed, id)
	check(t, "forked", c.Forked, true)
	check(t, "env_claudecode unset", c.EnvClaudeCode, false)
	check(t, "second reply", c.Reply, 1)
	near(t, "second cost", c.Cost, 0.5)
	if c.SessionID == id || c.SessionID == "" {
		t.Errorf("a fork logged session %q (parent %q)", c.SessionID, id)
	}
	// The log is one JSON object per line with the documented names.
	data, err := os.ReadFile(filepath.Join(f.dir, callsFile))
	must(t, err)
	for _, name := range []string{`"argv"`, `"session_id"`, `"permission_mode"`, `"env_claudecode"`, `"started"`, `"ended"`} {
		if strings.Count(string(data), name) != 2 {
			t.Errorf("field %s missing from the log:\n%s", name, data)
		}
	}
}

func TestReadCallsEmpty(t *testing.T) {
	calls, err := ReadCalls(t.TempDir())
	must(t, err)
	if calls == nil || len(calls) != 0 {
		t.Errorf("ReadCalls of a fresh dir = %#v, want an empty list", calls)
	}
}

func TestReadCallsCorrupt(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, callsFile), []byte("{}\nnot json\n"), 0o644))
	if _, err := ReadCalls(dir); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("ReadCalls of a corrupt log: %v, want an error naming line 2", err)
	}
}
