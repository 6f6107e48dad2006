package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"raymond/claude/fakeclaude"
	"raymond/claude/sessionfile"
	"raymond/state"
	"raymond/step"
)

// TestRunnerBooksUnreported: a step whose claude dies before its result line is
// billed what its session file says it spent: its running cost less the
// lineage's cost before it, for a new session, a branch and a resume (the prior
// read from the session file when raymond has none recorded).
func TestRunnerBooksUnreported(t *testing.T) {
	f := newFake(t, []fakeclaude.Reply{
		{Match: "^start", Text: "started", Cost: ptrTo(0.1)},
		{Match: "^crash", Crash: true, Cost: ptrTo(0.2), Tools: []fakeclaude.Tool{{Name: "Read", Result: "x"}}, Repeat: true},
	})
	runner := Runner{Env: f.env}
	run := func(prompt string, s state.Step, prior *float64) step.Result {
		t.Helper()
		s.Cwd = f.cwd
		req := step.Request{Prompt: prompt, Step: s}
		req.Options.ClaudePath = os.Args[0]
		if prior != nil {
			req.PriorCostUSD, req.PriorCostKnown = *prior, true
		}
		return runner.Run(t.Context(), req, step.Handler{})
	}
	check := func(name string, res step.Result, session string, cost, total float64) {
		t.Helper()
		if !res.Billed || !res.Unreported || res.SessionID != session ||
			fmt.Sprintf("%.6f %.6f", res.CostUSD, res.SessionCostUSD) != fmt.Sprintf("%.6f %.6f", cost, total) {
			t.Errorf("%s: billed %v, unreported %v, session %s, cost %v, session cost %v; want %s, %v, %v",
				name, res.Billed, res.Unreported, res.SessionID, res.CostUSD, res.SessionCostUSD, session, cost, total)
		}
	}

	a := NewSessionID()
	res := run("start", state.Step{Mode: state.SessionNew, SessionID: a}, nil)
	eq(t, "first step", res.Outcome, step.Succeeded)
	eq(t, "reported", res.Unreported, false)

	b := NewSessionID()
	res = run("crash new", state.Step{Mode: state.SessionNew, SessionID: b}, nil)
	eq(t, "crash outcome", res.Outcome, step.Transient)
	check("new session", res, b, 0.2, 0.2)

	c := NewSessionID()
	res = run("crash branch", state.Step{Mode: state.SessionBranch, ResumeSession: a, SessionID: c}, ptrTo(0.1))
	check("branch", res, c, 0.2, 0.3)

	res = run("crash resume", state.Step{Mode: state.SessionResume, ResumeSession: a}, ptrTo(0.1))
	check("resume", res, a, 0.2, 0.3)

	// No cost recorded for a: the prior is its running cost before the step.
	res = run("crash resume", state.Step{Mode: state.SessionResume, ResumeSession: a}, nil)
	check("resume, no prior recorded", res, a, 0.2, 0.5)
}

func ptrTo[T any](v T) *T { return &v }

// TestSalvageUnreported: on resume, a step cut short with its driver is billed
// from its session file; nothing is billed when nothing was spent or the prior
// is not known.
func TestSalvageUnreported(t *testing.T) {
	const parent, id = "11111111-2222-4333-8444-555555555555", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	cwd := t.TempDir()
	config := filepath.Join(cwd, "cfg") // given relative: from the step's cwd
	runner := Runner{Env: []string{"CLAUDE_CONFIG_DIR=cfg"}}
	write := func(session, version string, totals ...float64) {
		t.Helper()
		path := sessionfile.Path(config, cwd, session)
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		body := `{"type":"user","message":{"role":"user","content":"hi"},"version":"` + version + `"}` + "\n"
		for _, c := range totals {
			body += fmt.Sprintf(`{"type":"cost-state","sessionId":%q,"totalCostUSD":%v}`+"\n", session, c)
		}
		must(t, os.WriteFile(path, []byte(body), 0o644))
	}
	init := func(version string) []byte {
		return fmt.Appendf(nil, `{"type":"system","subtype":"init","session_id":%q,"claude_code_version":%q}`+"\n", id, version)
	}
	const current = "2.1.330"
	write(parent, current, 0.1, 0.25)
	tests := []struct {
		name    string
		mode    state.SessionMode
		prior   *float64
		own     []float64 // id's running costs; nil: no file
		version string    // the CLI version in id's file
		lines   []byte
		cost    float64
		billed  bool
	}{
		{"new session", state.SessionNew, nil, []float64{0.1, 0.3}, current, nil, 0.3, true},
		{"new session, no file", state.SessionNew, nil, nil, current, nil, 0, false},
		{"new session, nothing spent", state.SessionNew, nil, []float64{0}, current, nil, 0, false},
		{"a CLI reporting per-call costs", state.SessionNew, nil, []float64{0.3}, current, init("2.1.200"), 0, false},
		{"a current CLI", state.SessionNew, nil, []float64{0.3}, "", init(current), 0.3, true},
		{"a CLI reporting per-call costs, by its session file", state.SessionNew, nil, []float64{0.3}, "2.1.200", nil, 0, false},
		{"branch, prior recorded", state.SessionBranch, ptrTo(0.25), []float64{0.1, 0.25, 0.4}, current, nil, 0.15, true},
		{"branch, only the parent's copied lines", state.SessionBranch, ptrTo(0.25), []float64{0.1, 0.25}, current, nil, 0, false},
		{"branch, prior from the parent's file", state.SessionBranch, nil, []float64{0.1, 0.25, 0.45}, current, nil, 0.2, true},
		{"resume, prior recorded", state.SessionResume, ptrTo(0.25), nil, current, nil, 0.15, true},
		{"resume, no prior recorded", state.SessionResume, nil, nil, current, nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := state.Step{Mode: tt.mode, SessionID: id, Cwd: cwd}
			switch tt.mode {
			case state.SessionBranch:
				s.ResumeSession = parent
			case state.SessionResume:
				s.ResumeSession, s.SessionID = parent, ""
				write(parent, current, 0.1, 0.25, 0.4) // the killed step's own request
				defer write(parent, current, 0.1, 0.25)
			}
			must(t, os.RemoveAll(sessionfile.Path(config, cwd, id)))
			if tt.own != nil {
				write(id, tt.version, tt.own...)
			}
			req := step.Request{Step: s}
			if tt.prior != nil {
				req.PriorCostUSD, req.PriorCostKnown = *tt.prior, true
			}
			res, ok := runner.Salvage(req, tt.lines)
			eq(t, "ok", ok, tt.billed)
			if !tt.billed {
				return
			}
			eq(t, "unreported", res.Unreported, true)
			if d := res.CostUSD - tt.cost; d > 1e-9 || d < -1e-9 {
				t.Errorf("cost = %v, want %v", res.CostUSD, tt.cost)
			}
		})
	}
}
