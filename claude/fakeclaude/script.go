package fakeclaude

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"time"

	"go.yaml.in/yaml/v3"
)

// Script is the content of a script file: the replies the fake gives, in order.
type Script struct {
	Replies []Reply `yaml:"replies"`
}

// Reply is one scripted answer. The zero Reply answers any prompt once with an empty
// result. See the package documentation for what each field does.
type Reply struct {
	// Match is a Go regular expression the prompt must match; empty matches any prompt.
	Match string `yaml:"match,omitempty"`
	// MatchModel is a Go regular expression the model the call runs on
	// (its id, aliases resolved: claude-opus-5-5) must match; empty
	// matches any model.
	MatchModel string `yaml:"match_model,omitempty"`
	// Times is how many calls this reply serves (default 1).
	Times int `yaml:"times,omitempty"`
	// Repeat makes the reply serve any number of calls.
	Repeat bool `yaml:"repeat,omitempty"`

	// Text is the final result text.
	Text string `yaml:"text,omitempty"`
	// Pad appends spaces to Text until it is this many bytes long: a huge
	// answer without a huge script.
	Pad int `yaml:"pad,omitempty"`
	// Say lists assistant text messages streamed before the result; when given, Text
	// is not streamed as a message of its own.
	Say []string `yaml:"say,omitempty"`
	// Tools are tool calls streamed as tool_use / tool_result pairs.
	Tools []Tool `yaml:"tools,omitempty"`
	// Cost is this call's cost in USD (default 0.0053; 0 for API errors).
	Cost *float64 `yaml:"cost,omitempty"`
	// Delay is a Go duration waited before the result line.
	Delay string `yaml:"delay,omitempty"`
	// Model overrides the model named in the output.
	Model string `yaml:"model,omitempty"`
	// Turns overrides num_turns on the result line.
	Turns int `yaml:"turns,omitempty"`

	// Error makes the call fail with an API error of this kind (see apiErrors).
	Error string `yaml:"error,omitempty"`
	// UsageLimit makes the call fail with this usage-limit text.
	UsageLimit string `yaml:"usage_limit,omitempty"`
	// RateLimitReset, in epoch seconds, emits a rate_limit_event before the result.
	RateLimitReset int64 `yaml:"rate_limit_reset,omitempty"`
	// RateLimitStatus is that event's status (default "rejected").
	RateLimitStatus string `yaml:"rate_limit_status,omitempty"`
	// ExecutionError ends the call with an error_during_execution result
	// whose errors list holds this text (no result field); exit 1.
	ExecutionError string `yaml:"execution_error,omitempty"`
	// System lists system lines to stream after the init line, by subtype:
	// informational, task_started or task_notification.
	System []string `yaml:"system,omitempty"`
	// MaxTurns ends the call with an error_max_turns result.
	MaxTurns bool `yaml:"max_turns,omitempty"`
	// MaxBudget ends the call with an error_max_budget_usd result.
	MaxBudget bool `yaml:"max_budget,omitempty"`
	// Crash streams the reply's messages, then exits with Exit (default 1) and no result.
	Crash bool `yaml:"crash,omitempty"`
	// Hang streams the reply's messages, then blocks until SIGTERM or SIGINT.
	Hang bool `yaml:"hang,omitempty"`
	// Stderr is written to stderr before the result line.
	Stderr string `yaml:"stderr,omitempty"`
	// Exit is the exit status after the result line (or after a crash).
	Exit *int `yaml:"exit,omitempty"`
	// Lines, when given, are written to stdout verbatim instead of anything generated;
	// the outcome fields (error, crash, hang, …) then do not apply.
	Lines []string `yaml:"lines,omitempty"`
	// WaitFor is a file to wait for before replying; relative to FAKE_CLAUDE_DIR,
	// with $VARIABLES expanded from the environment.
	WaitFor string `yaml:"wait_for,omitempty"`
}

// Tool is one scripted tool call.
type Tool struct {
	// Name is the tool, such as Bash, Read or Write.
	Name string `yaml:"name"`
	// Input is the tool_use input, such as {command: ls} or {file_path: a.go}.
	Input map[string]any `yaml:"input,omitempty"`
	// Result is the content of the tool_result.
	Result string `yaml:"result,omitempty"`
	// Error marks the tool_result as failed (is_error true).
	Error bool `yaml:"error,omitempty"`
	// Run is a shell command the fake runs with sh -c, in its working
	// directory and environment, between the tool_use line and the
	// tool_result line, as the real CLI runs a Bash tool: nothing is written
	// while it runs. Its output is discarded (Result is the tool_result);
	// the fake waits for the command to exit, not for the processes it
	// leaves in the background.
	Run string `yaml:"run,omitempty"`
}

