package workflow

import (
	"errors"
	"strconv"

	"go.yaml.in/yaml/v3"

	"raymond/parsing"
)

// FallbackTags are the tags on_max_visits takes. A call or function is
// not among them: the capped state never ran, so there is no caller whose
// session a return could resume, and the workflows that cap a loop send
// the agent elsewhere (a goto to a state that asks a person) or end it.
var FallbackTags = []string{parsing.Goto, parsing.Reset, parsing.Result}

// visits decodes max_visits: a whole number of at least 1.
func (d *policyDecoder) visits(k, v *yaml.Node) (int, error) {
	r := resolved(v)
	n, err := strconv.Atoi(r.Value)
	if kind(r) == "a number" && errors.Is(err, strconv.ErrRange) {
		return 0, d.errorAt(k, "%s: %s is too large a number; give a smaller one, or leave %s out for no cap", keyMaxVisits, r.Value, keyMaxVisits)
	}
	if kind(r) != "a number" || err != nil || n < 1 {
		got := strconv.Quote(r.Value)
		if r.Kind != yaml.ScalarNode || kind(r) == "empty" {
			got = kind(r)
		}
		return 0, d.errorAt(k, "%s must be a whole number of at least 1 (how many times an agent may enter this state in a run), not %s", keyMaxVisits, got)
	}
	return n, nil
}

// fallback decodes on_max_visits: a mapping like an allowed_transitions
// entry, { tag: goto, target: ASK.md }, whose tag is goto or reset with a
// target, or result with a payload, and nothing else.
func (d *policyDecoder) fallback(k, v *yaml.Node) (*Rule, error) {
	const want = "like { tag: goto, target: MANUAL_FIX.md } (goto or reset with a target, or result with a payload)"
	if v.Kind != yaml.MappingNode {
		return nil, d.errorAt(k, "%s must be a mapping %s, not %s", keyOnMaxVisits, want, kind(v))
	}
	r, err := decodeRule(v)
	if err != nil {
		return nil, d.errorAt(v, "%s: %v", keyOnMaxVisits, err)
	}
	switch {
	case r.Tag != parsing.Goto && r.Tag != parsing.Reset && r.Tag != parsing.Result:
		return nil, d.errorAt(v, "%s: tag %s is not taken here; write it %s", keyOnMaxVisits, r.Tag, want)
	case r.Tag != parsing.Result && r.Target == "":
		return nil, d.errorAt(v, "%s: %s needs a target, %s", keyOnMaxVisits, r.Tag, want)
	case r.Tag == parsing.Result && r.Payload == nil:
		return nil, d.errorAt(v, "%s: result needs a payload, like { tag: result, payload: \"gave up\" }", keyOnMaxVisits)
	case len(r.Attrs) > 0:
		return nil, d.errorAt(v, "%s: key %q is not taken here; the fallback carries the input of the transition it replaces", keyOnMaxVisits, r.Attrs[0].Key)
	}
	return &r, nil
}

// checkCap warns of an on_max_visits without max_visits: it never fires.
func (d *policyDecoder) checkCap(p Policy) {
	if p.OnMaxVisits != nil && p.MaxVisits == 0 {
		d.warnf("%s without %s never fires; add %s: N", keyOnMaxVisits, keyMaxVisits, keyMaxVisits)
	}
}

// Fallback returns the transition on_max_visits takes as a tag: a goto or
// reset to its target, or a result with its payload. ok is false when the
// policy has none.
func (p Policy) Fallback() (t parsing.Tag, ok bool) {
	r := p.OnMaxVisits
	if r == nil {
		return parsing.Tag{}, false
	}
	t = parsing.Tag{Name: r.Tag, Target: r.Target}
	if r.Payload != nil {
		t.Payload = *r.Payload
	}
	return t, true
}
