package fakeclaude

import (
	"bytes"
	"os/exec"
	"slices"
	"sync"
	"testing"
)

// concurrently runs n in-process calls of the fake at once and returns their outputs.
func (f *fake) concurrently(n int, args func(i int) []string) []output {
	outs := make([]output, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			var stdout, stderr bytes.Buffer
			code := run(&invocation{args: args(i), env: f.env, cwd: f.cwd, stdout: &stdout, stderr: &stderr})
			outs[i] = output{code: code, stdout: stdout.String(), stderr: stderr.String()}
		})
	}
	wg.Wait()
	return outs
}

// TestConcurrentCalls: 20 calls at once share a limited reply and keep the log and the
// store consistent.
func TestConcurrentCalls(t *testing.T) {
	const n = 20
	f := newFake(t, "replies:\n  - {match: '^go', text: A, times: 10}\n  - {text: B, repeat: true}\n")
	outs := f.concurrently(n, func(int) []string { return slices.Concat(streamArgs, []string{"--", "go"}) })
	count := map[any]int{}
	ids := map[string]bool{}
	for _, out := range outs {
		check(t, "exit", out.code, 0)
		checkLines(t, out.stdout)
		res := out.result(t)
		count[res["result"]]++
		ids[res["session_id"].(string)] = true
	}
	check(t, "replies served", count, map[any]int{"A": 10, "B": 10})
	check(t, "distinct sessions", len(ids), n)

	calls := f.calls()
	check(t, "calls logged", len(calls), n)
	for _, c := range calls {
		if !ids[c.SessionID] {
			t.Errorf("logged session %q was not produced", c.SessionID)
		}
		s, err := LoadSession(f.config, f.cwd, c.SessionID)
		must(t, err)
		check(t, "history length", len(s.History), 2)
	}
}

// TestConcurrentResume: calls resuming one session at once all land in it (the real
// CLI interleaves them too), and its cost adds up.
func TestConcurrentResume(t *testing.T) {
	const n = 10
	f := newFake(t, "replies: [{text: ok, repeat: true}]")
	id := f.ask("start").sessionID(t)
	outs := f.concurrently(n, func(int) []string { return slices.Concat(streamArgs, []string{"--resume", id, "--", "more"}) })
	for _, out := range outs {
		check(t, "exit", out.code, 0)
		check(t, "session", out.sessionID(t), id)
	}
	s, err := LoadSession(f.config, f.cwd, id)
	must(t, err)
	// A call that finds the session's last prompt unanswered (another call's,
	// still under way) answers it "No response requested." first, as the real
	// CLI answers an interrupted turn.
	count := map[Message]int{}
	for _, m := range s.History {
		count[m]++
	}
	check(t, "prompts", count[Message{"user", "start"}]+count[Message{"user", "more"}], n+1)
	check(t, "answers", count[Message{"assistant", "ok"}], n+1)
	check(t, "history length", len(s.History), 2*(n+1)+count[Message{"assistant", noResponse}])
	near(t, "cumulative cost", s.CostUSD, float64(n+1)*defaultCost)
}

// TestConcurrentProcesses runs real processes at once, so that the flock is what
// keeps the reply state consistent across processes.
func TestConcurrentProcesses(t *testing.T) {
	const n = 10
	f := newFake(t, "replies:\n  - {text: A, times: 5}\n  - {text: B, repeat: true}\n")
	cmds := make([]*exec.Cmd, n)
	stdouts := make([]bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = f.command("-p", "--", "go")
		cmds[i].Stdout = &stdouts[i]
		must(t, cmds[i].Start())
	}
	count := map[string]int{}
	for i, cmd := range cmds {
		must(t, cmd.Wait())
		count[stdouts[i].String()]++
	}
	check(t, "replies served", count, map[string]int{"A\n": 5, "B\n": 5})
	check(t, "calls logged", len(f.calls()), n)
}
