package realclaude

import (
	"encoding/json"
	"testing"

	"raymond/standin"
)

// A turn is one scripted answer of the model: to the first request whose
// prompt matches, and when it calls tools, to the request that brings their
// results back.
type turn struct {
	prompt string // a regular expression on the step's prompt
	text   string
	bash   string // a command the CLI runs with its Bash tool first
	write  [2]string
	usage  standin.Usage // default 1000 input, 200 output tokens
	repeat bool
	model  string // a regular expression on the model requested
	haiku  bool   // the turn runs on haiku, for its price
}

func (tn turn) tokens() standin.Usage {
	if tn.usage == (standin.Usage{}) {
		return standin.Usage{InputTokens: 1000, OutputTokens: 200}
	}
	return tn.usage
}

func (tn turn) requests() int {
	if tn.bash != "" || tn.write[0] != "" {
		return 2
	}
	return 1
}

func (tn turn) tools() []standin.Tool {
	var ts []standin.Tool
	if tn.bash != "" {
		ts = append(ts, standin.Tool{Name: "Bash", Input: map[string]any{"command": tn.bash, "description": "scripted"}})
	}
	if tn.write[0] != "" {
		ts = append(ts, standin.Tool{Name: "Write", Input: map[string]any{"file_path": tn.write[0], "content": tn.write[1]}})
	}
	return ts
}

// Prices of the default model (claude-opus-5-5) and of haiku
// (claude-haiku-5-5) as the CLI 2.1.330 computes cost, in USD per token,
// below 200,000 input tokens.
const (
	inputPrice, outputPrice           = 4e-6, 20e-6
	haikuInputPrice, haikuOutputPrice = 1e-7, 5e-7
)

// cost is what the CLI charges for the turn.
func (tn turn) cost() float64 {
	u := tn.tokens()
	in, out := inputPrice, outputPrice
	if tn.haiku {
		in, out = haikuInputPrice, haikuOutputPrice
	}
	return float64(tn.requests()) * (float64(u.InputTokens)*in + float64(u.OutputTokens)*out)
}

// rules makes the stand-in's rules of turns, one rule each, in order: a rule
// serves one turn, so turns with the same prompt answer in sequence.
func rules(turns ...turn) *standin.Rules {
	rs := &standin.Rules{}
	for _, tn := range turns {
		u := tn.tokens()
		rs.Rules = append(rs.Rules, &standin.Rule{
			Prompt:  tn.prompt,
			Model:   tn.model,
			Repeat:  tn.repeat,
			Replies: []*standin.Reply{{Text: tn.text, Tools: tn.tools(), Usage: &u}},
		})
	}
	data, _ := json.Marshal(rs)
	checked, err := standin.ParseRules(data)
	if err != nil {
		panic(err)
	}
	return checked
}

// fakeScript makes the fake claude's script of the same turns: the same
// texts, each Bash command run for real, and the cost the CLI computes.
func fakeScript(turns ...turn) []byte {
	type tool struct {
		Name   string         `json:"name"`
		Input  map[string]any `json:"input"`
		Result string         `json:"result"`
		Run    string         `json:"run,omitempty"`
	}
	type reply struct {
		Match  string  `json:"match,omitempty"`
		Text   string  `json:"text"`
		Tools  []tool  `json:"tools,omitempty"`
		Cost   float64 `json:"cost"`
		Repeat bool    `json:"repeat,omitempty"`
	}
	var s struct {
		Replies []reply `json:"replies"`
	}
	for _, tn := range turns {
		r := reply{Match: tn.prompt, Text: tn.text, Cost: tn.cost(), Repeat: tn.repeat}
		for _, t := range tn.tools() {
			ft := tool{Name: t.Name, Input: t.Input, Result: "ok"}
			if t.Name == "Bash" {
				ft.Run = tn.bash
			}
			r.Tools = append(r.Tools, ft)
		}
		s.Replies = append(s.Replies, r)
	}
	data, _ := json.Marshal(s)
	return data
}

// cost sums the turns' costs.
func cost(turns ...turn) float64 {
	sum := 0.0
	for _, tn := range turns {
		sum += tn.cost()
	}
	return sum
}

func TestTagsTour(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(tour.turns...))
	w.write(tour.files)
	o := w.must(0, "run", "--id", "tour", "wf")
	if o.stdout != "tour done\n" {
		t.Errorf("stdout %q, want the result", o.stdout)
	}
	tour.check(t, w, "tour")
}
