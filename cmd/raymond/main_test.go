package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/claude/fakeclaude"
)

// TestMain registers the commands the scripts run: raymond itself and the fake
// claude, both served by this test binary re-executing itself.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"raymond": func() {
			os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"claude": func() { os.Exit(fakeclaude.Main()) },
	})
}

// TestScript runs every testdata/script/*.txtar. Each script gets its own
// FAKE_CLAUDE_DIR; a script provides the fake's replies as a file named by
// FAKE_CLAUDE_SCRIPT (default $FAKE_CLAUDE_DIR/script.yaml).
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FAKE_CLAUDE_DIR", env.WorkDir+"/.fake-claude")
			env.Setenv("FAKE_CLAUDE_SCRIPT", env.WorkDir+"/script.yaml")
			env.Setenv("NO_COLOR", "1")
			// Under -race every re-executed helper would sleep 1 s at exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return os.MkdirAll(env.WorkDir+"/.fake-claude", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": cmdExits,
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// cmdExits runs a program and checks its exact exit status:
//
//	exits 2 raymond frobnicate
//
// Its stdout and stderr are then checked with stdout/stderr as after exec.
func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! exits")
	}
	if len(args) < 2 {
		ts.Fatalf("usage: exits CODE PROGRAM [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			ts.Fatalf("exits: %v", err)
		}
		got = ee.ExitCode()
	}
	if got != want {
		ts.Fatalf("%s exited %d, want %d", args[1], got, want)
	}
}
