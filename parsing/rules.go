package parsing

import (
	"fmt"
	"slices"
	"strings"
)

// tagSpec is what one tag takes (protocol §5.1, §14, §15, §16).
type tagSpec struct {
	// keys are the attributes the tag takes, in the order messages list them.
	keys []string
	// required is an attribute the tag cannot go without, if any.
	required string
	// vars is set when every other attribute is a template variable.
	vars bool
}

// specs holds the attribute rules of every tag.
var specs = map[string]tagSpec{
	Goto:             {keys: []string{"input"}},
	Reset:            {keys: []string{"input", "cd", "task"}},
	Call:             {keys: []string{"return", "input", "workspace"}, required: "return"},
	Function:         {keys: []string{"return", "input", "workspace"}, required: "return"},
	Fork:             {keys: []string{"next", "cd", "input", "task", "workspace"}, vars: true},
	Result:           {},
	Ask:              {keys: []string{"next", "timeout", "timeout_next"}, required: "next"},
	CallWorkflow:     {keys: []string{"return", "input", "workspace"}, required: "return"},
	FunctionWorkflow: {keys: []string{"return", "input", "cd", "workspace"}, required: "return"},
	ForkWorkflow:     {keys: []string{"next", "cd", "input", "task", "workspace"}, vars: true},
	ResetWorkflow:    {keys: []string{"input", "cd", "task"}},
}

// allowedOn says where a protocol attribute may go, for error messages:
// "allowed on <reset> and <fork>", or "allowed on every tag but <result>"
// when that is shorter. It returns "" for a key no tag takes.
func allowedOn(key string) string {
	var where, not []string
	for _, name := range Names {
		if slices.Contains(specs[name].keys, key) {
			where = append(where, "<"+name+">")
		} else {
			not = append(not, "<"+name+">")
		}
	}
	switch {
	case len(where) == 0:
		return ""
	case len(not) < len(where):
		return "allowed on every tag but " + andList(not)
	}
	return "only allowed on " + andList(where)
}

// andList joins words as "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// StateAttr reports whether the attribute key of a tag name names a state
// of the emitting agent's scope, like a target does: return on call,
// function, call-workflow and function-workflow; next on fork,
// fork-workflow and ask; timeout_next on ask. On a fork, return is a
// template variable like any other.
func StateAttr(name, key string) bool {
	switch key {
	case "return":
		return name == Call || name == Function || name == CallWorkflow || name == FunctionWorkflow
	case "next":
		return name == Fork || name == ForkWorkflow || name == Ask
	case "timeout_next":
		return name == Ask
	}
	return false
}

// ignoredOnAsk reports whether key is a file attachment of an ask, which
// raymond ignores for now (§15): the ask is text only.
func ignoredOnAsk(key string) bool {
	return key == "display_files" || strings.HasPrefix(key, "upload_")
}

// Warnings returns what a tag holds that raymond ignores rather than
// refuses, one message each: file attachments on an ask (§15), and an
// ask's timeout_next without a timeout, which never applies. A caller that
// gives an ask a timeout from elsewhere (a policy entry, §6.5) adds it to
// the tag before asking.
func Warnings(t Tag) []string {
	if t.Name != Ask {
		return nil
	}
	var out []string
	for _, a := range t.Attrs {
		if ignoredOnAsk(a.Key) {
			out = append(out, fmt.Sprintf("<ask> attribute %s ignored: an ask is text only for now", a.Key))
		}
	}
	if _, ok := t.Attr("timeout_next"); ok {
		if _, ok := t.Attr("timeout"); !ok {
			out = append(out, "<ask> timeout_next ignored: without a timeout the ask waits until it is answered")
		}
	}
	return out
}

// CheckAttr checks one attribute of the tag name the way Parse does: the
// tag takes key (or, on fork and fork-workflow, key is a variable whose
// name is not reserved), task and timeout have a value the tag accepts,
// and the value holds no NUL byte. The error is an *Error of kind
// Malformed. It does not check that a state name is safe (ValidTarget).
func CheckAttr(name, key, value string) error {
	if _, known := specs[name]; !known {
		return &Error{Kind: Malformed, Msg: fmt.Sprintf("%q is not a transition tag", name)}
	}
	if msg := attrProblem(name, key, value); msg != "" {
		return &Error{Kind: Malformed, Msg: msg}
	}
	if strings.IndexByte(value, 0) >= 0 {
		return &Error{Kind: Malformed, Msg: nulMsg(key, name)}
	}
	return nil
}

