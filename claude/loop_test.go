package claude

import (
	"strings"
	"testing"

	"raymond/claude/fakeclaude"
	"raymond/state"
	"raymond/step"
)

func TestCanonicalJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"command":"ls"}`, `{"command":"ls"}`},
		{` { "b" : 1, "a" : {"d":[1, 2.50],"c":"x<y"} } `, `{"a":{"c":"x<y","d":[1,2.50]},"b":1}`},
		{``, `{}`},
		{`not json`, `not json`},
		{`{"s":"two\nlines"}`, `{"s":"two\nlines"}`},
	}
	for _, tc := range tests {
		eq(t, tc.in, string(canonicalJSON([]byte(tc.in))), tc.want)
	}
}

// toolLine is an assistant line calling name with input.
func toolLine(id, name, input string) string {
	return `{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"` + id + `","name":"` + name + `","input":` + input + `}]}}`
}

// Identical calls are counted over the whole step, whatever comes between
// them and however their JSON is written; the warning comes once, at
// loop_warn, and loop_stop marks the step looping.
func TestLoopCounting(t *testing.T) {
	lines := []string{
		toolLine("1", "Bash", `{"command":"ls"}`),
		toolLine("2", "Read", `{"file_path":"a"}`),
		toolLine("3", "Bash", `{ "command" : "ls" }`),
		toolLine("4", "Bash", `{"command":"ls -l"}`),
		toolLine("5", "Bash", `{"command":"ls"}`),
		toolLine("6", "Bash", `{"command":"ls"}`),
	}
	var events []Event
	res := &Result{}
	st := newStream(res, func(e Event) { events = append(events, e) })
	st.loops = loops{warn: 2, stop: 4}
	for i, l := range lines {
		st.decode([]byte(l))
		if i < 5 && res.Loop != nil {
			t.Fatalf("looping after line %d: %+v", i+1, res.Loop)
		}
	}
	warned := eventsOf(events, EventLoopWarning)
	eq(t, "warnings", warned, []Event{{Kind: EventLoopWarning, Tool: "Bash", Detail: `Bash {"command":"ls"}`, Count: 2, Limit: 4}})
	eq(t, "LoopWarned", res.LoopWarned, []ToolLoop{{Call: `Bash {"command":"ls"}`, Count: 2, Stop: 4}})
	eq(t, "Loop", res.Loop, &ToolLoop{Call: `Bash {"command":"ls"}`, Count: 4, Stop: 4})

	// Off: nothing counted.
	res, events = &Result{}, nil
	st = newStream(res, func(e Event) { events = append(events, e) })
	for _, l := range lines {
		st.decode([]byte(l))
	}
	if res.Loop != nil || len(eventsOf(events, EventLoopWarning)) != 0 {
		t.Errorf("loops watched while off: %+v", res)
	}
}

// A step that keeps making the same call is stopped at loop_stop, as a step
// timeout stops one, and fails with a reason naming the call; it is not
// transient.
func TestRunStopsALoop(t *testing.T) {
	ls := fakeclaude.Tool{Name: "Bash", Input: map[string]any{"command": "ls"}, Result: "a.go"}
	tools := make([]fakeclaude.Tool, 12)
	for i := range tools {
		tools[i] = ls
	}
	f := newFake(t, []fakeclaude.Reply{{Tools: tools, Hang: true}})
	req := f.request("list")
	req.LoopWarn, req.LoopStop = 3, 5
	res, events := f.run(req)
	eq(t, "Outcome", res.Outcome, Loop)
	if res.Outcome.Transient() {
		t.Error("a loop is transient")
	}
	eq(t, "Loop", res.Loop, &ToolLoop{Call: `Bash {"command":"ls"}`, Count: 5, Stop: 5})
	eq(t, "tool uses seen", len(eventsOf(events, EventToolUse)) >= 5, true)
	eq(t, "warnings", len(eventsOf(events, EventLoopWarning)), 1)

	out := Neutral(res, step.Request{RunID: "r1"})
	eq(t, "step outcome", out.Outcome, step.Failed)
	eq(t, "class", out.Class, "loop")
	if !strings.HasPrefix(out.Reason, `Bash {"command":"ls"} repeated 5 times: stopped (loop_stop 5)`) || !strings.Contains(out.Reason, "raymond resume r1") {
		t.Errorf("reason = %q", out.Reason)
	}
	eq(t, "repeats", out.Repeats, []step.Repeat{{Call: `Bash {"command":"ls"}`, Count: 3, Stop: 5}})
}

// A step that used up its turns fails its agent with a reason that says
// after how many turns, which limit, and how to raise it; not as a crash,
// and not retried.
func TestTurnsReason(t *testing.T) {
	res := &Result{HasResult: true, IsError: true, Subtype: "error_max_turns", NumTurns: 4, Outcome: Exhausted}
	seven := 7
	tests := []struct {
		name string
		req  step.Request
		want string
	}{
		{"run's", step.Request{RunID: "r1", Options: stateOptions(3), Step: stateStep("WORK.md", nil)},
			"stopped after 3 turns (--max-turns 3); not retried, since it would stop at the same limit: raise it with `raymond resume r1 --max-turns N` (0 for none)"},
		{"state's", step.Request{RunID: "r1", Options: stateOptions(3), Step: stateStep("WORK.md", &seven)},
			"stopped after 7 turns (max_turns 7 of WORK.md); not retried, since it would stop at the same limit: raise max_turns in WORK.md (0 for none), then `raymond resume r1`"},
		{"none known", step.Request{RunID: "r1", Step: stateStep("WORK.md", nil)},
			"stopped after 4 turns (claude's turn limit); not retried, since it would stop at the same limit: give the step more room, then `raymond resume r1`"},
	}
	for _, tc := range tests {
		out := Neutral(res, tc.req)
		eq(t, tc.name+" outcome", out.Outcome, step.Failed)
		eq(t, tc.name+" class", out.Class, "exhausted")
		eq(t, tc.name+" reason", out.Reason, tc.want)
	}
}

func stateOptions(maxTurns int) state.Options { return state.Options{MaxTurns: maxTurns} }

func stateStep(name string, maxTurns *int) state.Step {
	return state.Step{Ref: state.Ref{State: name}, MaxTurns: maxTurns}
}

// BenchmarkToolUseLine measures decoding one tool_use line with the loop
// check off and on (canonical JSON and a hash of the input).
func BenchmarkToolUseLine(b *testing.B) {
	line := []byte(toolLine("1", "Write", `{"file_path":"/src/main.go","content":"`+strings.Repeat(`package main\n`, 300)+`"}`))
	for _, watch := range []bool{false, true} {
		name := "off"
		if watch {
			name = "on"
		}
		b.Run(name, func(b *testing.B) {
			st := newStream(&Result{}, nil)
			if watch {
				st.loops = loops{warn: 5, stop: 1 << 30}
			}
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				st.decode(line)
			}
		})
	}
}
