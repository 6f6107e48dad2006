package standin

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"time"
)

// Rules is a rules file: the rules in order, and the answer for a request that
// no rule matches.
type Rules struct {
	Rules []*Rule `json:"rules"`
	// Default answers a request no rule matches; nil means an
	// invalid_request_error (400) that names the prompt.
	Default *Reply `json:"default,omitempty"`
	// FollowUp is a Go regular expression: a prompt that matches it follows
	// up the prompt before it in the conversation (raymond's reminders: "^Your
	// last answer could not be used"), and rules' Prompt patterns are matched
	// against the prompt it follows, so that a state's rule answers its
	// reminders too.
	FollowUp string `json:"follow_up,omitempty"`

	followUp *regexp.Regexp
}

// Rule picks requests by what they hold and answers them with its replies in
// order, one reply per turn (a tool round trip stays with the reply that began
// it). When its replies are used up it matches no more, unless Repeat keeps
// its last reply.
type Rule struct {
	// Name shows in the request log; default "rule N" (from 1).
	Name string `json:"name,omitempty"`
	// Prompt, System and Model are Go regular expressions; each given one must
	// match the prompt (the text of the last user message that is not a tool
	// result), the system prompt, or the model requested.
	Prompt string `json:"prompt,omitempty"`
	System string `json:"system,omitempty"`
	Model  string `json:"model,omitempty"`
	// Side is whether the rule is for the CLI's side requests (titles, quota
	// checks: a request without tools): false matches main turns only, true
	// side requests only.
	Side    bool     `json:"side,omitempty"`
	Replies []*Reply `json:"replies"`
	Repeat  bool     `json:"repeat,omitempty"`

	prompt, system, model *regexp.Regexp
	used                  int
}

