package workflow

import (
	"errors"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// What keeps a state's steps from running away (max_turns, loop_warn,
// loop_stop): a state's own value wins over the run's, whose defaults the
// starting workflow's manifest may give (--max-turns, then the manifest,
// then the config).

// count decodes a whole number of at least 0 (0: none) for the key k.
func (d *policyDecoder) count(k, v *yaml.Node) (*int, error) {
	r := resolved(v)
	if kind(r) == "empty" {
		return nil, nil
	}
	n, err := strconv.Atoi(r.Value)
	if kind(r) == "a number" && errors.Is(err, strconv.ErrRange) {
		return nil, d.errorAt(k, "%s: %s is too large a number; give a smaller one, or 0 for none", k.Value, r.Value)
	}
	if kind(r) != "a number" || err != nil || n < 0 {
		got := strconv.Quote(r.Value)
		if r.Kind != yaml.ScalarNode {
			got = kind(r)
		}
		return nil, d.errorAt(k, "%s must be a whole number of at least 1 (%s), or 0 for none, not %s", k.Value, limitMeaning[k.Value], got)
	}
	return &n, nil
}

// limitMeaning says what each limit counts, for messages.
var limitMeaning = map[string]string{
	keyMaxTurns: "the turns one step may take",
	keyLoopWarn: "identical tool calls in one step that print a warning",
	keyLoopStop: "identical tool calls in one step that stop it",
}

// setLimit stores the value n of the limit key in p.
func (p *Policy) setLimit(key string, n *int) {
	switch key {
	case keyMaxTurns:
		p.MaxTurns = n
	case keyLoopWarn:
		p.LoopWarn = n
	case keyLoopStop:
		p.LoopStop = n
	}
}

// Limits are a manifest's max_turns, loop_warn and loop_stop: the
// defaults of a run that starts from the workflow; nil fields are not set.
type Limits struct {
	MaxTurns, LoopWarn, LoopStop *int
}
