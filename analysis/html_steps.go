package analysis

import (
	"fmt"
	"strings"
	"unicode/utf8"
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
	// Detail is nil when the step's files were not loaded; DetailError
	// says why when reading them failed.
	Detail      *Detail
	DetailError string
	// Prompt, Items and Answer are the Detail's, capped; the Cut fields
	// say what was left out.
	Prompt, PromptCut string
	Items             []htmlItem
	ItemsCut          string
	Answer, AnswerCut string
	// Ask is the ask the step's answer made, nil for none.
	Ask *htmlAsk
	// Script is set for a script step, which shows Stdout and Stderr
	// (capped) instead of a prompt, a stream and an answer.
	Script            bool
	Stdout, StdoutCut string
	Stderr, StderrCut string
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

// htmlStepOf is a step as the report shows it; limit caps the bytes of
// its prompt, of its answer and of its items, each.
func htmlStepOf(s *Step, d *Detail, anchors map[string]string, critical bool, limit int) *htmlStep {
	hs := &htmlStep{
		Name: s.Name, Anchor: anchors[s.Name],
		Agent: s.Agent,
		Class: htmlStepClass(s), Outcome: htmlStepOutcome(s),
		Critical: critical,
		Cost:     htmlMoney(s.CostUSD),
		Error:    s.Error,
		Detail:   d,
	}
	hs.Problem = htmlProblem(s)
	switch {
	case s.Ended.IsZero() && s.CutShort:
		hs.Duration = "cut short"
	case s.Ended.IsZero():
		hs.Duration = "not ended"
	default:
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
		if s.ranScript() && f.name != ".meta.json" {
			continue // a script step has none of those
		}
		if f.has {
			files = append(files, s.Name+f.name)
		} else {
			files = append(files, s.Name+f.name+" (missing)")
		}
	}
	if sr := s.Script; s.ranScript() {
		hs.Script = true
		for _, f := range []struct {
			has  bool
			name string
		}{{sr.HasStdout, stdoutSuffix}, {sr.HasStderr, stderrSuffix}} {
			if f.has {
				files = append(files, s.Name+f.name)
			} else {
				files = append(files, s.Name+f.name+" (missing)")
			}
		}
		if d != nil {
			hs.Stdout, hs.StdoutCut = htmlCapText(d.Stdout, limit, s.Name+stdoutSuffix)
			hs.Stderr, hs.StderrCut = htmlCapText(d.Stderr, limit, s.Name+stderrSuffix)
		}
		d = nil // the prompt, stream and answer sections are not a script's
	}
	hs.Files = strings.Join(files, ", ")
	if d != nil {
		hs.Prompt, hs.PromptCut = htmlCapText(d.Prompt, limit, s.Name+".prompt.md")
		hs.Answer, hs.AnswerCut = htmlCapText(d.Answer, limit, s.Name+".jsonl")
		size := 0
		for i, it := range d.Items {
			// An item's markup counts too: many small items weigh.
			if size += len(it.Text) + htmlItemMarkup; size > limit && i > 0 {
				hs.ItemsCut = fmt.Sprintf("… and %s, left out of this report; --step %s shows them, and %s.jsonl has all",
					htmlPlural(len(d.Items)-i, "more item", "more items"), s.Name, s.Name)
				break
			}
			hs.Items = append(hs.Items, htmlItemOf(it))
		}
	}
	return hs
}

// htmlProblem reports whether a step failed, was retried or canceled, or
// had its answer refused: the steps the report's filter keeps.
func htmlProblem(s *Step) bool {
	class := htmlStepClass(s)
	return class != "ok" && class != "open"
}

// The bytes one step may show of its prompt, of its answer and of its
// stream's items, each: a run of a few steps shows them in full, a run of
// thousands a few KB each, so that the report stays a file a browser
// opens (htmlDetailBudget in all, about).
const (
	htmlDetailBudget = 16 << 20
	htmlStepCapMin   = 2 << 10
	htmlStepCapMax   = 128 << 10
)

// htmlItemMarkup is about what the markup of one item adds to its text.
const htmlItemMarkup = 120

// htmlStepCap is the cap of htmlStepOf for a run of n steps.
func htmlStepCap(n int) int {
	return min(max(htmlDetailBudget/(3*max(n, 1)), htmlStepCapMin), htmlStepCapMax)
}

// htmlCapText cuts text to at most limit bytes, at a line end when one is
// near, and says what was left out and where to find it.
func htmlCapText(text string, limit int, file string) (shown, note string) {
	if len(text) <= limit {
		return text, ""
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(text[:cut], '\n'); nl > limit/2 {
		cut = nl + 1
	}
	return text[:cut], fmt.Sprintf("… %s more, left out of this report; %s has all of it",
		htmlSize(len(text)-cut), file)
}

// htmlSize writes a number of bytes briefly: 812 bytes, 14 KB, 2.1 MB.
func htmlSize(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1_000_000:
		return fmt.Sprintf("%d KB", (n+500)/1000)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/1e6)
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
	if s.Outcome != "success" && s.Outcome != "" || s.CutShort {
		switch {
		case s.Signal != "":
			add("Process", "killed by "+s.Signal)
		case s.ExitCode != 0:
			add("Process", fmt.Sprintf("exited with status %d", s.ExitCode))
		}
		add("Stderr", s.Stderr)
	}
	switch {
	case s.AgentFailed != "" && s.Next != "":
		add("Agent failed", s.AgentFailed+"; the run was resumed and it went on as "+s.Next)
	case s.AgentFailed != "":
		add("Agent failed", s.AgentFailed)
	}
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
	if !s.ranScript() { // a script leaves the session alone
		add("Session", strings.TrimSpace(session))
	}
	add("Model", s.Model)
	add("Tools", s.Tools.String())
	add("Runner", s.Runner)
	if sr := s.Script; sr != nil {
		add("Script", strings.Join(sr.Argv, " "))
		add("Cwd", sr.Cwd)
		if sr.Timeout != "" {
			t := sr.Timeout + " of inactivity"
			if sr.TimeoutFrom != "" {
				t += " (from " + sr.TimeoutFrom + ")"
			}
			add("Timeout", t)
		}
		if len(sr.Env) > 0 {
			add("Environment", envLine(sr.Env))
		}
	}
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
	case s.Outcome != "success" || s.Retried || s.AgentFailed != "":
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
	case s.Outcome == "success" && s.AgentFailed != "":
		return "success, but the answer was refused; the agent failed"
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
