package realclaude

import (
	"slices"
	"strings"
	"testing"

	"raymond/standin"
)

// looping is a rule whose model calls Bash `ls` rounds times in a row, as a
// model stuck in a loop does, and then answers.
func looping(prompt string, rounds int) *standin.Rules {
	rs := &standin.Rules{Rules: []*standin.Rule{{
		Prompt: prompt,
		Replies: []*standin.Reply{{
			Tools:  []standin.Tool{{Name: "Bash", Input: map[string]any{"command": "ls", "description": "list"}}},
			Rounds: rounds,
			Text:   "<result>listed</result>",
			Usage:  &standin.Usage{InputTokens: 1000, OutputTokens: 200},
		}},
	}}}
	if err := rs.Check(); err != nil {
		panic(err)
	}
	return rs
}

// The real CLI takes --max-turns (hidden in its help) and ends a step that
// needs more turns with error_max_turns: raymond fails the agent as
// exhausted, naming the limit, not as a crash, and does not retry it.
func TestMaxTurns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, looping("^Keep listing", 5))
	w.write(map[string]string{"wf/START.md": "Keep listing.\n"})
	o := w.must(1, "run", "--id", "mt", "--max-turns", "2", "wf")
	if !strings.Contains(o.stderr, "stopped after 2 turns (--max-turns 2); not retried") {
		t.Errorf("stderr does not say the step ran out of turns:\n%s", o.stderr)
	}
	steps := w.steps("mt")
	if len(steps) != 1 {
		t.Fatalf("steps: %s", states(steps))
	}
	if i := slices.Index(steps[0].Argv, "--max-turns"); i < 0 || steps[0].Argv[i+1] != "2" {
		t.Errorf("argv %q, want --max-turns 2", steps[0].Argv)
	}
	if steps[0].Outcome != "exhausted" {
		t.Errorf("outcome %q, want exhausted", steps[0].Outcome)
	}
	if r, ok := w.result("mt", stepName(steps[0])); !ok || r.Subtype != "error_max_turns" {
		t.Errorf("result line %+v (found %v), want subtype error_max_turns", r, ok)
	}
}

// A model that keeps making the same tool call is warned at loop_warn and
// stopped at loop_stop, with its process group, before its turn ends.
func TestLoopStop(t *testing.T) {
	t.Parallel()
	w := newWorld(t, looping("^Keep listing", 20))
	w.write(map[string]string{
		"wf/START.md":          "Keep listing.\n",
		".raymond/config.toml": "loop_warn = 2\nloop_stop = 4\n",
	})
	o := w.must(1, "run", "--id", "loop", "wf")
	const call = `Bash {"command":"ls","description":"list"}`
	if !strings.Contains(o.stderr, "warning: START.md: "+call+" called 2 times in this step (loop_warn); it stops the step at 4 (loop_stop)") {
		t.Errorf("no loop warning:\n%s", o.stderr)
	}
	if !strings.Contains(o.stderr, call+" repeated 4 times: stopped (loop_stop 4); not retried") {
		t.Errorf("the step was not stopped for its loop:\n%s", o.stderr)
	}
	steps := w.steps("loop")
	if len(steps) != 1 || steps[0].Outcome != "loop" {
		t.Fatalf("steps: %s, want one that ended as loop", states(steps))
	}
	if n := len(w.turns()); n > 5 {
		t.Errorf("%d requests, want the step stopped at its fourth call", n)
	}
}
