package workflow

import (
	"time"

	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/parsing"
)

// Policy is what a state's frontmatter says (§6).
type Policy struct {
	// Rules are the allowed_transitions entries, in the order written. None
	// means the state accepts any well-formed transition.
	Rules []Rule
	// Model and Effort override the run's --model and --effort when set.
	Model, Effort string
	// ForceImplicit takes the single implicit transition without parsing the
	// output. Load only accepts it on an implicit-eligible policy.
	ForceImplicit bool
	// StepTimeout, when set, replaces the run's --step-timeout for this
	// state's steps (0: no limit).
	StepTimeout *time.Duration
	// Timeout, when set, is the state's idle timeout (§6.4, §12): it
	// replaces the run's --timeout for this state's steps (0: never).
	Timeout *time.Duration
}

// Rule is one allowed_transitions entry. Empty fields (nil Payload) are not
// compared: {tag: goto} allows every goto.
type Rule struct {
	// Tag is a transition tag name (parsing.Goto, …).
	Tag string
	// Target, Return and Next are state names, with or without extension.
	Target, Return, Next string
	// Payload, when set, is the only payload a result rule allows.
	Payload *string
}

// Restricted reports whether the state has allowed_transitions.
func (p Policy) Restricted() bool { return len(p.Rules) > 0 }

// Allows reports whether the tag t matches a rule (§6.1): same tag name, and
// every target, return, next and payload the rule names is equal. Names
// compare with the extension stripped when either side omits it, so a rule
// "REVIEW" matches "REVIEW.md" and a rule "REVIEW.md" matches "REVIEW".
// input, cd and fork variables are never compared.
func (p Policy) Allows(t parsing.Tag) bool {
	return slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.allows(t) })
}

func (r Rule) allows(t parsing.Tag) bool {
	if r.Tag != t.Name {
		return false
	}
	if r.Target != "" && !parsing.SameState(r.Target, t.Target) {
		return false
	}
	if r.Return != "" && !sameAttr(r.Return, t, "return") {
		return false
	}
	if r.Next != "" && !sameAttr(r.Next, t, "next") {
		return false
	}
	return r.Payload == nil || strings.TrimSpace(*r.Payload) == strings.TrimSpace(t.Payload)
}

func sameAttr(want string, t parsing.Tag, key string) bool {
	v, ok := t.Attr(key)
	return ok && parsing.SameState(want, v)
}

// Implicit returns the transition an output without a tag takes (§6.3): the
// policy must have exactly one rule, and that rule must fix everything — a
// target for goto, reset, call, function and fork, plus return for call and
// function and next for fork, or a payload for result.
func (p Policy) Implicit() (parsing.Tag, bool) {
	if len(p.Rules) != 1 {
		return parsing.Tag{}, false
	}
	r := p.Rules[0]
	t := parsing.Tag{Name: r.Tag, Target: r.Target}
	fixed := r.Target != ""
	switch r.Tag {
	case parsing.Call, parsing.Function:
		t.Attrs = []parsing.Attr{{Key: "return", Value: r.Return}}
		fixed = fixed && r.Return != ""
	case parsing.Fork:
		t.Attrs = []parsing.Attr{{Key: "next", Value: r.Next}}
		fixed = fixed && r.Next != ""
	case parsing.Result:
		if r.Payload != nil {
			t.Payload = strings.TrimSpace(*r.Payload)
		}
		fixed = r.Payload != nil
	}
	if !fixed {
		return parsing.Tag{}, false
	}
	return t, true
}

// Rule entry keys, and the tags each one applies to.
var ruleKeys = map[string][]string{
	"tag":     nil,
	"target":  {parsing.Goto, parsing.Reset, parsing.Call, parsing.Function, parsing.Fork},
	"return":  {parsing.Call, parsing.Function},
	"next":    {parsing.Fork},
	"payload": {parsing.Result},
}

// decodeRule decodes one allowed_transitions entry. Errors do not name the
// file: the caller adds it.
func decodeRule(n *yaml.Node) (Rule, error) {
	if n.Kind != yaml.MappingNode {
		return Rule{}, fmt.Errorf("want a mapping like { tag: goto, target: NEXT.md }")
	}
	values := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolved(n.Content[i]), resolved(n.Content[i+1])
		key := k.Value
		if _, known := ruleKeys[key]; kind(k) != "a text" || !known {
			return Rule{}, fmt.Errorf("unknown key %q (want tag, target, return, next or payload)", key)
		}
		if _, dup := values[key]; dup {
			return Rule{}, fmt.Errorf("key %q appears more than once", key)
		}
		if kind(v) != "a text" {
			return Rule{}, fmt.Errorf("%s must be a string, not %s (quote it)", key, kind(v))
		}
		values[key] = v.Value
	}

	tag, ok := values["tag"]
	if !ok {
		return Rule{}, fmt.Errorf("missing key \"tag\"")
	}
	if !slices.Contains(parsing.Names, tag) {
		return Rule{}, fmt.Errorf("unknown tag %q (want one of %s)", tag, strings.Join(parsing.Names, ", "))
	}
	r := Rule{Tag: tag}
	for _, key := range []string{"target", "return", "next", "payload"} {
		value, ok := values[key]
		if !ok {
			continue
		}
		if !slices.Contains(ruleKeys[key], tag) {
			return Rule{}, fmt.Errorf("%s does not apply to %s", key, tag)
		}
		if key == "payload" {
			if strings.IndexByte(value, 0) >= 0 {
				return Rule{}, fmt.Errorf("payload holds a NUL byte, which cannot be passed on to a prompt")
			}
			r.Payload = &value
			continue
		}
		// A name is trimmed like a tag's target is, or a quoted
		// ' REVIEW.md' could never match one.
		value = strings.TrimSpace(value)
		if err := parsing.ValidTarget(value); err != nil {
			return Rule{}, fmt.Errorf("invalid %s: %v", key, err)
		}
		switch key {
		case "target":
			r.Target = value
		case "return":
			r.Return = value
		case "next":
			r.Next = value
		}
	}
	return r, nil
}
