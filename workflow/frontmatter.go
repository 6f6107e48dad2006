package workflow

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"raymond/internal/spelling"
	"raymond/permission"
)

// Frontmatter keys (§6).
const (
	keyTransitions   = "allowed_transitions"
	keyModel         = "model"
	keyEffort        = "effort"
	keyForceImplicit = "force_implicit"
	keyStepTimeout   = "step_timeout"
	keyTimeout       = "timeout"
	keyMaxVisits     = "max_visits"
	keyOnMaxVisits   = "on_max_visits"
	keyAllowed       = "allowed_tools"
	keyDisallowed    = "disallowed_tools"
	keyPermission    = "permission_mode"
	keyOnConflict    = "on_conflict"
	keyMaxTurns      = "max_turns"
	keyLoopWarn      = "loop_warn"
	keyLoopStop      = "loop_stop"
	keyCycleCheck    = "cycle_check"
)

// policyKeys are the frontmatter keys, for the did-you-mean of an unknown
// one.
var policyKeys = []string{keyTransitions, keyModel, keyEffort, keyForceImplicit, keyStepTimeout, keyTimeout,
	keyMaxVisits, keyOnMaxVisits, keyAllowed, keyDisallowed, keyPermission, keyOnConflict, keyMaxTurns, keyLoopWarn, keyLoopStop, keyCycleCheck, keyMCP}

// toolKeys are the keys that limit a state's tools; a script state has
// no tools, so on a script they are ignored with a warning.
var toolKeys = []string{keyAllowed, keyDisallowed, keyPermission}

// efforts are the values claude --effort knows.
var efforts = []string{"low", "medium", "high", "xhigh", "max"}

// matter is a state file split at its frontmatter.
type matter struct {
	yaml     []byte // the frontmatter between the delimiters; nil when there is none
	openLine int    // file line of the opening ---
	body     []byte
	bodyLine int // file line where body starts
}

// split separates content into its YAML frontmatter and its body. The first
// line that is not blank must be --- and end with a newline; the frontmatter
// ends at the next line that is ---, white space around the dashes allowed.
// A UTF-8 byte order mark before it all is dropped.
func split(name string, content []byte) (matter, error) {
	content = bytes.TrimPrefix(content, []byte("\ufeff"))
	m := matter{body: content, bodyLine: 1}
	pos, line := 0, 0
	for {
		i := bytes.IndexByte(content[pos:], '\n')
		if i < 0 {
			return m, nil // a last line without a newline opens nothing
		}
		line++
		l := bytes.TrimSpace(content[pos : pos+i])
		pos += i + 1
		if len(l) == 0 {
			continue
		}
		if string(l) != "---" {
			return m, nil
		}
		break
	}
	m.openLine = line
	start := pos
	for pos < len(content) {
		end, next := len(content), len(content)
		if i := bytes.IndexByte(content[pos:], '\n'); i >= 0 {
			end, next = pos+i, pos+i+1
		}
		if string(bytes.TrimSpace(content[pos:end])) == "---" {
			m.yaml = append([]byte{}, content[start:pos]...)
			m.body = content[next:]
			m.bodyLine = 1 + bytes.Count(content[:next], []byte("\n"))
			return m, nil
		}
		pos = next
	}
	return matter{}, fmt.Errorf("%s:%d: frontmatter opened with --- is never closed; add a line --- after it", name, m.openLine)
}

// policyDecoder turns YAML into a Policy or a Manifest. It knows the file's
// name and where the YAML starts, so messages point into the file.
type policyDecoder struct {
	name     string
	openLine int
	// cols adds the column to a message's place (FILE:LINE:COL), as a YAML
	// workflow's errors have; frontmatter errors name the line only.
	cols     bool
	warnings []string
}

// decodePolicy decodes the frontmatter of the state name.
func decodePolicy(name string, m matter) (Policy, []string, error) {
	d := &policyDecoder{name: name, openLine: m.openLine}
	var doc yaml.Node
	if err := yaml.Unmarshal(m.yaml, &doc); err != nil {
		return Policy{}, nil, d.yamlError(m.yaml, err)
	}
	var p Policy
	if len(doc.Content) == 0 {
		return p, nil, nil
	}
	top := resolved(doc.Content[0])
	if kind(top) == "empty" {
		return p, nil, nil
	}
	if top.Kind != yaml.MappingNode {
		return Policy{}, nil, d.errorAt(top, "frontmatter must be a mapping of keys to values, like \"model: sonnet\"")
	}

	seen := make(map[string]*yaml.Node)
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := resolved(top.Content[i]), resolved(top.Content[i+1])
		key := k.Value
		if seen[key] != nil {
			return Policy{}, nil, d.errorAt(k, "frontmatter key %q appears more than once", key)
		}
		seen[key] = k
		known, err := d.policyKey(&p, k, v)
		if err != nil {
			return Policy{}, nil, err
		}
		if !known {
			// A misspelt disallowed_tools leaves the state unlimited: the
			// run's warning names the key meant, as lint does.
			d.warnf("unknown frontmatter key %q ignored%s", key, didYouMean(key, policyKeys))
		}
	}
	if err := d.checkImplicit(p, seen[keyForceImplicit]); err != nil {
		return Policy{}, nil, err
	}
	d.checkCap(p)
	return p, d.warnings, nil
}

