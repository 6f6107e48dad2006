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
	// Fallbacks are the models after Model in a list (model: [opus,
	// sonnet]), tried in order when Model is overloaded or out of limits.
	Fallbacks []string
	// MCP is the state's mcp_config; nil for none.
	MCP *MCPConfig
	// ForceImplicit takes the single implicit transition without parsing the
	// output. Load only accepts it on an implicit-eligible policy.
	ForceImplicit bool
	// StepTimeout, when set, replaces the run's --step-timeout for this
	// state's steps (0: no limit).
	StepTimeout *time.Duration
	// Timeout, when set, is the state's idle timeout (§6.4, §12): it
	// replaces the run's --timeout for this state's steps (0: never).
	Timeout *time.Duration
	// MaxVisits, when above 0, is how many times one agent may enter the
	// state in a run (max_visits): entry MaxVisits+1 takes OnMaxVisits
	// instead, or fails the agent when OnMaxVisits is nil.
	MaxVisits int
	// OnMaxVisits is the transition taken instead of an entry past
	// MaxVisits (on_max_visits): a goto or reset with a Target, or a
	// result with a Payload.
	OnMaxVisits *Rule
	// AllowedTools and DisallowedTools are the state's tool rules, one per
	// item ("Read", "Bash(git log:*)"), passed to claude as --allowedTools
	// and --disallowedTools for this state's steps. A list written as one
	// string is split the way claude splits it (permission.Split).
	AllowedTools, DisallowedTools []string
	// PermissionMode, when set, replaces the run's --permission-mode (and
	// --dangerously-skip-permissions) for this state's steps.
	PermissionMode string
	// OnConflict, in a run in the worktree mode, is the state the agent
	// goes to instead of this one when merges of its workers into its
	// workspace conflicted (on_conflict); "" for the manifest's, or none.
	OnConflict string
	// MaxTurns, LoopWarn and LoopStop, when set, replace the run's
	// --max-turns, loop_warn and loop_stop for this state's steps (0:
	// none); see runaway.go.
	MaxTurns, LoopWarn, LoopStop *int
	// CycleCheck, when set to false, keeps the state's steps out of the
	// check for an agent going round a cycle of states with identical
	// answers (a state that polls legitimately answers alike).
	CycleCheck *bool
}

// LimitsTools reports whether the state sets any of allowed_tools,
// disallowed_tools and permission_mode.
func (p Policy) LimitsTools() bool {
	return len(p.AllowedTools) > 0 || len(p.DisallowedTools) > 0 || p.PermissionMode != ""
}

// Rule is one allowed_transitions entry. Empty fields (nil Payload) are not
// compared: {tag: goto} allows every goto.
type Rule struct {
	// Tag is a transition tag name (parsing.Goto, …).
	Tag string
	// Target is a state name, with or without extension, or for a
	// cross-workflow tag a workflow specifier, compared by resolution
	// (Decide).
	Target string
	// Return, Next and TimeoutNext are state names of the state's own
	// scope, with or without extension.
	Return, Next, TimeoutNext string
	// Payload, when set, is the only payload a result rule allows.
	Payload *string
	// Attrs are the attributes the entry carries rather than compares
	// (§6.5), in the order written: input, cd, task, an ask's timeout, and
	// a fork's variables. An implicit transition carries them as if the
	// model had written them; an ask without a timeout takes the entry's.
	Attrs []parsing.Attr
}

// Restricted reports whether the state has allowed_transitions.
func (p Policy) Restricted() bool { return len(p.Rules) > 0 }

// Allows reports whether the tag t matches a rule (§6.1): same tag name, and
// every target, return, next, timeout_next and payload the rule names is
// equal. Names compare with the extension stripped when either side omits
// it, so a rule "REVIEW" matches "REVIEW.md" and a rule "REVIEW.md" matches
// "REVIEW". The attributes a rule carries (input, cd, task, timeout, fork
// variables) are never compared. The target of a cross-workflow rule is
// compared as written here; Decide compares it by resolution.
func (p Policy) Allows(t parsing.Tag) bool {
	_, ok := p.match(t, nil)
	return ok
}