// defaultCost is a call's cost when the reply names none, as in the captured fixtures.
const defaultCost = 0.0053

// cost is this call's cost: the scripted one, else 0 for failed API calls and
// defaultCost otherwise.
func (r *Reply) cost() float64 {
	switch {
	case r.Cost != nil:
		return *r.Cost
	case r.Error != "" || r.UsageLimit != "":
		return 0
	}
	return defaultCost
}

// limit is how many calls the reply serves; -1 is unlimited.
func (r *Reply) limit() int {
	switch {
	case r.Repeat:
		return -1
	case r.Times > 0:
		return r.Times
	}
	return 1
}

// script is a loaded and checked script file.
type script struct {
	Script
	match []*regexp.Regexp
	model []*regexp.Regexp
	delay []time.Duration
	hash  string // identifies the content, so a rewritten script starts afresh
}

// loadScript reads and checks the script at path; a missing file is an empty script.
func loadScript(path string) (*script, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &script{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read script: %w", err)
	}
	s, err := parseScript(data)
	if err != nil {
		return nil, fmt.Errorf("script %s: %w", path, err)
	}
	return s, nil
}

// parseScript decodes a script (YAML; JSON is YAML too), rejecting unknown fields so
// that a typo in a test's script fails loudly.
func parseScript(data []byte) (*script, error) {
	s := &script{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s.Script); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	sum := sha256.Sum256(data)
	s.hash = hex.EncodeToString(sum[:])
	for i := range s.Replies {
		r := &s.Replies[i]
		var re *regexp.Regexp
		if r.Match != "" {
			var err error
			if re, err = regexp.Compile(r.Match); err != nil {
				return nil, fmt.Errorf("reply %d: match: %w", i, err)
			}
		}
		var mre *regexp.Regexp
		if r.MatchModel != "" {
			var err error
			if mre, err = regexp.Compile(r.MatchModel); err != nil {
				return nil, fmt.Errorf("reply %d: match_model: %w", i, err)
			}
		}
		s.model = append(s.model, mre)
		var d time.Duration
		if r.Delay != "" {
			var err error
			if d, err = time.ParseDuration(r.Delay); err != nil {
				return nil, fmt.Errorf("reply %d: delay: %w", i, err)
			}
		}
		if _, ok := apiErrors[r.Error]; r.Error != "" && !ok {
			return nil, fmt.Errorf("reply %d: unknown error kind %q", i, r.Error)
		}
		for _, sub := range r.System {
			if !slices.Contains(systemSubtypes, sub) {
				return nil, fmt.Errorf("reply %d: system: unknown subtype %q (want one of %v)", i, sub, systemSubtypes)
			}
		}
		if r.Times < 0 {
			return nil, fmt.Errorf("reply %d: times must not be negative", i)
		}
		for j, tool := range r.Tools {
			if tool.Name == "" {
				return nil, fmt.Errorf("reply %d: tool %d has no name", i, j)
			}
		}
		s.match = append(s.match, re)
		s.delay = append(s.delay, d)
	}
	return s, nil
}

// consumption is how many calls each reply of one script has served so far; it lives
// in FAKE_CLAUDE_DIR so that it carries across processes.
type consumption struct {
	Script string `json:"script_sha256"`
	Used   []int  `json:"used"`
}

// pick returns the index of the first reply that still has calls left and matches
// prompt and model, or -1, and counts the call against it.
func (s *script) pick(c *consumption, prompt, model string) int {
	if c.Script != s.hash || len(c.Used) != len(s.Replies) {
		*c = consumption{Script: s.hash, Used: make([]int, len(s.Replies))}
	}
	for i := range s.Replies {
		if n := s.Replies[i].limit(); n >= 0 && c.Used[i] >= n {
			continue
		}
		if s.match[i] != nil && !s.match[i].MatchString(prompt) {
			continue
		}
		if s.model[i] != nil && !s.model[i].MatchString(model) {
			continue
		}
		c.Used[i]++
		return i
	}
	return -1
}

// WriteScript writes s as a script file at path, for Go tests that prefer building
// replies to writing YAML.
func WriteScript(path string, s *Script) error {
	data, err := yaml.Marshal(s)
	if err != nil {
		return fmt.Errorf("encode script: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write script: %w", err)
	}
	return nil
}
