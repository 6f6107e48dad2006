package workflow

import (
	"errors"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// What keeps a state's steps from running away (max_turns, loop_warn,
// loop_stop): a state's own value wins over its workflow's manifest,
// which wins over the run's (--max-turns, the config, the defaults).

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

// Limits are a workflow's defaults for its states' max_turns, loop_warn
// and loop_stop (its manifest's keys); nil fields are not set.
type Limits struct {
	MaxTurns, LoopWarn, LoopStop *int
}

// StepLimits are the max_turns, loop_warn and loop_stop of a state's
// steps: the state's own, else the manifest's (m may be nil); nil where
// neither sets one, for the run's to apply.
func StepLimits(p Policy, m *Manifest) (maxTurns, loopWarn, loopStop *int) {
	maxTurns, loopWarn, loopStop = p.MaxTurns, p.LoopWarn, p.LoopStop
	if m == nil {
		return maxTurns, loopWarn, loopStop
	}
	if maxTurns == nil {
		maxTurns = m.Limits.MaxTurns
	}
	if loopWarn == nil {
		loopWarn = m.Limits.LoopWarn
	}
	if loopStop == nil {
		loopStop = m.Limits.LoopStop
	}
	return maxTurns, loopWarn, loopStop
}