// attrProblem says what is wrong with the attribute key="value" on the tag
// name, or returns "" when nothing is.
func attrProblem(name, key, value string) string {
	spec := specs[name]
	switch {
	case name == Ask && key == "cd":
		return "<ask> takes no cd: the agent waits for the answer where it is"
	case name == Ask && key == "input":
		return "<ask> takes no input: the answer becomes {{input}} of the next state"
	case name == Ask && key == "task":
		return "<ask> takes no task: the agent keeps its task folder"
	case name == Ask && ignoredOnAsk(key):
		return "" // ignored, with a warning (Warnings)
	case name == CallWorkflow && key == "cd":
		return "cd is not allowed on <call-workflow>: its first step branches the caller's session, " +
			"which must run in the folder where it was made; use <function-workflow> to start in another folder"
	}
	if slices.Contains(spec.keys, key) {
		switch {
		case key == "task" && !spec.vars && value != "new":
			return fmt.Sprintf("task=%q is not allowed on <%s>: it takes only task=\"new\", for a fresh task folder", value, name)
		case key == "workspace" && value != "new" && value != "shared" && Forks(name):
			return fmt.Sprintf("workspace=%q is not allowed on <%s>: it takes workspace=\"new\" (a worktree of its own, the default) or workspace=\"shared\" (its parent's)", value, name)
		case key == "workspace" && value != "new" && value != "shared":
			return fmt.Sprintf("workspace=%q is not allowed on <%s>: it takes workspace=\"shared\" (the caller's, the default) or workspace=\"new\" (a worktree of its own)", value, name)
		case key == "timeout":
			if _, err := ParseTimeout(value); err != nil {
				return fmt.Sprintf("the timeout of <%s> is wrong: %v", name, err)
			}
		}
		return ""
	}
	if spec.vars {
		if why := reservedVar(key); why != "" {
			return fmt.Sprintf("%s is a reserved name (%s), so a <%s> cannot set it; give the variable another name", key, why, name)
		}
		return ""
	}
	switch where := allowedOn(key); {
	case where != "":
		return fmt.Sprintf("%s is %s, not on <%s>", key, where, name)
	case len(spec.keys) == 0:
		return fmt.Sprintf("<%s> takes no attributes, but has %s", name, key)
	}
	return fmt.Sprintf("<%s> has no attribute %s; it takes only %s", name, key, andList(spec.keys))
}

// builtinVars are the template values raymond sets itself (protocol §7):
// input is an attribute of its own, the others cannot be fork variables.
var builtinVars = []string{"run_id", "workflow_id", "agent_id", "state", "result", "task_folder", "ask_id", "merge_conflicts"}

// reservedVar says why a fork may not set the variable key, or returns ""
// when it may. A fork variable that took a built-in's name would change
// what {{run_id}}, {{agent_id}} or {{state}} mean in the new agent's
// prompt. Names a script's environment keeps (PATH, RAYMOND_…) are fine
// here: they are template variables like any other, and only left out of a
// script's environment, with a warning (protocol §11.3). Names are
// case-sensitive, as placeholders are.
func reservedVar(key string) string {
	if slices.Contains(builtinVars, key) {
		return "{{" + key + "}} is set by raymond"
	}
	return ""
}

// checkAttrs applies the attribute rules of t's tag (attrProblem) to each
// of its attributes (Malformed), then checks that it has the attribute it
// needs (MissingAttr).
func checkAttrs(t Tag) *Error {
	for _, a := range t.Attrs {
		if msg := attrProblem(t.Name, a.Key, a.Value); msg != "" {
			return &Error{Kind: Malformed, Tag: t.Raw, Msg: msg}
		}
	}
	req := specs[t.Name].required
	if req == "" {
		return nil
	}
	if _, ok := t.Attr(req); ok {
		return nil
	}
	if t.Name == Ask {
		return &Error{Kind: MissingAttr, Tag: t.Raw, Msg: fmt.Sprintf(
			"<ask> needs a next attribute naming the state to continue at once answered, as in <ask next=\"NEXT\">%s</ask>",
			nonEmpty(short(t.Payload), "QUESTION"))}
	}
	return &Error{Kind: MissingAttr, Tag: t.Raw, Msg: fmt.Sprintf(
		"<%s> needs a return attribute naming the state to continue at when it returns, as in <%s return=\"NEXT\">%s</%s>",
		t.Name, t.Name, nonEmpty(t.Target, "TARGET"), t.Name)}
}

// checkNames applies path safety to the target of t and to the values of its
// state attributes (StateAttr).
func checkNames(t Tag) *Error {
	switch {
	case t.Name == Result:
	case t.Name == Ask:
		if t.Payload == "" {
			return &Error{Kind: Malformed, Tag: t.Raw, Msg: fmt.Sprintf(
				"%s has no question; put the question for the person between <ask …> and </ask>", short(t.Raw))}
		}
	case CrossWorkflow(t.Name):
		switch kind, why := specifierProblem(t.Target); kind {
		case 0:
		case EmptyTarget:
			return &Error{Kind: kind, Tag: t.Raw, Msg: fmt.Sprintf(
				"%s names no workflow; put a workflow specifier (like ../review or ../review/CHECK) between <%s> and </%s>", short(t.Raw), t.Name, t.Name)}
		default:
			return &Error{Kind: kind, Tag: t.Raw, Msg: fmt.Sprintf(
				"the workflow specifier %q of %s %s", t.Target, short(t.Raw), why)}
		}
	default:
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
			return &Error{Kind: Malformed, Tag: t.Raw, Msg: nulMsg(a.Key, t.Name)}
		}
	}
	if strings.IndexByte(t.Payload, 0) >= 0 {
		what := "payload"
		if t.Name == Ask {
			what = "question"
		}
		return &Error{Kind: Malformed, Tag: t.Raw, Msg: fmt.Sprintf(
			"the %s of <%s> holds a NUL byte, which cannot be passed on to a prompt; write it without one", what, t.Name)}
	}
	return nil
}

// nulMsg is the message about a NUL byte in the attribute key of <name>.
func nulMsg(key, name string) string {
	return fmt.Sprintf("the %s attribute of <%s> holds a NUL byte, which cannot be passed on to a prompt; write it without one", key, name)
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
