package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/project"
	"raymond/state"
	"raymond/step"
)

// cmdKillSteps ends the main process of every step of a run as the
// out-of-memory killer would, without touching what those processes
// started: each process that leads a session and carries
// RAYMOND_STEP=RUN/… gets the signal (TERM by default):
//
//	killsteps RUN [TERM|KILL]
//
// With `!`, it fails if it found one.
func cmdKillSteps(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: killsteps RUN [TERM|KILL]")
	}
	sig := syscall.SIGTERM
	if len(args) == 2 {
		sig = map[string]syscall.Signal{"TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL}[args[1]]
		if sig == 0 {
			ts.Fatalf("killsteps: unknown signal %q", args[1])
		}
	}
	pids := stepLeaders(args[0], ts.Getenv("WORK"))
	switch {
	case neg && len(pids) > 0:
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pids[0]))
		ts.Fatalf("killsteps: steps of %s still run: %v (%s)", args[0], pids, stat)
	case !neg && len(pids) == 0:
		ts.Fatalf("killsteps: no step of %s runs", args[0])
	}
	for _, pid := range pids {
		ts.Check(syscall.Kill(pid, sig))
	}
}

// stepLeaders lists the processes that lead a session, carry the marker of
// a step of run and work under the folder work (another script may have a
// run of the same id).
func stepLeaders(run, work string) []int {
	dirs, _ := os.ReadDir("/proc")
	prefix := []byte(step.MarkerEnv + "=" + run + "/")
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", d.Name(), "environ"))
		if err != nil || !hasPrefixEntry(env, prefix) {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", d.Name(), "cwd")); err != nil || !strings.HasPrefix(cwd, work) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) > 3 && f[0] != "Z" && f[3] == d.Name() {
			pids = append(pids, pid)
		}
	}
	return pids
}

func hasPrefixEntry(env, prefix []byte) bool {
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.HasPrefix(kv, prefix) {
			return true
		}
	}
	return false
}

// cmdSkewStart makes the state file of a run name, for each step in
// flight, a process started at another time than the one it ran: what the
// file says when the kernel has given the step's pid to a new process.
//
//	skewstart RUN
func cmdSkewStart(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: skewstart RUN")
	}
	store := &state.Store{Dir: project.StateDir(ts.Getenv("WORK"))}
	r, err := store.Read(args[0])
	ts.Check(err)
	n := 0
	for i := range r.Agents {
		if p := r.Agents[i].Pending; p != nil && p.Process != nil {
			p.Process.Start++
			n++
		}
	}
	if n == 0 {
		ts.Fatalf("skewstart: no step of %s has a process", args[0])
	}
	ts.Check(store.Write(r))
}
