package realclaude

import (
	"strings"
	"testing"

	"raymond/standin"
	"raymond/transcript"
)

// scene is a workflow and the model's turns through it.
type scene struct {
	files map[string]string
	turns []turn
}

// tour takes every tag that moves one agent: goto resumes the session, call
// branches it and {{result}} brings the callee's answer back, function and
// reset start afresh.
var tour = scene{
	files: map[string]string{
		"wf/START.md":  "Begin the tour.\n",
		"wf/CALLER.md": "Call the helper.\n",
		"wf/HELPER.md": "Helper: compute the answer.\n",
		"wf/BACK.md":   "Back with {{result}}. Now a function.\n",
		"wf/FN.md":     "Function: judge it.\n",
		"wf/AFTER.md":  "After {{result}}. Reset now.\n",
		"wf/FINAL.md":  "Final step.\n",
	},
	turns: []turn{
		{prompt: "^Begin the tour", bash: "echo started > started.txt", text: "Started. <goto>CALLER.md</goto>"},
		{prompt: "^Call the helper", text: `<call return="BACK.md">HELPER.md</call>`},
		{prompt: "^Helper: compute", text: "<result>forty-two</result>", usage: usage(3000, 100)},
		{prompt: "^Back with forty-two", text: `<function return="AFTER.md">FN.md</function>`},
		{prompt: "^Function: judge", text: "<result>fine</result>"},
		{prompt: "^After fine", text: "<reset>FINAL.md</reset>"},
		{prompt: "^Final step", text: "<result>tour done</result>", usage: usage(500, 50)},
	},
}

// check checks what raymond saw of the tour with the real CLI.
func (scene) check(t *testing.T, w *world, run string) {
	t.Helper()
	steps := w.steps(run)
	want := []struct{ state, mode, from string }{
		{"START.md", "new", ""},
		{"CALLER.md", "resume", "START.md"},
		{"HELPER.md", "branch", "CALLER.md"},
		{"BACK.md", "resume", "CALLER.md"},
		{"FN.md", "new", ""},
		{"AFTER.md", "resume", "BACK.md"},
		{"FINAL.md", "new", ""},
	}
	if len(steps) != len(want) {
		t.Fatalf("%d steps, want %d: %v", len(steps), len(want), states(steps))
	}
	session := map[string]string{} // state: the session its step produced
	for i, m := range steps {
		wt := want[i]
		if m.State != wt.state || m.SessionMode != wt.mode || m.Outcome != "success" {
			t.Errorf("step %d: %s %s %s, want %s %s success", i+1, m.State, m.SessionMode, m.Outcome, wt.state, wt.mode)
		}
		if wt.from != "" && m.ResumedSession != session[wt.from] {
			t.Errorf("step %d (%s) continued session %s, want %s's %s", i+1, m.State, m.ResumedSession, wt.from, session[wt.from])
		}
		if wt.mode == "resume" && m.SessionID != m.ResumedSession {
			t.Errorf("step %d (%s) resumed %s but produced %s", i+1, m.State, m.ResumedSession, m.SessionID)
		}
		if wt.mode != "resume" && (m.SessionID == "" || m.SessionID == m.ResumedSession) {
			t.Errorf("step %d (%s) produced session %q, want a new one", i+1, m.State, m.SessionID)
		}
		session[m.State] = m.SessionID
	}
	// No state names a model: every turn asked for the CLI's default.
	for _, e := range w.turns() {
		if e.Model != "claude-opus-5-5" {
			t.Errorf("%q was sent to %s, want the default claude-opus-5-5", e.Prompt, e.Model)
		}
	}
	if !w.exists("started.txt") {
		t.Errorf("the Bash tool did not run")
	}
	w.checkCosts(run)
	if s := w.status(run); !near(s.TotalCostUSD, cost(tour.turns...)) {
		t.Errorf("run costs $%.6f, the stand-in's usage at list prices $%.6f", s.TotalCostUSD, cost(tour.turns...))
	}
}

func usage(in, out int) standin.Usage { return standin.Usage{InputTokens: in, OutputTokens: out} }

func states(steps []transcript.Meta) string {
	var b strings.Builder
	for _, m := range steps {
		b.WriteString(m.Agent + "/" + m.State + "(" + m.SessionMode + ") ")
	}
	return b.String()
}
