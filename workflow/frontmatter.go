package workflow

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/adrg/frontmatter"
	"gopkg.in/yaml.v2"
)

// Frontmatter keys (§6).
const (
	keyTransitions   = "allowed_transitions"
	keyModel         = "model"
	keyEffort        = "effort"
	keyForceImplicit = "force_implicit"
)

// efforts are the values claude --effort knows.
var efforts = []string{"low", "medium", "high", "xhigh", "max"}

// matter is a state file split at its frontmatter.
type matter struct {
	yaml     []byte // the frontmatter between the delimiters; nil when there is none
	openLine int    // file line of the opening ---
	body     []byte
	bodyLine int // file line where body starts
}

// split separates content into its YAML frontmatter and its body. Only the
// YAML form (--- … ---) is recognised; like the frontmatter library, blank
// lines before the opening --- are allowed, and so is a UTF-8 byte order mark.
func split(name string, content []byte) (matter, error) {
	content = bytes.TrimPrefix(content, []byte("\ufeff"))
	openLine, opened := opening(content)
	var m matter
	// The library finds the frontmatter; decodePolicy decodes it, knowing
	// where it starts in the file.
	capture := func(data []byte, _ any) error {
		m.yaml = append([]byte{}, data...)
		return nil
	}
	format := frontmatter.NewFormat("---", "---", capture)
	body, err := frontmatter.Parse(bytes.NewReader(content), nil, format)
	if err != nil {
		return matter{}, fmt.Errorf("%s: read frontmatter: %w", name, err)
	}
	if opened && m.yaml == nil {
		return matter{}, fmt.Errorf("%s:%d: frontmatter opened with --- is never closed; add a line --- after it", name, openLine)
	}
	m.openLine = openLine
	m.body = body
	m.bodyLine = 1 + bytes.Count(content[:len(content)-len(body)], []byte("\n"))
	return m, nil
}

// opening reports whether content opens a frontmatter, and on which line:
// the first line that is not blank must be --- and end with a newline.
func opening(content []byte) (line int, ok bool) {
	for rest := content; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			return 0, false
		}
		line++
		trimmed := bytes.TrimSpace(rest[:i])
		rest = rest[i+1:]
		if len(trimmed) == 0 {
			continue
		}
		return line, string(trimmed) == "---"
	}
	return 0, false
}

// policyDecoder turns a frontmatter's YAML into a Policy. It knows the
// file's name and where the YAML starts, so messages point into the file.
type policyDecoder struct {
	name     string
	openLine int
	lines    []string
	warnings []string
}

// decodePolicy decodes the frontmatter of the state name.
func decodePolicy(name string, m matter) (Policy, []string, error) {
	d := &policyDecoder{name: name, openLine: m.openLine}
	for l := range strings.SplitSeq(string(m.yaml), "\n") {
		d.lines = append(d.lines, strings.TrimSuffix(l, "\r"))
	}
	var doc yaml.MapSlice
	if err := yaml.Unmarshal(m.yaml, &doc); err != nil {
		return Policy{}, nil, d.yamlError(err)
	}

	var p Policy
	seen := make(map[string]bool)
	for _, item := range doc {
		key, ok := item.Key.(string)
		if !ok {
			key = fmt.Sprint(item.Key)
		}
		if seen[key] {
			line := 0
			if lines := d.keyLines(key); len(lines) > 1 {
				line = lines[1]
			}
			return Policy{}, nil, d.errorf(line, "frontmatter key %q appears more than once", key)
		}
		seen[key] = true

		var err error
		switch {
		case !ok:
			d.warnf("unknown frontmatter key %q ignored", key)
		case key == keyTransitions:
			p.Rules, err = d.rules(item.Value)
		case key == keyModel:
			p.Model, err = d.str(key, item.Value)
		case key == keyEffort:
			p.Effort, err = d.str(key, item.Value)
			if err == nil && p.Effort != "" && !slices.Contains(efforts, p.Effort) {
				d.warnf("effort %q is not one of %s; passed on as written", p.Effort, strings.Join(efforts, ", "))
			}
		case key == keyForceImplicit:
			p.ForceImplicit, err = d.boolean(key, item.Value)
		default:
			d.warnf("unknown frontmatter key %q ignored", key)
		}
		if err != nil {
			return Policy{}, nil, err
		}
	}

	if p.ForceImplicit {
		if _, ok := p.Implicit(); !ok {
			return Policy{}, nil, d.errorf(d.keyLine(keyForceImplicit),
				"force_implicit needs exactly one allowed transition that fixes everything (a target, plus return for call and function, next for fork, or a payload for result)")
		}
	}
	return p, d.warnings, nil
}

// rules decodes allowed_transitions.
func (d *policyDecoder) rules(v any) ([]Rule, error) {
	line := d.keyLine(keyTransitions)
	items, ok := v.([]any)
	if !ok && v != nil {
		return nil, d.errorf(line, "%s must be a list of entries like { tag: goto, target: NEXT.md }", keyTransitions)
	}
	if len(items) == 0 {
		return nil, d.errorf(line, "%s is empty; list at least one transition or remove the key", keyTransitions)
	}
	lines := d.itemLines(line, len(items))
	rules := make([]Rule, 0, len(items))
	for i, item := range items {
		itemLine := line
		if lines != nil {
			itemLine = lines[i]
		}
		r, err := decodeRule(item)
		if err != nil {
			return nil, d.errorf(itemLine, "%s entry %d: %v", keyTransitions, i+1, err)
		}
		rules = append(rules, r)
	}
	return rules, nil
}

// str decodes a string value; an empty value means unset.
func (d *policyDecoder) str(key string, v any) (string, error) {
	switch v := v.(type) {
	case nil:
		return "", nil
	case string:
		return v, nil
	}
	return "", d.errorf(d.keyLine(key), "%s must be a string (quote it)", key)
}

// boolean decodes a true/false value; an empty value means false.
func (d *policyDecoder) boolean(key string, v any) (bool, error) {
	switch v := v.(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	}
	return false, d.errorf(d.keyLine(key), "%s must be true or false", key)
}

func (d *policyDecoder) warnf(format string, args ...any) {
	d.warnings = append(d.warnings, d.name+": "+fmt.Sprintf(format, args...))
}
