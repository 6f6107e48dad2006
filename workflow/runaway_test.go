package workflow

import (
	"strings"
	"testing"
)

func TestParseRunawayKeys(t *testing.T) {
	st, err := ParseState("WORK.md", []byte("---\nmax_turns: 30\nloop_warn: 3\nloop_stop: 0\ncycle_check: false\n---\nWork.\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := st.Policy
	if p.MaxTurns == nil || *p.MaxTurns != 30 || p.LoopWarn == nil || *p.LoopWarn != 3 || p.LoopStop == nil || *p.LoopStop != 0 {
		t.Errorf("limits = %v %v %v, want 30 3 0", p.MaxTurns, p.LoopWarn, p.LoopStop)
	}
	if p.CycleCheck == nil || *p.CycleCheck {
		t.Errorf("CycleCheck = %v, want false", p.CycleCheck)
	}
	if len(st.Warnings) != 0 {
		t.Errorf("warnings = %q", st.Warnings)
	}

	st, err = ParseState("WORK.md", []byte("---\nmodel: x\n---\nWork.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := st.Policy; p.MaxTurns != nil || p.LoopWarn != nil || p.LoopStop != nil || p.CycleCheck != nil {
		t.Errorf("unset keys came out set: %+v", p)
	}
}

func TestParseRunawayKeyErrors(t *testing.T) {
	tests := []struct{ content, want string }{
		{"---\nmax_turns: -1\n---\nW", `X.md:2: max_turns must be a whole number of at least 1 (the turns one step may take), or 0 for none, not "-1"`},
		{"---\nmax_turns: 2.5\n---\nW", `X.md:2: max_turns must be a whole number of at least 1 (the turns one step may take), or 0 for none, not "2.5"`},
		{"---\nloop_stop: many\n---\nW", `X.md:2: loop_stop must be a whole number of at least 1 (identical tool calls in one step that stop it), or 0 for none, not "many"`},
		{"---\nloop_warn: [1]\n---\nW", `X.md:2: loop_warn must be a whole number of at least 1 (identical tool calls in one step that print a warning), or 0 for none, not a list`},
		{"---\nmax_turns: 99999999999999999999\n---\nW", `X.md:2: max_turns: 99999999999999999999 is too large a number`},
		{"---\ncycle_check: sometimes\n---\nW", `X.md:2: cycle_check must be true or false`},
	}
	for _, tc := range tests {
		_, err := ParseState("X.md", []byte(tc.content))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %s", tc.content, err, tc.want)
		}
	}
}

// A manifest's limits are read for the runs that start from it.
func TestManifestLimits(t *testing.T) {
	m, err := parseManifest("workflow.yaml", []byte("name: w\nmax_turns: 40\nloop_warn: 4\nloop_stop: 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Warnings) != 0 {
		t.Fatalf("warnings = %q", m.Warnings)
	}
	if l := m.Limits; *l.MaxTurns != 40 || *l.LoopWarn != 4 || *l.LoopStop != 0 {
		t.Errorf("Limits = %d %d %d, want 40 4 0", *l.MaxTurns, *l.LoopWarn, *l.LoopStop)
	}
	if m, _ := parseManifest("workflow.yaml", []byte("name: w\n")); m.Limits != (Limits{}) {
		t.Errorf("Limits of a manifest without them = %+v", m.Limits)
	}
	if _, err := parseManifest("workflow.yaml", []byte("loop_stop: -3\n")); err == nil || !strings.Contains(err.Error(), "loop_stop must be a whole number") {
		t.Errorf("bad loop_stop: err = %v", err)
	}
}
