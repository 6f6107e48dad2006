package project

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"text/template"
)

// HookKeys are the keys of a [[serve.hook]] entry.
var HookKeys = []string{"name", "workflow", "secret_file", "filter", "input", "budget"}

// Hook is one [[serve.hook]] entry: POST /api/v1/hooks/NAME, signed with
// the secret in SecretFile, launches Workflow when the payload passes
// Filter, with Input made from the payload.
type Hook struct {
	// Name is the last part of the hook's path; letters, digits, - and _.
	Name string
	// Workflow is the id of the workflow in the daemon's catalog.
	Workflow string
	// SecretFile holds the shared secret, relative to the project folder
	// unless absolute.
	SecretFile string
	// Filter are the conditions the payload must meet, all of them.
	Filter []Condition
	// Input is the template of the run's input over the payload; nil for
	// no input.
	Input *template.Template
	// InputText is Input's text, as written.
	InputText string
	// Budget is the run's budget in USD; nil for the workflow's or the
	// config's.
	Budget *float64
	// Line is the line of its workflow key, 0 when unknown.
	Line int
}

// Condition is one condition of a hook's filter: the values at Path in the
// JSON payload compared with Value by Op.
type Condition struct {
	// Path is dotted keys; * stands for every element of an array (or
	// every value of an object).
	Path []string
	// Op is "==", "!=" or "contains".
	Op string
	// Value is what the payload's value is compared with, as text.
	Value string
	// Text is the condition as written.
	Text string
}

var hookNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// conditionRE reads "path OP value".
var conditionRE = regexp.MustCompile(`^\s*([A-Za-z0-9_*-]+(?:\.[A-Za-z0-9_*-]+)*)\s+(==|!=|contains)\s+(.*?)\s*$`)

// ParseCondition reads one condition of a filter: `path == value`,
// `path != value` or `path contains value`, where path is dotted keys of
// the JSON payload (issue.labels.*.name) and value is a word or a JSON
// string ("two words").
func ParseCondition(text string) (Condition, error) {
	m := conditionRE.FindStringSubmatch(text)
	if m == nil {
		return Condition{}, fmt.Errorf("filter %q is not a condition: write PATH == VALUE, PATH != VALUE or PATH contains VALUE, such as \"action == labeled\" or \"issue.labels.*.name == raymond\"", text)
	}
	value := m[3]
	if strings.HasPrefix(value, `"`) {
		if err := json.Unmarshal([]byte(value), &value); err != nil {
			return Condition{}, fmt.Errorf("filter %q: the value %s is not a well-formed JSON string", text, m[3])
		}
	}
	if value == "" {
		return Condition{}, fmt.Errorf("filter %q has no value: write \"\" for the empty text", text)
	}
	return Condition{Path: strings.Split(m[1], "."), Op: m[2], Value: value, Text: text}, nil
}

// Match says whether payload (decoded JSON, numbers as json.Number) meets
// the condition: for ==, one of the values at its path is Value; for
// contains, one of them is a text that contains Value or an array that
// holds it; for !=, none of them is Value (a path with no value passes).
func (c Condition) Match(payload any) bool {
	values := lookup(payload, c.Path)
	switch c.Op {
	case "!=":
		for _, v := range values {
			if text, ok := scalarText(v); ok && text == c.Value {
				return false
			}
		}
		return true
	case "contains":
		for _, v := range values {
			if text, ok := v.(string); ok && strings.Contains(text, c.Value) {
				return true
			}
			if list, ok := v.([]any); ok {
				for _, e := range list {
					if text, ok := scalarText(e); ok && text == c.Value {
						return true
					}
				}
			}
		}
		return false
	}
	for _, v := range values {
		if text, ok := scalarText(v); ok && text == c.Value {
			return true
		}
	}
	return false
}

// lookup returns the values at path in v.
func lookup(v any, path []string) []any {
	if len(path) == 0 {
		return []any{v}
	}
	var out []any
	switch t := v.(type) {
	case map[string]any:
		if path[0] == "*" {
			for _, e := range t {
				out = append(out, lookup(e, path[1:])...)
			}
		} else if e, ok := t[path[0]]; ok {
			out = lookup(e, path[1:])
		}
	case []any:
		if path[0] == "*" {
			for _, e := range t {
				out = append(out, lookup(e, path[1:])...)
			}
		}
	}
	return out
}