// Reply is one answer. Its Text, Say and the strings in its tools' inputs may
// name a named group of the rule's Prompt pattern, {{name}}: it is replaced by
// what the group matched in the prompt, so that one rule answers a state
// rendered for several agents (`Worker (?P<item>\w+):` and `{{item}} done`).
type Reply struct {
	// Text is the final text of the turn: the answer, or when Tools are given,
	// the answer once their results come back.
	Text string `json:"text,omitempty"`
	// Say is text sent before the tool calls, in the same message.
	Say string `json:"say,omitempty"`
	// Tools are tool_use blocks the CLI runs with its real tools; the next
	// request of the turn carries their results and gets Text.
	Tools []Tool `json:"tools,omitempty"`
	// Rounds, above 1, makes the same tool calls again for each request
	// that brings their results back, Rounds times in all, before Text: a
	// model stuck in a loop.
	Rounds int `json:"rounds,omitempty"`
	// Usage is reported with the message (default 100 input, 20 output tokens).
	// The CLI computes its cost from it.
	Usage *Usage `json:"usage,omitempty"`
	// Model is the model named in the answer; default the model requested.
	Model string `json:"model,omitempty"`
	// Delay is a Go duration waited before answering.
	Delay string `json:"delay,omitempty"`
	// Hang waits until the client goes away: the request never ends.
	Hang bool `json:"hang,omitempty"`
	// Status, when not 0 or 200, answers with that HTTP status, Headers, and
	// an error body of ErrorType (default from the status) and ErrorMessage.
	Status       int               `json:"status,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	ErrorType    string            `json:"error_type,omitempty"`
	ErrorMessage string            `json:"error_message,omitempty"`

	delay time.Duration
}

// Tool is one tool call.
type Tool struct {
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// Usage is the token usage of an answer.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

var defaultUsage = Usage{InputTokens: 100, OutputTokens: 20}

// LoadRules reads a rules file.
func LoadRules(path string) (*Rules, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := ParseRules(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// ParseRules reads the JSON of a rules file and checks it.
func ParseRules(data []byte) (*Rules, error) {
	var r Rules
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("parse rules: %w", err)
	}
	if err := r.Check(); err != nil {
		return nil, err
	}
	return &r, nil
}

// Check checks rules made in Go and compiles their patterns; LoadRules and
// ParseRules call it. A server answers only from checked rules.
func (rs *Rules) Check() error {
	for i, r := range rs.Rules {
		if r.Name == "" {
			r.Name = fmt.Sprintf("rule %d", i+1)
		}
		var err error
		for _, f := range []struct {
			src string
			re  **regexp.Regexp
		}{{r.Prompt, &r.prompt}, {r.System, &r.system}, {r.Model, &r.model}} {
			if f.src == "" {
				continue
			}
			if *f.re, err = regexp.Compile(f.src); err != nil {
				return fmt.Errorf("%s: %w", r.Name, err)
			}
		}
		if len(r.Replies) == 0 {
			return fmt.Errorf("%s: no replies", r.Name)
		}
		for j, rep := range r.Replies {
			if err := rep.check(); err != nil {
				return fmt.Errorf("%s: reply %d: %w", r.Name, j+1, err)
			}
		}
	}
	if rs.FollowUp != "" {
		var err error
		if rs.followUp, err = regexp.Compile(rs.FollowUp); err != nil {
			return fmt.Errorf("follow_up: %w", err)
		}
	}
	if rs.Default != nil {
		if err := rs.Default.check(); err != nil {
			return fmt.Errorf("default: %w", err)
		}
	}
	return nil
}

func (r *Reply) check() error {
	if r.Delay != "" {
		d, err := time.ParseDuration(r.Delay)
		if err != nil {
			return fmt.Errorf("delay: %w", err)
		}
		r.delay = d
	}
	for _, t := range r.Tools {
		if t.Name == "" {
			return fmt.Errorf("a tool without a name")
		}
	}
	return nil
}

// take returns the reply of the first rule that matches the request and
// has a reply left, with the named groups of its Prompt filled in, and counts
// it used.
func (rs *Rules) take(req *request) (*Rule, *Reply) {
	prompt := rs.prompt(req)
	for _, r := range rs.Rules {
		if !r.matches(req, prompt) {
			continue
		}
		var rep *Reply
		switch {
		case r.used < len(r.Replies):
			r.used++
			rep = r.Replies[r.used-1]
		case r.Repeat:
			rep = r.Replies[len(r.Replies)-1]
		default:
			continue
		}
		return r, rep.fill(r.groups(prompt))
	}
	return nil, nil
}

// groups returns the named groups of the rule's Prompt as they matched.
func (r *Rule) groups(prompt string) map[string]string {
	if r.prompt == nil {
		return nil
	}
	m := r.prompt.FindStringSubmatch(prompt)
	if m == nil {
		return nil
	}
	g := map[string]string{}
	for i, name := range r.prompt.SubexpNames() {
		if name != "" && g[name] == "" {
			g[name] = m[i]
		}
	}
	return g
}

// fill returns a copy of the reply with {{name}} replaced by the groups'
// values; the reply itself when there are none.
func (r *Reply) fill(groups map[string]string) *Reply {
	if len(groups) == 0 {
		return r
	}
	pairs := make([]string, 0, 2*len(groups))
	for name, v := range groups {
		pairs = append(pairs, "{{"+name+"}}", v)
	}
	rep := strings.NewReplacer(pairs...)
	c := *r
	c.Text, c.Say = rep.Replace(r.Text), rep.Replace(r.Say)
	c.Tools = make([]Tool, len(r.Tools))
	for i, t := range r.Tools {
		in := make(map[string]any, len(t.Input))
		for k, v := range t.Input {
			if s, ok := v.(string); ok {
				v = rep.Replace(s)
			}
			in[k] = v
		}
		c.Tools[i] = Tool{Name: t.Name, Input: in}
	}
	return &c
}

// prompt returns the prompt the rules match: the last one, or with
// FollowUp, the last one that is not a follow-up.
func (rs *Rules) prompt(req *request) string {
	texts := req.prompts()
	for i := len(texts) - 1; i >= 0; i-- {
		if rs.followUp == nil || !rs.followUp.MatchString(texts[i]) {
			return texts[i]
		}
	}
	return ""
}

func (r *Rule) matches(req *request, prompt string) bool {
	if r.Side != req.side() {
		return false
	}
	return (r.prompt == nil || r.prompt.MatchString(prompt)) &&
		(r.system == nil || r.system.MatchString(req.systemText())) &&
		(r.model == nil || r.model.MatchString(req.Model))
}
