package parsing

import (
	"fmt"
	"slices"
	"strings"
)

// allowed lists the attributes each tag takes (protocol §5.1). A fork takes
// any attribute: besides next, cd and input, they are template variables.
var allowed = map[string][]string{
	Goto:     {"input"},
	Reset:    {"input", "cd"},
	Call:     {"return", "input"},
	Function: {"return", "input"},
	Result:   {},
}

// allowedOn says where each protocol attribute may go, for error messages.
var allowedOn = map[string]string{
	"input":  "<goto>, <reset>, <call>, <function> and <fork>",
	"cd":     "<reset> and <fork>",
	"return": "<call> and <function>",
	"next":   "<fork>",
}

// StateAttr reports whether the attribute key of a tag name names a state,
// like a target does: return on call and function, next on fork. On a fork,
// return is a template variable like any other.
func StateAttr(name, key string) bool {
	switch key {
	case "return":
		return name == Call || name == Function
	case "next":
		return name == Fork
	}
	return false
}

// builtinVars are the template values raymond sets itself (protocol §7):
// input is an attribute of its own, the others cannot be fork variables.
var builtinVars = []string{"run_id", "workflow_id", "agent_id", "state", "result", "task_folder", "ask_id"}

// envNames and envPrefixes are the names a script state's environment
// keeps for itself (protocol §11.3).
var (
	envNames    = []string{"PATH", "HOME", "SHELL", "USER", "PWD", "TMPDIR", "IFS", "ENV", "BASH_ENV", "CDPATH"}
	envPrefixes = []string{"RAYMOND_", "LD_", "DYLD_", "BASH_", "CLAUDE"}
)

// reservedVar says why a fork may not set the variable key, or returns ""
// when it may. A fork variable that took a built-in's name would change
// what {{run_id}}, {{agent_id}} or {{state}} mean in the new agent's
// prompt; one that took a reserved environment name would be dropped from
// a script's environment. Names are case-sensitive, as placeholders are.
func reservedVar(key string) string {
	if slices.Contains(builtinVars, key) {
		return "{{" + key + "}} is set by raymond"
	}
	if slices.Contains(envNames, key) {
		return "a script state's environment keeps its own " + key
	}
	for _, p := range envPrefixes {
		if strings.HasPrefix(key, p) {
			return "names starting with " + p + " are kept for a script state's environment"
		}
	}
	return ""
}

// checkAttrs applies the attribute rules of t's tag: every attribute must be
// one the tag takes, a fork variable must not have a reserved name
// (Malformed), and call and function need return (MissingAttr).
func checkAttrs(t Tag) *Error {
	if keys, ok := allowed[t.Name]; ok {
		for _, a := range t.Attrs {
			if slices.Contains(keys, a.Key) {
				continue
			}
			var msg string
			switch where, known := allowedOn[a.Key]; {
			case known:
				msg = fmt.Sprintf("%s is only allowed on %s, not on <%s>", a.Key, where, t.Name)
			case len(keys) == 0:
				msg = fmt.Sprintf("<%s> takes no attributes, but has %s", t.Name, a.Key)
			default:
				msg = fmt.Sprintf("<%s> has no attribute %s; it takes only %s", t.Name, a.Key, strings.Join(keys, " and "))
			}
			return &Error{Kind: Malformed, Tag: t.Raw, Msg: msg}
		}
	}
	if t.Name == Fork {
		for _, a := range t.Attrs {
			if why := reservedVar(a.Key); why != "" {
				return &Error{Kind: Malformed, Tag: t.Raw, Msg: fmt.Sprintf(
					"%s is a reserved name (%s), so a <fork> cannot set it; give the variable another name", a.Key, why)}
			}
		}
	}
	if t.Name == Call || t.Name == Function {
		if _, ok := t.Attr("return"); !ok {
			return &Error{Kind: MissingAttr, Tag: t.Raw, Msg: fmt.Sprintf(
				"<%s> needs a return attribute naming the state to continue at when it returns, as in <%s return=\"NEXT\">%s</%s>",
				t.Name, t.Name, nonEmpty(t.Target, "TARGET"), t.Name)}
		}
	}
	return nil
}

// checkNames applies path safety to the target of t and to the values of its
// state attributes (StateAttr).
func checkNames(t Tag) *Error {
	if t.Name != Result {
		switch kind, why := nameProblem(t.Target); kind {
		case 0:
		case EmptyTarget:
			return &Error{Kind: kind, Tag: t.Raw, Msg: fmt.Sprintf(
				"%s has no target; put the name of a state between <%s> and </%s>", short(t.Raw), t.Name, t.Name)}
		default:
			return &Error{Kind: kind, Tag: t.Raw, Msg: fmt.Sprintf(
				"the target %q of %s %s, but a target must be the bare name of a file in the workflow folder",
				t.Target, short(t.Raw), why)}
		}
	}
	for _, a := range t.Attrs {
		if !StateAttr(t.Name, a.Key) {
			continue
		}
		switch kind, why := nameProblem(a.Value); kind {
		case 0:
		case EmptyTarget:
			return &Error{Kind: kind, Tag: t.Raw, Msg: fmt.Sprintf(
				"the %s attribute of %s is empty; it must name a state", a.Key, short(t.Raw))}
		default:
			return &Error{Kind: kind, Tag: t.Raw, Msg: fmt.Sprintf(
				"%s=%q in %s %s, but it must be the bare name of a file in the workflow folder",
				a.Key, a.Value, short(t.Raw), why)}
		}
	}
	return nil
}

// checkNUL refuses a NUL byte in the values t passes on: its attributes
// (an input, a fork variable) and a result's payload. Such a value would
// reach a later prompt, and a NUL cannot be passed in a process's
// arguments: every start of that step would fail, and every resume again,
// since the value is kept in the run's pending step. Refused here, the
// answer is a protocol error of the step that wrote it, which can still
// be corrected (targets are refused by checkNames already).
func checkNUL(t Tag) *Error {
	for _, a := range t.Attrs {
		if strings.IndexByte(a.Value, 0) >= 0 {
			return &Error{Kind: Malformed, Tag: t.Raw, Msg: fmt.Sprintf(
				"the %s attribute of <%s> holds a NUL byte, which cannot be passed on to a prompt; write it without one", a.Key, t.Name)}
		}
	}
	if strings.IndexByte(t.Payload, 0) >= 0 {
		return &Error{Kind: Malformed, Tag: t.Raw, Msg: fmt.Sprintf(
			"the payload of <%s> holds a NUL byte, which cannot be passed on to a prompt; write it without one", t.Name)}
	}
	return nil
}

// trimStateAttrs trims the values of t's state attributes (StateAttr) in
// place: like a target, they name a state.
func trimStateAttrs(t *Tag) {
	for i, a := range t.Attrs {
		if StateAttr(t.Name, a.Key) {
			t.Attrs[i].Value = strings.TrimSpace(a.Value)
		}
	}
}

// nonEmpty returns s, or fallback when s is empty.
func nonEmpty(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