// scalarText is a JSON scalar as a filter compares it: a string as is, a
// number as written, true, false, null.
func scalarText(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		return fmt.Sprint(t), true
	case nil:
		return "null", true
	}
	return "", false
}

// ParseInputTemplate reads a hook's input template: Go's text/template
// over the payload ({{.issue.title}}). A key the payload lacks is an error
// when the template runs.
func ParseInputTemplate(text string) (*template.Template, error) {
	t, err := template.New("input").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("input is not a valid template: %v", strings.TrimPrefix(err.Error(), "template: "))
	}
	return t, nil
}

// setHooks reads [[serve.hook]]: an array of tables.
func (sv *Serve) setHooks(v any) error {
	list, ok := v.([]map[string]any)
	if !ok {
		return &keyError{path: []string{"hook"}, err: fmt.Errorf("serve.hook must be an array of tables ([[serve.hook]]), not %s", tomlType(v))}
	}
	for i, table := range list {
		var h Hook
		for _, key := range sortedKeys(table) {
			if err := h.set(key, table[key]); err != nil {
				return &keyError{path: []string{"hook", fmt.Sprint(i), key}, err: err}
			}
		}
		at := []string{"hook", fmt.Sprint(i)}
		switch {
		case h.Name == "":
			return &keyError{path: at, err: fmt.Errorf("a [[serve.hook]] has no name: give one such as name = \"github\"; it is the last part of its address, /api/v1/hooks/NAME")}
		case h.Workflow == "":
			return &keyError{path: at, err: fmt.Errorf("[[serve.hook]] %q has no workflow: give the id of a workflow the daemon lists", h.Name)}
		case h.SecretFile == "":
			return &keyError{path: at, err: fmt.Errorf("[[serve.hook]] %q has no secret_file: every hook is signed; make one with: openssl rand -hex 32 > .raymond/hook-%s.secret && chmod 600 .raymond/hook-%s.secret", h.Name, h.Name, h.Name)}
		}
		for _, o := range sv.Hooks {
			if o.Name == h.Name {
				return &keyError{path: at, err: fmt.Errorf("two [[serve.hook]] are named %q: give each its own name", h.Name)}
			}
		}
		sv.Hooks = append(sv.Hooks, h)
	}
	return nil
}

// set stores one key of a [[serve.hook]] entry.
func (h *Hook) set(key string, v any) error {
	name := "serve.hook." + key
	switch key {
	case "name", "workflow", "secret_file", "input":
		p, err := tomlString(name, v)
		if err != nil {
			return err
		}
		switch key {
		case "name":
			if !hookNameRE.MatchString(*p) {
				return fmt.Errorf("serve.hook.name %q: give letters, digits, - and _ (at most 64), such as \"github\"", *p)
			}
			h.Name = *p
		case "workflow":
			h.Workflow = *p
		case "secret_file":
			h.SecretFile = *p
		case "input":
			t, err := ParseInputTemplate(*p)
			if err != nil {
				return fmt.Errorf("serve.hook.%v", err)
			}
			h.Input, h.InputText = t, *p
		}
	case "filter":
		var texts []string
		switch t := v.(type) {
		case string:
			texts = []string{t}
		case []any:
			for _, e := range t {
				s, ok := e.(string)
				if !ok {
					return fmt.Errorf("serve.hook.filter must hold conditions as strings, not %s", tomlType(e))
				}
				texts = append(texts, s)
			}
		default:
			return fmt.Errorf("serve.hook.filter must be a condition or an array of conditions, not %s", tomlType(v))
		}
		for _, text := range texts {
			c, err := ParseCondition(text)
			if err != nil {
				return fmt.Errorf("serve.hook.%v", err)
			}
			h.Filter = append(h.Filter, c)
		}
	case "budget":
		f, err := tomlNumber(name, v)
		if err == nil {
			err = CheckBudget(f)
		}
		if err != nil {
			return err
		}
		h.Budget = &f
	default:
		return unknownKey("serve.hook", key, HookKeys)
	}
	return nil
}