// policyKey decodes one policy key k with value v into p. It reports false
// for a key that is not a policy key. Frontmatter and the states of a YAML
// workflow share it, so both know the same keys and read them alike.
func (d *policyDecoder) policyKey(p *Policy, k, v *yaml.Node) (bool, error) {
	if kind(k) != "a text" {
		return false, nil
	}
	var err error
	switch k.Value {
	case keyTransitions:
		p.Rules, err = d.rules(k, v)
	case keyModel:
		p.Model, p.Fallbacks, err = d.models(k, v)
	case keyMCP:
		p.MCP, err = d.decodeMCP(k, v)
	case keyEffort:
		p.Effort, err = d.str(k, v)
		if err == nil && p.Effort != "" && !slices.Contains(efforts, p.Effort) {
			d.warnf("effort %q is not one of %s; passed on as written", p.Effort, strings.Join(efforts, ", "))
		}
	case keyForceImplicit:
		p.ForceImplicit, err = d.boolean(k, v)
	case keyStepTimeout:
		p.StepTimeout, err = d.duration(k, v)
	case keyTimeout:
		p.Timeout, err = d.duration(k, v)
	case keyMaxVisits:
		p.MaxVisits, err = d.visits(k, v)
	case keyOnMaxVisits:
		p.OnMaxVisits, err = d.fallback(k, v)
	case keyAllowed:
		p.AllowedTools, err = d.toolRules(k, v)
	case keyDisallowed:
		p.DisallowedTools, err = d.toolRules(k, v)
	case keyMaxTurns, keyLoopWarn, keyLoopStop:
		var n *int
		if n, err = d.count(k, v); err == nil {
			p.setLimit(k.Value, n)
		}
	case keyCycleCheck:
		var on bool
		if on, err = d.boolean(k, v); err == nil && kind(v) != "empty" {
			p.CycleCheck = &on
		}
	case keyPermission:
		if vk := kind(v); vk != "a text" && vk != "empty" {
			return true, d.errorAt(k, "%s must be one of %s, not %s", keyPermission, strings.Join(permission.Modes, ", "), vk)
		}
		p.PermissionMode, err = d.str(k, v)
		if err == nil && p.PermissionMode != "" {
			if perr := permission.CheckMode(p.PermissionMode); perr != nil {
				err = d.errorAt(v, "%s: %v%s", keyPermission, perr, didYouMean(p.PermissionMode, permission.Modes))
			}
		}
	case keyOnConflict:
		p.OnConflict, err = d.str(k, v)
	default:
		return false, nil
	}
	return true, err
}

// checkImplicit refuses force_implicit (written at key) on a policy that
// has no implicit transition.
func (d *policyDecoder) checkImplicit(p Policy, key *yaml.Node) error {
	if !p.ForceImplicit {
		return nil
	}
	if _, ok := p.Implicit(); ok {
		return nil
	}
	return d.errorAt(key, "force_implicit needs exactly one allowed transition that fixes everything (a target, plus return for call and function, next for fork, or a payload for result)")
}

