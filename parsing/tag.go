package parsing

// Transition tag names.
const (
	Goto     = "goto"
	Reset    = "reset"
	Call     = "call"
	Function = "function"
	Fork     = "fork"
	Result   = "result"

	// Ask puts a question to a person (protocol §15); its body, the
	// question, is the tag's Payload.
	Ask = "ask"
	// The cross-workflow tags (protocol §14); their body, a workflow
	// specifier, is the tag's Target.
	CallWorkflow     = "call-workflow"
	FunctionWorkflow = "function-workflow"
	ForkWorkflow     = "fork-workflow"
	ResetWorkflow    = "reset-workflow"
)

// Names lists the transition tag names in the order the protocol gives them
// (§3.1).
var Names = []string{Goto, Reset, Call, Function, Fork, Result, Ask, CallWorkflow, FunctionWorkflow, ForkWorkflow, ResetWorkflow}

// CrossWorkflow reports whether name is one of the cross-workflow tags, whose
// body is a workflow specifier rather than a state's name.
func CrossWorkflow(name string) bool {
	switch name {
	case CallWorkflow, FunctionWorkflow, ForkWorkflow, ResetWorkflow:
		return true
	}
	return false
}

// Forks reports whether name starts a new agent: fork and fork-workflow,
// which may appear several at a time (§5.6) and take template variables.
func Forks(name string) bool { return name == Fork || name == ForkWorkflow }

// HasPayload reports whether the body of the tag name is a payload (the
// result of result, the question of ask) rather than a target.
func HasPayload(name string) bool { return name == Result || name == Ask }

// Tag is one transition tag found in a text.
type Tag struct {
	// Name is one of the transition tag names (Goto, Reset, …).
	Name string
	// Target is the trimmed body for every tag but result and ask: a bare
	// file name, possibly without extension, or for a cross-workflow tag a
	// workflow specifier (a path that may hold '/', '\' and "..").
	Target string
	// Payload is the body of a result tag (its payload) or of an ask tag
	// (its question), with surrounding whitespace trimmed.
	Payload string
	// Attrs holds every attribute, entity-decoded, in the order written.
	// Parse trims the values of the attributes that name states like a
	// target does (StateAttr); Tags leaves every value as written.
	Attrs []Attr
	// Offset is the byte offset of the tag's '<' in the text it was read from.
	Offset int
	// Raw is the tag exactly as written, from '<' to the end of its closing tag.
	Raw string
	// Scope and ScopeURL are set on a cross-workflow tag once its specifier
	// is resolved (workflow.Decide): the absolute path of the scope it
	// leads into (a folder, a YAML file, a zip archive) and, for a scope
	// downloaded from a pinned URL, that URL. Target is then the file name
	// of the first state in that scope.
	Scope, ScopeURL string
	// Quoted is true when the tag sits inside a fenced code block or an inline
	// code span. Quoted tags are only returned when the text has no unquoted
	// tag at all (see the package comment).
	Quoted bool
}

// Attr is one decoded attribute.
type Attr struct {
	Key   string
	Value string
}

// Attr returns the value of the attribute key and whether it was present.
func (t Tag) Attr(key string) (string, bool) {
	for _, a := range t.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// Vars returns the template variables of a fork or fork-workflow tag:
// every attribute except the reserved ones (next, cd, input, and task when
// it is a task rule, "new" or "inherit"). Nil for other tags or when there
// are none.
func (t Tag) Vars() map[string]string {
	if !Forks(t.Name) {
		return nil
	}
	var vars map[string]string
	for _, a := range t.Attrs {
		if forkReserved(a) {
			continue
		}
		if vars == nil {
			vars = make(map[string]string)
		}
		vars[a.Key] = a.Value
	}
	return vars
}

// Transition is what one step's output asks for: a single tag, or a fan-out of
// several forks plus where the parent continues.
type Transition struct {
	// Tag is the transition for the emitting agent. For a multi-fork it is a
	// synthetic goto to the common next state (or the accompanying <goto>).
	Tag Tag
	// Forks holds the fork and fork-workflow tags: one for a single fork,
	// several for a fan-out, none otherwise. For a single fork with next, Tag
	// is the fork itself.
	Forks []Tag
	// Warnings are things in the answer that were ignored rather than
	// refused (see Warnings); the caller shows them to the user.
	Warnings []string
}

// forkReserved reports whether the attribute a of a fork is one of its own
// rather than a template variable.
func forkReserved(a Attr) bool {
	switch a.Key {
	case "next", "cd", "input", "workspace":
		return true
	case "task":
		return TaskRule(a.Value)
	}
	return false
}

// TaskRule reports whether value, given as task on a fork or fork-workflow,
// says which task folder the new agent uses (§16) rather than being a
// template variable.
func TaskRule(value string) bool { return value == "new" || value == "inherit" }
