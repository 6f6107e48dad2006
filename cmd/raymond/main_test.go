package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/claude/fakeclaude"
	"raymond/project"
	"raymond/state"
)

// TestMain registers the commands the scripts run: raymond itself and the fake
// claude, both served by this test binary re-executing itself.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"raymond": func() {
			// RAYMOND_TEST_FULL_DISK=FILE: every state write fails as on
			// a full disk while FILE exists.
			if full := os.Getenv("RAYMOND_TEST_FULL_DISK"); full != "" {
				state.SimulateFullDisk(func() bool {
					_, err := os.Stat(full)
					return err == nil
				})
			}
			// RAYMOND_TEST_SCHEDULE_CLOCK=FILE: the daemon's schedules fire by the
			// time written in FILE (see fileClock).
			if path := os.Getenv("RAYMOND_TEST_SCHEDULE_CLOCK"); path != "" {
				scheduleClock = newFileClock(path)
			}
			os.Exit(Main(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
		},
		"claude": func() { os.Exit(fakeclaude.Main()) },
	})
}

// TestScript runs every testdata/script/*.txtar. Each script gets its own
// FAKE_CLAUDE_DIR, which is also CLAUDE_CONFIG_DIR, so the fake's session store
// is $FAKE_CLAUDE_DIR/projects and never the real ~/.claude; a script provides
// the fake's replies as a file named by FAKE_CLAUDE_SCRIPT (default
// $FAKE_CLAUDE_DIR/script.yaml).
//
// WORKFLOWS is the repository's workflows/ folder, for scripts that run the
// workflows raymond ships as a user would.
//
// With UPDATE_SCRIPTS=1, a `cmp` whose expected file is a section of the
// script passes and rewrites that section with what it got: run it, then
// read the diff (docs/testing.md).
func TestScript(t *testing.T) {
	workflows, err := filepath.Abs(filepath.Join("..", "..", "workflows"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: updateScripts(os.Getenv("UPDATE_SCRIPTS")),
		Setup: func(env *testscript.Env) error {
			if stray := strayProject(filepath.Dir(env.WorkDir)); stray != "" {
				return fmt.Errorf("%s holds a .raymond folder, so every script's runs would land there and not in $WORK; remove it (it was left by a run started above the test folders)", stray)
			}
			env.Setenv("FAKE_CLAUDE_DIR", env.WorkDir+"/.fake-claude")
			env.Setenv("CLAUDE_CONFIG_DIR", env.WorkDir+"/.fake-claude")
			env.Setenv("FAKE_CLAUDE_SCRIPT", env.WorkDir+"/script.yaml")
			env.Setenv("NO_COLOR", "1")
			env.Setenv("WORKFLOWS", workflows)
			// Under -race every re-executed helper would sleep 1 s at exit.
			env.Setenv("GORACE", "atexit_sleep_ms=0")
			return os.MkdirAll(env.WorkDir+"/.fake-claude", 0o755)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":      cmdExits,
			"waitfile":   cmdWaitFile,
			"setstatus":  cmdSetStatus,
			"noreplies":  cmdNoReplies,
			"calls":      cmdCalls,
			"signal":     cmdSignal,
			"fixpaths":   cmdFixPaths,
			"unescape":   cmdUnescape,
			"lsmode":     cmdLsMode,
			"alive":      cmdAlive,
			"waitask":    cmdWaitAsk,
			"asksdue":    cmdAsksDue,
			"askof":      cmdAskOf,
			"zipdir":     cmdZipDir,
			"httpserve":  cmdHTTPServe,
			"api":        cmdAPI,
			"notifyrcv":  cmdNotifyRcv,
			"otlp":       cmdOTLP,
			"draft":      cmdDraft,
			"checkpt":    cmdCheckpoint,
			"killsteps":  cmdKillSteps,
			"skewstart":  cmdSkewStart,
			"killtrials": cmdKillTrials,
		},
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
	})
}