// rules decodes allowed_transitions, whose key is k.
func (d *policyDecoder) rules(k, v *yaml.Node) ([]Rule, error) {
	switch {
	case kind(v) == "empty" || v.Kind == yaml.SequenceNode && len(v.Content) == 0:
		return nil, d.errorAt(k, "%s is empty; list at least one transition or remove the key", keyTransitions)
	case v.Kind != yaml.SequenceNode:
		return nil, d.errorAt(k, "%s must be a list of entries like { tag: goto, target: NEXT.md }", keyTransitions)
	}
	rules := make([]Rule, 0, len(v.Content))
	for i, item := range v.Content {
		r, err := decodeRule(resolved(item))
		if err != nil {
			return nil, d.errorAt(item, "%s entry %d: %v", keyTransitions, i+1, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// models decodes a model or a list of models, the first tried first: a
// string ("opus"; "opus,sonnet" is a list too, as --model takes it) or a
// YAML list. An empty value means unset; an empty list is an error.
func (d *policyDecoder) models(k, v *yaml.Node) (string, []string, error) {
	var items []*yaml.Node
	switch kind(v) {
	case "empty":
		return "", nil, nil
	case "a text":
		items = []*yaml.Node{v}
	case "a list":
		items = v.Content
	default:
		return "", nil, d.errorAt(k, "%s must be a model like sonnet, or a list of models like [opus, sonnet], not %s", k.Value, kind(v))
	}
	var list []string
	for i, item := range items {
		item = resolved(item)
		if kind(item) != "a text" {
			return "", nil, d.errorAt(item, "%s item %d must be a model name like sonnet, not %s (quote it)", k.Value, i+1, kind(item))
		}
		for m := range strings.SplitSeq(item.Value, ",") {
			if m = strings.TrimSpace(m); m == "" {
				return "", nil, d.errorAt(item, "%s has an empty model name; write models like [opus, sonnet]", k.Value)
			}
			if !slices.Contains(list, m) {
				list = append(list, m)
			}
		}
	}
	if len(list) == 0 {
		return "", nil, d.errorAt(k, "%s is an empty list; name at least one model, like [opus, sonnet], or remove the key", k.Value)
	}
	if len(list) == 1 {
		return list[0], nil, nil
	}
	return list[0], list[1:], nil
}

// str decodes a string value; an empty value means unset.
func (d *policyDecoder) str(k, v *yaml.Node) (string, error) {
	switch kind(v) {
	case "empty":
		return "", nil
	case "a text":
		return v.Value, nil
	}
	return "", d.errorAt(k, "%s must be a string (quote it)", k.Value)
}

// toolRules decodes a list of tool rules: a YAML list of strings, or one
// string that claude's way of splitting turns into a list
// (permission.Split). An empty value means unset. Each rule is checked
// (permission.CheckRule): a malformed rule would not limit what was meant.
func (d *policyDecoder) toolRules(k, v *yaml.Node) ([]string, error) {
	var items []*yaml.Node
	switch kind(v) {
	case "empty":
		return nil, nil
	case "a text":
		items = []*yaml.Node{v}
	case "a list":
		items = v.Content
	default:
		return nil, d.errorAt(k, "%s must be a list of tool rules like [Read, \"Bash(git log:*)\"], or one string of them, not %s", k.Value, kind(v))
	}
	var rules []string
	for i, item := range items {
		item = resolved(item)
		if kind(item) != "a text" {
			return nil, d.errorAt(item, "%s item %d must be a string like Read or \"Bash(git log:*)\", not %s (quote it)", k.Value, i+1, kind(item))
		}
		if strings.TrimSpace(item.Value) == "" {
			return nil, d.errorAt(item, "%s item %d is empty; name a tool, like Read or \"Bash(git log:*)\"", k.Value, i+1)
		}
		split, err := permission.Split(item.Value)
		if err != nil {
			return nil, d.errorAt(item, "%s: %v", k.Value, err)
		}
		for _, r := range split {
			if err := permission.CheckRule(r); err != nil {
				return nil, d.errorAt(item, "%s: %v", k.Value, err)
			}
		}
		rules = append(rules, split...)
	}
	return rules, nil
}

// didYouMean returns " (did you mean X?)" for the value of known nearest
// to v, or "" when none is near.
func didYouMean(v string, known []string) string {
	if s := spelling.Suggest(v, known); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}

// boolean decodes a true/false value; an empty value means false.
func (d *policyDecoder) boolean(k, v *yaml.Node) (bool, error) {
	switch kind(v) {
	case "empty":
		return false, nil
	case "a boolean":
		return truth(v), nil
	}
	return false, d.errorAt(k, "%s must be true or false", k.Value)
}

func (d *policyDecoder) warnf(format string, args ...any) {
	d.warnings = append(d.warnings, d.name+": "+fmt.Sprintf(format, args...))
}

// errorAt returns an error naming the file and the place of node n (nil:
// the file alone).
func (d *policyDecoder) errorAt(n *yaml.Node, format string, args ...any) error {
	if n == nil || n.Line <= 0 {
		return d.errorf(0, format, args...)
	}
	if d.cols {
		return fmt.Errorf("%s:%d:%d: %s", d.name, d.openLine+n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	return d.errorf(n.Line, format, args...)
}

// errorf returns an error naming the file and, when yamlLine (a line of the
// frontmatter) is known (> 0), the line in the file.
func (d *policyDecoder) errorf(yamlLine int, format string, args ...any) error {
	if yamlLine > 0 {
		return fmt.Errorf("%s:%d: %s", d.name, d.openLine+yamlLine, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s", d.name, fmt.Sprintf(format, args...))
}

// duration decodes a duration of at least 0: a Go duration ("90s", "30m",
// "2h") or a number of seconds. 0 means no limit.
func (d *policyDecoder) duration(k, v *yaml.Node) (*time.Duration, error) {
	key := k.Value
	bad := func() (*time.Duration, error) {
		return nil, d.errorAt(k, "%s must be a duration like \"30m\" or \"2h\", or a number of seconds (0 for none), not %q", key, v.Value)
	}
	vk := kind(v)
	if vk != "a number" && vk != "a text" {
		return bad()
	}
	var dur time.Duration
	if secs, err := strconv.ParseFloat(v.Value, 64); err == nil && vk == "a number" {
		if secs < 0 || secs > float64(math.MaxInt64/int64(time.Second)) {
			return bad()
		}
		dur = time.Duration(secs * float64(time.Second))
	} else if dur, err = time.ParseDuration(v.Value); err != nil || dur < 0 {
		return bad()
	}
	return &dur, nil
}
