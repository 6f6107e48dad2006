package analysis

import (
	"fmt"
	"strings"
)

// htmlStep is one step of the report's step list: a line that opens onto
// its meta data, prompt, stream and answer.
type htmlStep struct {
	Name, Anchor string
	Agent        string
	Class        string // the outcome's colour, as in the timeline
	Outcome      string
	Critical     bool
	Problem      bool // failed, was retried or canceled, or its answer was refused
	Duration     string
	Cost         string
	Transition   string
	Error        string
	Meta         []htmlFact
	Files        string
	// Detail is nil when the step's files were not loaded.
	Detail *Detail
	Items  []htmlItem
}

// htmlItem is one thing the model said or did.
type htmlItem struct {
	Class, Label string
	Text, Tool   string
	Cut          bool
}

// htmlStepRef links to a step from elsewhere in the report.
type htmlStepRef struct {
	Name, Anchor, Class, Label string
}

func htmlStepOf(s *Step, d *Detail, anchors map[string]string, critical bool) *htmlStep {
	hs := &htmlStep{
		Name: s.Name, Anchor: anchors[s.Name],
		Agent: s.Agent,
		Class: htmlStepClass(s), Outcome: htmlStepOutcome(s),
		Critical: critical,
		Cost:     htmlMoney(s.CostUSD),
		Error:    s.Error,
		Detail:   d,
	}
	hs.Problem = hs.Class != "ok" && hs.Class != "open"
	if s.Ended.IsZero() {
		hs.Duration = "not ended"
	} else {
		hs.Duration = htmlDuration(s.DurationMS)
	}
	if s.Tag != "" {
		hs.Transition = htmlTransition(s.Tag, s.Target)
	}
	hs.Meta = htmlStepMeta(s, critical)
	var files []string
	for _, f := range []struct {
		has  bool
		name string
	}{{s.HasPrompt, ".prompt.md"}, {s.HasLines, ".jsonl"}, {s.HasMeta, ".meta.json"}} {
		if f.has {
			files = append(files, s.Name+f.name)
		} else {
			files = append(files, s.Name+f.name+" (missing)")
		}
	}
	hs.Files = strings.Join(files, ", ")
	if d != nil {
		for _, it := range d.Items {
			hs.Items = append(hs.Items, htmlItemOf(it))
		}
	}
	return hs
}

// htmlStepMeta is what is known about a step, as label/value lines.
func htmlStepMeta(s *Step, critical bool) []htmlFact {
	var f []htmlFact
	add := func(label, value string) {
		if value != "" {
			f = append(f, htmlFact{Label: label, Value: value})
		}
	}
	add("Agent", s.Agent)
	add("State", s.State)
	attempt := fmt.Sprintf("step %d of the agent, attempt %d", s.Seq, s.Attempt)
	if s.Reminder {
		attempt += ", a reminder"
	}
	add("Step", attempt)
	add("Outcome", htmlStepOutcome(s))
	add("Started", htmlClock(s.Started))
	if !s.Ended.IsZero() {
		add("Ended", fmt.Sprintf("%s (%s)", htmlClock(s.Ended), htmlDuration(s.DurationMS)))
	}
	add("Cost", htmlMoney(s.CostUSD))
	t := s.Tokens
	add("Tokens", fmt.Sprintf("%s in, %s out, %s cache read, %s cache write",
		htmlTokens(t.Input), htmlTokens(t.Output), htmlTokens(t.CacheRead), htmlTokens(t.CacheCreation)))
	session := s.Session
	switch {
	case s.SessionMode != "" && s.ResumedSession != "":
		session += fmt.Sprintf(" (%s of %s)", s.SessionMode, s.ResumedSession)
	case s.SessionMode != "":
		session += fmt.Sprintf(" (%s)", s.SessionMode)
	}
	add("Session", strings.TrimSpace(session))
	add("Model", s.Model)
	add("Runner", s.Runner)
	if s.Tag != "" {
		add("Transition", htmlTransition(s.Tag, s.Target))
	}
	if critical {
		add("Critical path", "yes: this step is on the chain that set the wall time")
	}
	return f
}

func htmlItemOf(it Item) htmlItem {
	h := htmlItem{Text: it.Text, Tool: it.Tool, Cut: it.Cut}
	switch it.Kind {
	case "text":
		h.Class, h.Label = "text", "said"
	case "tool":
		h.Class, h.Label = "tool", "tool"
	case "tool_result":
		h.Class, h.Label = "result", "result"
		if it.IsErr {
			h.Class, h.Label = "result err", "tool error"
		}
	case "error":
		h.Class, h.Label = "error", "error"
	default:
		h.Class, h.Label = "note", it.Kind
	}
	return h
}

// htmlStepClass is the colour of a step's bar and badge: ok, reminded,
// fail, limit, canceled, or open for a step that has not ended.
func htmlStepClass(s *Step) string {
	switch {
	case s.Outcome == "":
		return "open"
	case s.Outcome == "usage limit":
		return "limit"
	case s.Outcome == "canceled" || s.Outcome == "not started":
		return "canceled"
	case s.Outcome != "success" || s.Retried:
		return "fail"
	case s.Reminded:
		return "reminded"
	}
	return "ok"
}

// htmlStepOutcome says how a step ended, in words.
func htmlStepOutcome(s *Step) string {
	switch {
	case s.Outcome == "":
		return "not ended"
	case s.Outcome == "success" && s.Reminded:
		return "success, but the answer was refused; a reminder followed"
	case s.Retried:
		return s.Outcome + "; retried"
	case s.Outcome == "usage limit":
		return "usage limit; the run waited, then ran the step again"
	}
	return s.Outcome
}

// htmlTransition is a transition in words: "call → SURVEY.md".
func htmlTransition(tag, target string) string {
	switch {
	case target != "":
		return tag + " → " + target
	case tag == "result":
		return "result: the agent ended"
	}
	return tag
}

// htmlRef links to the step named name (s may be nil when the run does
// not list it).
func htmlRef(name string, s *Step, anchors map[string]string) htmlStepRef {
	ref := htmlStepRef{Name: name, Anchor: anchors[name], Label: name}
	if s != nil {
		ref.Class = htmlStepClass(s)
	}
	return ref
}

// htmlAnchors gives every step an element id, "step-" and its name made
// safe, and every agent one, "agent-" and its id made safe; unique even
// when two names only differ in unsafe characters.
func htmlAnchors(r *Run) map[string]string {
	anchors := make(map[string]string, len(r.Steps)+len(r.Agents))
	taken := make(map[string]bool, len(r.Steps)+len(r.Agents))
	add := func(key, base string) {
		if _, ok := anchors[key]; ok {
			return
		}
		id := base
		for n := 2; taken[id]; n++ {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		anchors[key], taken[id] = id, true
	}
	for _, s := range r.Steps {
		add(s.Name, "step-"+htmlAnchorPart(s.Name))
	}
	for _, a := range r.Agents {
		add(htmlAgentKey(a.ID), "agent-"+htmlAnchorPart(a.ID))
	}
	return anchors
}

// htmlAgentKey is the key of an agent's anchor in the map of htmlAnchors,
// apart from the steps' names.
func htmlAgentKey(id string) string { return "\x00agent " + id }

// htmlAnchorPart keeps the letters, digits, '_', '-' and '.' of s and
// replaces the rest, so that it can go in an id and a #fragment as is.
func htmlAnchorPart(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}
