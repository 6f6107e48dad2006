package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"raymond/project"
	"raymond/state"
)

// cmdKillTrials runs the kill trials of issue 23: N times, a fork workflow
// is run with the fake claude, `raymond run` is killed with SIGKILL at a
// random moment, and the run is resumed to its end. Steps outlive their
// driver and are adopted, so every step is paid for once: the trials count
// the steps called more than once (from the fake's calls.jsonl), the runs
// whose results or cost are wrong, and the step processes left running
// once the runs have ended. Each must be 0. RAYMOND_KILL_TRIALS, when set,
// replaces N (make check runs a few; the figures in docs/performance.md
// come from 100):
//
//	killtrials N
func cmdKillTrials(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: killtrials N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	if v := os.Getenv("RAYMOND_KILL_TRIALS"); v != "" {
		n, err = strconv.Atoi(v)
		ts.Check(err)
	}
	work := ts.Getenv("WORK")
	env := []string{}
	for _, k := range []string{"PATH", "HOME", "TMPDIR", "WORK", "FAKE_CLAUDE_DIR", "CLAUDE_CONFIG_DIR", "FAKE_CLAUDE_SCRIPT", "NO_COLOR", "GORACE"} {
		env = append(env, k+"="+ts.Getenv(k))
	}
	raymond := func(args ...string) error {
		cmd := exec.Command("raymond", args...)
		cmd.Dir, cmd.Env = work, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%w: %s", err, lastLines(string(out), 3))
		}
		return nil
	}
	store := &state.Store{Dir: project.StateDir(work)}
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 23))
	var paidTwice, wrong, left, adopted, beforeStart, afterEnd, lockWaits int
	for i := range n {
		id := fmt.Sprintf("kt%03d", i)
		cmd := exec.Command("raymond", "run", "--id", id, "wf")
		cmd.Dir, cmd.Env = work, env
		ts.Check(cmd.Start())
		at := time.Duration(rng.Int64N(int64(600 * time.Millisecond)))
		time.Sleep(at)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		// A process the killed raymond was starting holds a copy of its
		// descriptors, the run's lock among them, until it has exec'd:
		// the lock is free a moment after the kill, not at once.
		for waited := 0; ; waited++ {
			_, held, err := store.Holder(id)
			if err != nil || !held {
				if waited > 0 {
					lockWaits++
				}
				break
			}
			time.Sleep(time.Millisecond)
		}
		r, err := store.Read(id)
		switch {
		case err != nil:
			beforeStart++
			ts.Check(raymond("run", "--id", id, "wf"))
		case r.Status == state.StatusCompleted:
			afterEnd++
		default:
			if err := raymond("resume", id); err != nil {
				ts.Logf("trial %d: resume %s: %v", i, id, err)
			}
		}
		if data, err := os.ReadFile(filepath.Join(work, ".raymond", "debug", id, "events.jsonl")); err == nil {
			adopted += strings.Count(string(data), `"type":"step_adopted"`)
		}
		r, err = store.Read(id)
		ts.Check(err)
		if bad := checkTrial(r); bad != "" {
			wrong++
			ts.Logf("trial %d (%s, killed after %s): %s", i, id, at, bad)
		}
		if pids := markedProcs(id, work); len(pids) > 0 {
			left += len(pids)
			ts.Logf("trial %d (%s): processes left running: %v", i, id, pids)
		}
	}
	calls := map[string]int{}
	f, err := os.Open(filepath.Join(ts.Getenv("FAKE_CLAUDE_DIR"), "calls.jsonl"))
	ts.Check(err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c struct {
			Prompt string `json:"prompt"`
		}
		ts.Check(json.Unmarshal(sc.Bytes(), &c))
		calls[c.Prompt]++
	}
	for prompt, k := range calls {
		if k > 1 {
			paidTwice += k - 1
			ts.Logf("called %d times: %q", k, prompt)
		}
	}
	if want := n * stepsPerTrial; len(calls) != want {
		ts.Logf("%d steps called, want %d", len(calls), want)
		wrong++
	}
	fmt.Fprintf(ts.Stdout(), "trials: %d (killed before the run was saved: %d, after it ended: %d)\n", n, beforeStart, afterEnd)
	fmt.Fprintf(ts.Stdout(), "steps adopted: %d\n", adopted)
	fmt.Fprintf(ts.Stdout(), "lock still held just after the kill: %d\n", lockWaits)
	fmt.Fprintf(ts.Stdout(), "steps paid twice: %d\n", paidTwice)
	fmt.Fprintf(ts.Stdout(), "results wrong: %d\n", wrong)
	fmt.Fprintf(ts.Stdout(), "processes left running: %d\n", left)
}

// stepsPerTrial is how many steps a trial's run takes: START, four
// workers of two steps each, JOIN.
const stepsPerTrial = 10

// checkTrial says what is wrong with a trial's run once resumed, "" when
// nothing is: completed, main's result, each worker's, a cost of 10 steps.
func checkTrial(r *state.Run) string {
	if r.Status != state.StatusCompleted {
		return "status " + string(r.Status) + ": " + r.Error
	}
	if r.Result == nil || *r.Result != "joined" {
		return fmt.Sprintf("result %v", r.Result)
	}
	var results []string
	for _, a := range r.Agents {
		if a.ID == "main" {
			continue
		}
		if a.Result == nil {
			return fmt.Sprintf("agent %s: no result", a.ID)
		}
		results = append(results, *a.Result)
	}
	slices.Sort(results)
	if got := strings.Join(results, ", "); got != "a ok, b ok, c ok, d ok" {
		return "the workers' results: " + got
	}
	if r.TotalCostUSD < 0.0999 || r.TotalCostUSD > 0.1001 {
		return fmt.Sprintf("cost $%.4f, want $0.10", r.TotalCostUSD)
	}
	return ""
}

// markedProcs lists the live processes that carry the marker of a step of
// run and work under work.
func markedProcs(run, work string) []int {
	dirs, _ := os.ReadDir("/proc")
	prefix := []byte("RAYMOND_STEP=" + run + "/")
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
		if cwd, err := os.Readlink(filepath.Join("/proc", d.Name(), "cwd")); err == nil && strings.HasPrefix(cwd, work) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
