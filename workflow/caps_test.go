package workflow

import (
	"reflect"
	"strings"
	"testing"

	"raymond/parsing"
)

func TestParseVisitCap(t *testing.T) {
	st, err := ParseState("REVISE.md", []byte("---\nmax_visits: 2\non_max_visits: { tag: goto, target: ASK.md }\n---\nRevise.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Policy.MaxVisits != 2 {
		t.Errorf("MaxVisits = %d, want 2", st.Policy.MaxVisits)
	}
	got, ok := st.Policy.Fallback()
	if want := (parsing.Tag{Name: parsing.Goto, Target: "ASK.md"}); !ok || !reflect.DeepEqual(got, want) {
		t.Errorf("Fallback() = %+v, %v, want %+v", got, ok, want)
	}

	st, err = ParseState("W.md", []byte("---\nmax_visits: 1\non_max_visits:\n  tag: result\n  payload: gave up\n---\nW\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Policy.Fallback(); got.Name != parsing.Result || got.Payload != "gave up" {
		t.Errorf("Fallback() = %+v, want a result with the payload", got)
	}

	st, err = ParseState("W.md", []byte("---\non_max_visits: { tag: reset, target: A }\n---\nW\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Warnings) != 1 || !strings.Contains(st.Warnings[0], "on_max_visits without max_visits never fires") {
		t.Errorf("warnings = %q, want one about the missing max_visits", st.Warnings)
	}
}

func TestParseVisitCapErrors(t *testing.T) {
	tests := []struct{ name, fm, want string }{
		{"zero", "max_visits: 0", `X.md:2: max_visits must be a whole number of at least 1 (how many times an agent may enter this state in a run), not "0"`},
		{"negative", "max_visits: -3", `X.md:2: max_visits must be a whole number of at least 1`},
		{"fraction", "max_visits: 1.5", `X.md:2: max_visits must be a whole number of at least 1`},
		{"text", "max_visits: two", `X.md:2: max_visits must be a whole number of at least 1 (how many times an agent may enter this state in a run), not "two"`},
		{"quoted", `max_visits: "2"`, `X.md:2: max_visits must be a whole number`},
		{"list", "max_visits: [2]", `X.md:2: max_visits must be a whole number of at least 1 (how many times an agent may enter this state in a run), not a list`},
		{"empty", "max_visits:", `X.md:2: max_visits must be a whole number of at least 1 (how many times an agent may enter this state in a run), not empty`},
		{"too large", "max_visits: 99999999999999999999", `X.md:2: max_visits: 99999999999999999999 is too large a number; give a smaller one, or leave max_visits out for no cap`},
		{"fallback not a mapping", "max_visits: 2\non_max_visits: ASK.md", `X.md:3: on_max_visits must be a mapping like { tag: goto, target: MANUAL_FIX.md }`},
		{"fallback call", "max_visits: 2\non_max_visits: { tag: call, target: A, return: B }", `X.md:3: on_max_visits: tag call is not taken here`},
		{"fallback without target", "max_visits: 2\non_max_visits: { tag: goto }", `X.md:3: on_max_visits: goto needs a target`},
		{"fallback result without payload", "max_visits: 2\non_max_visits: { tag: result }", `X.md:3: on_max_visits: result needs a payload`},
		{"fallback unknown tag", "max_visits: 2\non_max_visits:\n  tag: gotoo\n  target: A", `X.md:4: on_max_visits: unknown tag "gotoo"`},
		{"fallback with input", "max_visits: 2\non_max_visits: { tag: goto, target: A, input: x }", `X.md:3: on_max_visits: key "input" is not taken here`},
		{"fallback bad target", "max_visits: 2\non_max_visits: { tag: goto, target: ../A }", `X.md:3: on_max_visits: invalid target`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseState("X.md", []byte("---\n"+tt.fm+"\n---\nBody\n"))
			if err == nil {
				t.Fatalf("got %+v, want error %q", st.Policy, tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n %q\nwant prefix\n %q", err, tt.want)
			}
		})
	}
}

func TestYAMLVisitCap(t *testing.T) {
	wf, err := parseYAMLWorkflow("wf.yaml", []byte(`states:
  REVISE:
    prompt: Revise.
    max_visits: 3
    on_max_visits: { tag: goto, target: ASK }
  POLL:
    sh: exit 0
    max_visits: 5
`))
	if err != nil {
		t.Fatal(err)
	}
	if p := wf.states["REVISE.md"].policy; p.MaxVisits != 3 || p.OnMaxVisits == nil || p.OnMaxVisits.Target != "ASK" {
		t.Errorf("REVISE policy = %+v", p)
	}
	if p := wf.states["POLL.sh"].policy; p.MaxVisits != 5 {
		t.Errorf("a script state keeps its cap: %+v", p)
	}
	_, err = parseYAMLWorkflow("wf.yaml", []byte("states:\n  A:\n    prompt: hi\n    max_visits: no\n"))
	if want := `wf.yaml:4:5: max_visits must be a whole number of at least 1`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v, want prefix %q", err, want)
	}
}
