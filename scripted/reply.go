package scripted

import (
	"strings"
	"time"

	"raymond/claude"
)

// outcome is how a scripted step ends.
type outcome int

const (
	success outcome = iota
	crash
	apiError
	usageLimit
	timeout
	maxTurns
)

// outcomeNames are the outcome values of a replies file, in the order the
// documentation and error messages list them.
var outcomeNames = []string{
	success:    "success",
	crash:      "crash",
	apiError:   "api_error",
	usageLimit: "usage_limit",
	timeout:    "timeout",
	maxTurns:   "max_turns",
}

func (o outcome) String() string { return outcomeNames[o] }

// hasResult reports whether a step ending so writes a result line.
func (o outcome) hasResult() bool { return o != crash && o != timeout }

// defaultReset is how long after a usage_limit step its limit resets when
// the reply does not say.
const defaultReset = time.Hour

// reply is one entry of a state's list in the replies file.
type reply struct {
	// index numbers the replies of a state from 1, as error messages and
	// Unused do.
	index   int
	text    string
	outcome outcome
	// times is how many steps the reply answers; ignored when repeat.
	times  int
	repeat bool
	cost   float64
	delay  time.Duration
	reset  time.Duration
	// waitFor is a file the step waits for after its init line, as
	// written: rendered, and joined to the replies file's folder when
	// relative, as the step runs.
	waitFor string
	say     []string
	tools   []tool
	// writes are the files the step writes as it starts, standing in for
	// the files a model writes with its tools.
	writes []write
	// verbatim (template: false) leaves the reply's texts as written:
	// placeholders are not filled in.
	verbatim bool

	// used counts the steps the reply answered; guarded by Runner.mu.
	used int
}

// tool is a tool call streamed before a reply's answer.
type tool struct {
	name    string
	input   map[string]any
	result  string
	isError bool
}

// write is a file a reply writes: its path and content, as written in the
// file (rendered when the step runs).
type write struct {
	path    string
	content string
}

// left reports whether the reply can answer one more step.
func (r *reply) left() bool { return r.repeat || r.used < r.times }

// maxSummary is the longest Unused.Text, in runes.
const maxSummary = 60

// summary describes the reply in one short line: the first line of its
// text, or its outcome when it has no text.
func (r *reply) summary() string {
	if strings.TrimSpace(r.text) == "" {
		return "outcome: " + r.outcome.String()
	}
	return cutRunes(claude.OneLine(r.text), maxSummary)
}

// cutRunes shortens s to max runes, the last one an ellipsis.
func cutRunes(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}
