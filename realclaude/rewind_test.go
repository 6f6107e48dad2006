package realclaude

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRewindConversation: after raymond rewind RUN main:2, the real CLI,
// resumed with --resume S --resume-session-at U --fork-session, sends the
// model exactly the turns before step 2 (the first step's prompt and
// answer), then step 2's prompt: none of the turns the original ran after.
// Verified with 2.1.330; the flag is hidden, so this pins it.
func TestRewindConversation(t *testing.T) {
	needClaude(t)
	t.Parallel()
	w := newWorld(t, rules(
		turn{prompt: "^Alpha", text: "alpha said <goto>B.md</goto>", repeat: true},
		turn{prompt: "^Beta", text: "beta said <goto>C.md</goto>", repeat: true},
		turn{prompt: "^Gamma", text: "<result>gamma said</result>", repeat: true},
	))
	w.write(map[string]string{
		"wf/START.md": "Alpha first.\n",
		"wf/B.md":     "Beta second.\n",
		"wf/C.md":     "Gamma third.\n",
	})
	w.must(0, "run", "--id", "orig", "wf")
	before := len(w.turns())
	if before != 3 {
		t.Fatalf("the original made %d requests, want 3", before)
	}
	steps := w.steps("orig")
	if len(steps) != 3 || steps[0].LastMessage == "" {
		t.Fatalf("the first step recorded no last message: %+v", steps)
	}
	o := w.must(0, "rewind", "orig", "main:2", "--json")
	if !strings.Contains(o.stdout, `"result":"gamma said"`) {
		t.Fatalf("rewound run: %s", o.stdout)
	}
	turns := w.turns()[before:]
	if len(turns) != 2 {
		t.Fatalf("the rewound run made %d requests, want 2 (B, C)", len(turns))
	}
	want := [][]string{
		{"Alpha first.", "alpha said", "Beta second."},
		{"Alpha first.", "alpha said", "Beta second.", "beta said", "Gamma third."},
	}
	for i, tn := range turns {
		got := conversation(t, tn.Body)
		if strings.Join(got, "|") != strings.Join(want[i], "|") {
			t.Errorf("request %d of the rewound run sent the model\n%q\nwant\n%q", i+1, got, want[i])
		}
	}
	if s := w.status("orig"); s.Status != "completed" {
		t.Errorf("the original is %s", s.Status)
	}
	// The new run is charged its own two turns, no more: the CLI's total
	// of a branch cut at a message is the lineage's up to that message.
	var sum struct {
		RunID        string  `json:"run_id"`
		TotalCostUSD float64 `json:"total_cost_usd"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &sum); err != nil {
		t.Fatal(err)
	}
	perTurn := turn{}.cost()
	if !near(sum.TotalCostUSD, 2*perTurn) {
		for _, m := range w.steps(sum.RunID) {
			r, _ := w.result(sum.RunID, stepName(m))
			t.Logf("%s: booked $%.6f, the CLI's total $%.6f", stepName(m), m.CostUSD, r.TotalCostUSD)
		}
		t.Errorf("the rewound run costs $%.6f, want its two turns' $%.6f", sum.TotalCostUSD, 2*perTurn)
	}
}

// conversation is the text of the messages a request sends, in order, with
// the CLI's own additions (system reminders, tags of its own) left out.
func conversation(t *testing.T, body json.RawMessage) []string {
	t.Helper()
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range req.Messages {
		var text string
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(m.Content, &text) == nil {
			blocks = append(blocks, struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}{"text", text})
		} else if err := json.Unmarshal(m.Content, &blocks); err != nil {
			t.Fatal(err)
		}
		for _, b := range blocks {
			s := strings.TrimSpace(b.Text)
			if b.Type != "text" || s == "" || strings.HasPrefix(s, "<") {
				continue
			}
			for _, marker := range []string{"Alpha first.", "Beta second.", "Gamma third.", "alpha said", "beta said", "gamma said"} {
				if strings.HasPrefix(s, marker) {
					out = append(out, marker)
				}
			}
		}
	}
	return out
}