// updateScripts reads UPDATE_SCRIPTS: set and not 0 or false means update.
func updateScripts(v string) bool {
	on, err := strconv.ParseBool(v)
	return on || (err != nil && v != "")
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

// cmdWaitFile waits until a file exists, for scripts that must act while a
// background command is in a known place (the fake writes its reply state
// when it takes a reply), and with a regular expression until the file also
// has a line that matches it:
//
//	waitfile $FAKE_CLAUDE_DIR/replies.json
//	waitfile .raymond/debug/k9/main_START_001.jsonl '"type":"assistant"'
//
// It gives up after a minute, and then stops the background commands (see
// stopBackground).
func cmdWaitFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitfile PATH [REGEXP]")
	}
	path := ts.MkAbs(args[0])
	var re *regexp.Regexp
	if len(args) == 2 {
		var err error
		if re, err = regexp.Compile("(?m)" + args[1]); err != nil {
			ts.Fatalf("waitfile: %v", err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for range tick.C {
		if data, err := os.ReadFile(path); err == nil && (re == nil || re.Match(data)) {
			return
		}
		if time.Now().After(deadline) {
			stopBackground(ts)
			ts.Fatalf("waitfile: %s did not appear", strings.Join(args, " "))
		}
	}
}

// stopBackground stops the script's background commands as a second Ctrl-C
// would: raymond kills its steps and exits. A background run whose steps wait
// for a file that never came would otherwise outlive the failed script until
// the test's deadline, since testscript interrupts it only once. SIGINT then
// SIGTERM always arrive as two signals (see cmdSignal).
func stopBackground(ts *testscript.TestScript) {
	for _, cmd := range ts.BackgroundCmds() {
		if cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGINT)
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}
}

// cmdSetStatus rewrites the status of a run in the project of the current
// folder, the way a process that died mid-run leaves it:
//
//	setstatus RUN_ID running
func cmdSetStatus(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: setstatus RUN_ID STATUS")
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	r, err := store.Read(args[0])
	ts.Check(err)
	r.Status = state.Status(args[1])
	ts.Check(store.Write(r))
}

// cmdNoReplies makes a scripted run look as raymond left it before the
// replies file was stored with the run: its options say scripted, and
// name no file.
//
//	noreplies RUN_ID
func cmdNoReplies(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: noreplies RUN_ID")
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	r, err := store.Read(args[0])
	ts.Check(err)
	r.Options.Replies = ""
	ts.Check(store.Write(r))
}

// cmdSignal sends a signal to the process that drives a run of the project
// in $WORK, found by the run's lock:
//
//	signal RUN_ID INT|TERM|HUP|QUIT
//
// testscript's kill sends only to a background command, and two SIGINTs sent
// at once may reach the process as one; SIGINT then SIGTERM always arrive as
// two signals.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: signal RUN_ID INT|TERM|HUP|QUIT")
	}
	sig := map[string]syscall.Signal{
		"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "HUP": syscall.SIGHUP, "QUIT": syscall.SIGQUIT,
	}[args[1]]
	if sig == 0 {
		ts.Fatalf("signal: unknown signal %q", args[1])
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	pid, held, err := store.Holder(args[0])
	ts.Check(err)
	if !held || pid == 0 {
		ts.Fatalf("signal: no process drives run %s", args[0])
	}
	ts.Check(syscall.Kill(pid, sig))
}

// cmdLsMode lists a folder and what it holds, one line each: "dir" or
// "file", the permission bits in octal and the name ("." for the folder):
//
//	lsmode .raymond/debug/r1
//	stdout '^dir 0700 \.$'
//	stdout -count=6 '^file 0600 '
func cmdLsMode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: lsmode DIR")
	}
	dir := ts.MkAbs(args[0])
	line := func(fi fs.FileInfo, name string) {
		kind := "file"
		if fi.IsDir() {
			kind = "dir"
		}
		fmt.Fprintf(ts.Stdout(), "%s %04o %s\n", kind, fi.Mode().Perm(), name)
	}
	fi, err := os.Stat(dir)
	ts.Check(err)
	line(fi, ".")
	entries, err := os.ReadDir(dir)
	ts.Check(err)
	for _, e := range entries {
		fi, err := e.Info()
		ts.Check(err)
		line(fi, e.Name())
	}
}

// cmdAlive checks that the process whose pid a file holds is alive (not a
// zombie); with !, that it is gone:
//
//	! alive child.pid
func cmdAlive(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: alive PIDFILE")
	}
	pid, err := strconv.Atoi(strings.TrimSpace(ts.ReadFile(args[0])))
	ts.Check(err)
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	alive := err == nil && !strings.Contains(string(stat), ") Z ")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		ts.Fatalf("alive: %v", err)
	}
	switch {
	case alive && neg:
		ts.Fatalf("process %d is still running", pid)
	case !alive && !neg:
		ts.Fatalf("process %d is not running", pid)
	}
}

func TestUpdateScripts(t *testing.T) {
	for v, want := range map[string]bool{"": false, "0": false, "false": false, "1": true, "true": true, "yes": true} {
		if got := updateScripts(v); got != want {
			t.Errorf("updateScripts(%q) = %v, want %v", v, got, want)
		}
	}
}

// strayProject returns the nearest folder from dir up to the root that holds
// a .raymond folder, "" for none. raymond looks upwards for its project, so
// such a folder above the scripts' work folders (a /tmp/.raymond left by a
// run started in /tmp) would capture every script's runs, and they would
// fail in ways that say nothing of the cause.
func strayProject(dir string) string {
	for {
		if fi, err := os.Stat(filepath.Join(dir, ".raymond")); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
