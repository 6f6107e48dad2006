package realclaude

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"raymond/transcript"
)

// TestFidelity runs the same scenes through the fake claude and the real
// CLI and compares what raymond saw: each step's argv (ids named by order of
// appearance), how it continued which session, the model, the outcome and
// the cost. Where they differ, the real CLI is right and the fake must learn.
func TestFidelity(t *testing.T) {
	for _, c := range []struct {
		name string
		sc   scene
	}{
		{"tour", tour},
		{"fanout", fanout},
		{"reminder", reminder},
		// Both keep a resumed session on its last model, so raymond must
		// name the model it means (issue 20, defect 2).
		{"model", modelSwitch},
	} {
		sc := c.sc
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			real := newWorld(t, rules(sc.turns...))
			fake := newFakeWorld(t, fakeScript(sc.turns...))
			var seen [2][]string
			for i, w := range []*world{real, fake} {
				w.write(sc.files)
				o := w.raymond("run", "--id", "fid", "wf")
				seen[i] = append([]string{fmt.Sprintf("exit %d, stdout %q", o.code, o.stdout)}, observe(w.steps("fid"))...)
				seen[i] = append(seen[i], fmt.Sprintf("run: %s $%.6f", w.status("fid").Status, w.status("fid").TotalCostUSD))
			}
			t.Logf("raymond saw:\n  %s", strings.Join(seen[0], "\n  "))
			if !slices.Equal(seen[0], seen[1]) {
				t.Errorf("raymond saw the real CLI and the fake differently:\nreal:\n  %s\nfake:\n  %s",
					strings.Join(seen[0], "\n  "), strings.Join(seen[1], "\n  "))
			}
		})
	}
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// observe writes each step as one comparable line, in the order of agents and
// their steps, with session ids named S1, S2… in the order they appear and
// the claude path left out.
func observe(steps []transcript.Meta) []string {
	steps = slices.Clone(steps)
	slices.SortStableFunc(steps, func(a, b transcript.Meta) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(a.Seq, b.Seq))
	})
	names := map[string]string{}
	name := func(id string) string {
		if id == "" {
			return "-"
		}
		if names[id] == "" {
			names[id] = fmt.Sprintf("S%d", len(names)+1)
		}
		return names[id]
	}
	var out []string
	for _, m := range steps {
		argv := strings.Join(m.Argv[1:], " ")
		resumed, produced := name(m.ResumedSession), name(m.SessionID)
		argv = uuidRE.ReplaceAllStringFunc(argv, name)
		out = append(out, fmt.Sprintf("%s %s #%d: %s %s->%s model %s, %s, $%.6f; argv %s",
			m.Agent, m.State, m.Seq, m.SessionMode, resumed, produced, m.Model, m.Outcome, m.CostUSD, argv))
	}
	return out
}
