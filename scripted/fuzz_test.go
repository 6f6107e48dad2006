package scripted

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"raymond/claude"
)

// FuzzParse checks that Parse never panics, and that whatever it accepts
// plays as valid stream-json: every reply of every state, and the step after
// the last one.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "replies.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	for _, seed := range []string{
		"replies:\n  S: [hi]\n",
		"replies:\n  S:\n    - {text: \"{{x}}\", say: [a, b], tools: [{name: T, input: {k: [1, {a: b}]}}]}\n",
		"replies:\n  S:\n    - {outcome: usage_limit, reset: 90}\n    - {outcome: max_turns, cost: 1e3}\n",
		"replies:\n  S: [{text: a, repeat: true}]\n  S.sh: [b]\n",
		"replies: {A: [{times: 2}], B: [{outcome: api_error}, {outcome: crash}, {outcome: timeout}]}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse("fuzz.yaml", data)
		if err != nil {
			if r != nil {
				t.Fatalf("Parse returned a runner and an error: %v", err)
			}
			return
		}
		h := claude.Handler{OnLine: func(raw []byte) {
			if !json.Valid(raw) {
				t.Fatalf("invalid stream-json line: %s", raw)
			}
		}}
		for _, q := range r.queues {
			steps := 1
			for _, rep := range q.replies {
				rep.delay = 0
				steps += min(rep.times, 3)
			}
			for range steps {
				res, err := r.play(context.Background(), request(q.key, map[string]string{"x": "<&>"}), h)
				if err != nil || res == nil || res.Outcome == 0 {
					t.Fatalf("Run: %v, %+v", err, res)
				}
			}
		}
		r.Unused()
	})
}
