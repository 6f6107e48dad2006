package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/project"
	"raymond/state"
)

// cmdKillSteps ends the main process of every step of a run as the
// out-of-memory killer would, without touching what those processes
// started: each process that leads a process group and carries
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

// stepLeaders lists the main processes of the steps of run that work under
// the folder work (another script may have a run of the same id): the
// processes that carry a step's marker and whose parent does not (their
// parent is raymond, or init once raymond is gone), not what they started.
func stepLeaders(run, work string) []int {
	marked := map[int]int{} // pid → parent
	for _, pid := range markedProcs(run, work) {
		stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		marked[pid] = ppid
	}
	var pids []int
	for pid, ppid := range marked {
		if _, ok := marked[ppid]; !ok {
			pids = append(pids, pid)
		}
	}
	slices.Sort(pids)
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
