package fakeclaude

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"raymond/claude/sessionfile"
)

// costStates are the totals of the cost-state lines of session id, in order.
func (f *fake) costStates(id string) []float64 {
	f.t.Helper()
	data, err := os.ReadFile(sessionfile.Path(f.config, f.cwd, id))
	must(f.t, err)
	var totals []float64
	for line := range strings.Lines(string(data)) {
		var c sessionfile.CostState
		must(f.t, json.Unmarshal([]byte(line), &c))
		if c.Type == sessionfile.CostStateType {
			totals = append(totals, c.TotalCostUSD)
		}
	}
	return totals
}

func nearAll(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
	for i := range got {
		near(t, what, got[i], want[i])
	}
}

// TestCostState: as the real CLI does when it exits, the fake appends the session
// lineage's running cost to the session file, once per call: a resumed session's
// goes on from its last, a branch's from its parent's, though the branch's copy of
// the history holds none of the parent's cost-state lines.
func TestCostState(t *testing.T) {
	f := newFake(t, `replies:
  - {match: first, text: done, cost: 0.3, tools: [{name: Read, result: a}, {name: Read, result: b}]}
  - {match: again, text: more, cost: 0.5}
  - {match: branch, text: other, cost: 0.05}
`)
	out := f.ask("first")
	id := out.sessionID(t)
	near(t, "total", out.result(t)["total_cost_usd"], 0.3)
	nearAll(t, "cost-state after a call of three requests", f.costStates(id), []float64{0.3})

	f.ask("again", "--resume", id)
	nearAll(t, "cost-state after a resume", f.costStates(id), []float64{0.3, 0.8})

	branch := f.ask("branch", "--resume", id, "--fork-session").sessionID(t)
	nearAll(t, "cost-state of a branch", f.costStates(branch), []float64{0.85})
	nearAll(t, "parent untouched", f.costStates(id), []float64{0.3, 0.8})
}

// TestCostStateSignaled: a call stopped by SIGTERM during its second tool leaves
// what its first two requests cost, and no result line; the session's running cost
// goes on from there.
func TestCostStateSignaled(t *testing.T) {
	f := newFake(t, `replies:
  - {text: done, cost: 0.3, tools: [{name: Read, result: a}, {name: Bash, run: "i=0; while ! test -e go && test $i -lt 3000; do i=$((i+1)); sleep 0.01; done", result: b}]}
`)
	// The tool waits for "go", for 30 s at most: the folder may be gone
	// before it looks again, and it must not outlive the test.
	t.Cleanup(func() { os.WriteFile(filepath.Join(f.cwd, "go"), nil, 0o644) })
	r := f.start(slices.Concat(streamArgs, []string{"--", "hi"}))
	check(t, "init", kindOf(r.next()), "system/init")
	var id string
	for range 3 { // tool_use, tool_result, tool_use: the second tool runs
		id, _ = r.next()["session_id"].(string)
	}
	r.signal(syscall.SIGTERM)
	check(t, "lines after the signal", len(r.rest()), 0)
	check(t, "exit", r.wait(), 143)
	nearAll(t, "cost-state", f.costStates(id), []float64{0.2})
	call := f.calls()[0]
	check(t, "logged cost, without a result line", call.Cost, 0.0)
	near(t, "logged paid", call.Paid, 0.2)

	f.writeScript("replies: [{match: again, text: ok, cost: 0.5}, {match: stop, hang: true, cost: 0}, {match: branch, text: ok, cost: 0.05}]")
	out := f.ask("again", "--resume", id)
	near(t, "total after the resume", out.result(t)["total_cost_usd"], 0.7)
	nearAll(t, "cost-state after the resume", f.costStates(id), []float64{0.2, 0.7})

	// A branch's lineage counts the stopped call's spend, though the history
	// it copies holds only the messages' costs.
	b := f.start(slices.Concat(streamArgs, []string{"--resume", id, "--", "stop"}))
	b.next()
	b.signal(syscall.SIGTERM) // a call that paid nothing
	b.rest()
	check(t, "exit", b.wait(), 143)
	nearAll(t, "cost-state of the stopped call", f.costStates(id), []float64{0.2, 0.7, 0.7})
	out = f.ask("branch", "--resume", id, "--fork-session")
	near(t, "total of the branch", out.result(t)["total_cost_usd"], 0.75)
	nearAll(t, "cost-state of the branch", f.costStates(out.sessionID(t)), []float64{0.75})
}

// TestCostStateKill9: a process killed with SIGKILL, even after its answer, writes
// no cost-state, as the real CLI writes none: what it spent is not in the session.
func TestCostStateKill9(t *testing.T) {
	f := newFake(t, "replies: [{text: done, cost: 0.25, tools: [{name: Read, result: a}], stderr: answered, hang: true}]")
	cmd := f.command(slices.Concat(streamArgs, []string{"--", "hi"})...)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	stderr, err := cmd.StderrPipe()
	must(t, err)
	must(t, cmd.Start())
	lines := newLineReader(t, stdout)
	id, _ := lines.next()["session_id"].(string)
	errs := bufio.NewScanner(stderr)
	if !errs.Scan() || errs.Text() != "answered" {
		t.Fatalf("stderr: %q, want answered", errs.Text())
	}
	must(t, cmd.Process.Kill())
	for _, l := range lines.rest() {
		if l["type"] == "result" {
			t.Errorf("a result line from a killed process: %v", l)
		}
	}
	if err := cmd.Wait(); err == nil || cmd.ProcessState.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("wait: %v, want killed", err)
	}
	check(t, "cost-state lines", len(f.costStates(id)), 0)
}

// TestInterruptedTurnResume: a turn interrupted before its answer stays in the
// session; the next resume answers it "No response requested." before its own
// prompt, as the real CLI does. A turn that was answered gets no such line.
func TestInterruptedTurnResume(t *testing.T) {
	f := newFake(t, "replies: [{match: hi, hang: true, say: [thinking], times: 2}, {text: ok, repeat: true}]")
	r := f.start(slices.Concat(streamArgs, []string{"--", "hi"}))
	id, _ := r.next()["session_id"].(string)
	check(t, "second", kindOf(r.next()), "assistant")
	r.signal(syscall.SIGINT)
	r.rest()
	check(t, "exit", r.wait(), 0)

	f.ask("again", "--resume", id)
	f.ask("once more", "--resume", id)
	s, err := LoadSession(f.config, f.cwd, id)
	must(t, err)
	check(t, "history", s.History, []Message{
		{"user", "hi"}, {"assistant", noResponse},
		{"user", "again"}, {"assistant", "ok"},
		{"user", "once more"}, {"assistant", "ok"},
	})

	// A branch of a session whose last turn was interrupted answers it in its copy.
	r = f.start(slices.Concat(streamArgs, []string{"--resume", id, "--", "hi"}))
	r.next()
	r.next()
	r.signal(syscall.SIGINT)
	r.rest()
	r.wait()
	branch := f.ask("branch", "--resume", id, "--fork-session").sessionID(t)
	b, err := LoadSession(f.config, f.cwd, branch)
	must(t, err)
	check(t, "branch's last four", b.History[len(b.History)-4:], []Message{
		{"user", "hi"}, {"assistant", noResponse}, {"user", "branch"}, {"assistant", "ok"},
	})
	s, err = LoadSession(f.config, f.cwd, id)
	must(t, err)
	check(t, "parent's last, untouched", s.History[len(s.History)-1], Message{"user", "hi"})
}