// sameTarget compares the target of a rule with that of a tag, for the
// rules whose target is not compared as a state name: cross-workflow rules.
type sameTarget func(r Rule, t parsing.Tag) bool

// match returns the first rule that allows t. A cross-workflow rule's
// target is compared by same when it is not nil, as text otherwise.
func (p Policy) match(t parsing.Tag, same sameTarget) (Rule, bool) {
	for _, r := range p.Rules {
		if r.allows(t, same) {
			return r, true
		}
	}
	return Rule{}, false
}

func (r Rule) allows(t parsing.Tag, same sameTarget) bool {
	if r.Tag != t.Name {
		return false
	}
	switch {
	case r.Target == "":
	case parsing.CrossWorkflow(r.Tag) && same != nil:
		if !same(r, t) {
			return false
		}
	case !parsing.SameState(r.Target, t.Target):
		return false
	}
	if r.Return != "" && !sameAttr(r.Return, t, "return") {
		return false
	}
	if r.Next != "" && !sameAttr(r.Next, t, "next") {
		return false
	}
	if r.TimeoutNext != "" && !sameAttr(r.TimeoutNext, t, "timeout_next") {
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
// target for goto, reset, call, function, fork and the cross-workflow tags,
// plus return for call, function, call-workflow and function-workflow and
// next for fork and fork-workflow, or a payload for result. The tag carries
// the rule's other attributes (input, cd, task, fork variables) as if the
// model had written them. An ask is never implicit.
func (p Policy) Implicit() (parsing.Tag, bool) {
	if len(p.Rules) != 1 {
		return parsing.Tag{}, false
	}
	r := p.Rules[0]
	t := parsing.Tag{Name: r.Tag, Target: r.Target}
	fixed := r.Target != ""
	switch r.Tag {
	case parsing.Call, parsing.Function, parsing.CallWorkflow, parsing.FunctionWorkflow:
		t.Attrs = []parsing.Attr{{Key: "return", Value: r.Return}}
		fixed = fixed && r.Return != ""
	case parsing.Fork, parsing.ForkWorkflow:
		t.Attrs = []parsing.Attr{{Key: "next", Value: r.Next}}
		fixed = fixed && r.Next != ""
	case parsing.Result:
		if r.Payload != nil {
			t.Payload = strings.TrimSpace(*r.Payload)
		}
		fixed = r.Payload != nil
	case parsing.Ask:
		fixed = false
	}
	if !fixed {
		return parsing.Tag{}, false
	}
	if len(r.Attrs) > 0 {
		t.Attrs = append(t.Attrs, r.Attrs...)
	}
	return t, true
}

// withTarget lists the tags whose rules may name a target.
var withTarget = []string{parsing.Goto, parsing.Reset, parsing.Call, parsing.Function, parsing.Fork,
	parsing.CallWorkflow, parsing.FunctionWorkflow, parsing.ForkWorkflow, parsing.ResetWorkflow}

// comparedKeys are the rule keys compared with a tag (§6.1), and the tags
// each one applies to. Every other key but tag is carried (§6.5).
var comparedKeys = map[string][]string{
	"target":       withTarget,
	"return":       {parsing.Call, parsing.Function, parsing.CallWorkflow, parsing.FunctionWorkflow},
	"next":         {parsing.Fork, parsing.ForkWorkflow, parsing.Ask},
	"timeout_next": {parsing.Ask},
	"payload":      {parsing.Result},
}

// carriedKeys are the protocol attributes a rule may carry; a fork's rule
// also carries any other key, as a template variable.
var carriedKeys = []string{"input", "cd", "task", "timeout", "workspace"}

// decodeRule decodes one allowed_transitions entry. Errors do not name the
// file: the caller adds it.
func decodeRule(n *yaml.Node) (Rule, error) {
	if n.Kind != yaml.MappingNode {
		return Rule{}, fmt.Errorf("want a mapping like { tag: goto, target: NEXT.md }")
	}
	var (
		keys   []string
		values = make(map[string]*yaml.Node, len(n.Content)/2)
	)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolved(n.Content[i]), resolved(n.Content[i+1])
		key := k.Value
		if kind(k) != "a text" {
			return Rule{}, fmt.Errorf("key %q is not a text", key)
		}
		if _, dup := values[key]; dup {
			return Rule{}, fmt.Errorf("key %q appears more than once", key)
		}
		keys = append(keys, key)
		values[key] = v
	}

	tagNode, ok := values["tag"]
	if !ok {
		return Rule{}, fmt.Errorf("missing key \"tag\"")
	}
	tag := tagNode.Value
	if kv := kind(tagNode); kv != "a text" {
		return Rule{}, fmt.Errorf("tag must be a string, not %s (quote it)", kv)
	}
	// The original Raymond's spellings (<await>, cwd) read as raymond's,
	// as they do in an answer.
	if t, ok := parsing.OldTagName(tag); ok {
		tag = t
	}
	for i, key := range keys {
		newKey, ok := parsing.OldAttrName(tag, key)
		if !ok {
			continue
		}
		if _, dup := values[newKey]; dup {
			return Rule{}, fmt.Errorf("key %q and key %q, the original Raymond's name for it, are both given; keep only %q", newKey, key, newKey)
		}
		keys[i], values[newKey] = newKey, values[key]
		delete(values, key)
	}
	if !slices.Contains(parsing.Names, tag) {
		return Rule{}, fmt.Errorf("unknown tag %q (want one of %s)", tag, strings.Join(parsing.Names, ", "))
	}
	r := Rule{Tag: tag}
	for _, key := range keys {
		tags, compared := comparedKeys[key]
		if key != "tag" && !compared && !slices.Contains(carriedKeys, key) && !parsing.Forks(tag) {
			return Rule{}, fmt.Errorf("unknown key %q (want tag, target, return, next or payload); "+
				"an ask's entry also takes timeout_next and timeout, and an entry may carry input, cd, task and workspace where its tag takes them", key)
		}
		v := values[key]
		// A timeout may be a bare number of seconds.
		if kv := kind(v); kv != "a text" && (key != "timeout" || kv != "a number") {
			return Rule{}, fmt.Errorf("%s must be a string, not %s (quote it)", key, kv)
		}
		value := v.Value
		switch {
		case key == "tag":
		case compared:
			if !slices.Contains(tags, tag) {
				return Rule{}, fmt.Errorf("%s does not apply to %s", key, tag)
			}
			if err := r.setCompared(key, value); err != nil {
				return Rule{}, err
			}
		default:
			if err := parsing.CheckAttr(tag, key, value); err != nil {
				return Rule{}, err
			}
			r.Attrs = append(r.Attrs, parsing.Attr{Key: key, Value: value})
		}
	}
	return r, nil
}

// setCompared sets the compared key of r to value, once checked.
func (r *Rule) setCompared(key, value string) error {
	if key == "payload" {
		if strings.IndexByte(value, 0) >= 0 {
			return fmt.Errorf("payload holds a NUL byte, which cannot be passed on to a prompt")
		}
		r.Payload = &value
		return nil
	}
	// A name is trimmed like a tag's target is, or a quoted
	// ' REVIEW.md' could never match one.
	value = strings.TrimSpace(value)
	check := parsing.ValidTarget
	if key == "target" && parsing.CrossWorkflow(r.Tag) {
		check = parsing.ValidSpecifier
	}
	if err := check(value); err != nil {
		return fmt.Errorf("invalid %s: %v", key, err)
	}
	switch key {
	case "target":
		r.Target = value
	case "return":
		r.Return = value
	case "next":
		r.Next = value
	case "timeout_next":
		r.TimeoutNext = value
	}
	return nil
}
