package workflow

import (
	"fmt"
	"slices"
	"strings"

	"raymond/parsing"
)

// maxReasonLen bounds the part of a reminder that quotes the error, which may
// hold a tag as the model wrote it.
const maxReasonLen = 300

// reasonText puts an error on one line for a reminder, which is sent as a
// process's argument: a NUL byte, which no argument can hold, is written
// \x00, so that quoting a bad answer never makes the reminder unsendable.
var reasonText = strings.NewReplacer("\n", " ", "\x00", `\x00`)

// Reminder returns the short message sent to the model, in the same session,
// when its output was not acceptable (§6.2): what was wrong — err's message —
// and every tag the policy accepts, written out literally. It never repeats
// the prompt.
func Reminder(err error, p Policy) string {
	var b strings.Builder
	reason := strings.TrimSuffix(strings.TrimSpace(reasonText.Replace(strings.ToValidUTF8(err.Error(), "\uFFFD"))), ".")
	if r := []rune(reason); len(r) > maxReasonLen {
		reason = string(r[:maxReasonLen]) + "…"
	}
	fmt.Fprintf(&b, "Your last answer could not be used: %s.\n", reason)
	if !p.Restricted() {
		fmt.Fprintf(&b, "End your answer with exactly one transition tag (%s).\n", strings.Join(parsing.Names, ", "))
		return b.String()
	}
	b.WriteString("The transitions this step accepts are:\n")
	for _, line := range p.Accepted() {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	if slices.ContainsFunc(p.Rules, func(r Rule) bool { return parsing.Forks(r.Tag) }) {
		// A fan-out answer holds several forks (§5.6): asking for exactly
		// one tag would make the model start one agent where it meant many.
		b.WriteString("Answer again with exactly one of these tags, or with several <fork> tags to start several agents.\n")
	} else {
		b.WriteString("Answer again with exactly one of these tags.\n")
	}
	return b.String()
}

// placeholder stands for a part of a tag the rule leaves free.
const placeholder = "…"

// Accepted returns the transitions the policy accepts, each written as a
// tag (<goto>DONE.md</goto>, with a placeholder where the rule leaves a
// value free), once each, in the order of the rules.
func (p Policy) Accepted() []string {
	var out []string
	for _, r := range p.Rules {
		if line := r.literal(); !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	return out
}

// literal writes the rule as the tag the model should emit, with … where the
// rule leaves a part free, and with every attribute the rule carries (§6.2).
func (r Rule) literal() string {
	or := func(s string) string {
		if s == "" {
			return placeholder
		}
		return s
	}
	var attrs []parsing.Attr
	body := or(r.Target)
	switch r.Tag {
	case parsing.Call, parsing.Function, parsing.CallWorkflow, parsing.FunctionWorkflow:
		attrs = append(attrs, parsing.Attr{Key: "return", Value: or(r.Return)})
	case parsing.Fork, parsing.ForkWorkflow:
		attrs = append(attrs, parsing.Attr{Key: "next", Value: or(r.Next)})
	case parsing.Ask:
		attrs = append(attrs, parsing.Attr{Key: "next", Value: or(r.Next)})
		if r.TimeoutNext != "" {
			attrs = append(attrs, parsing.Attr{Key: "timeout_next", Value: r.TimeoutNext})
		}
		body = placeholder
	case parsing.Result:
		body = placeholder
		if r.Payload != nil {
			body = strings.TrimSpace(*r.Payload)
		}
	}
	return element(r.Tag, append(attrs, r.Attrs...), body)
}

// describe writes a tag the model emitted, briefly: its name, the attribute
// that says where it continues (return or next), and its target or
// (shortened) payload or question.
func describe(t parsing.Tag) string {
	key := ""
	switch t.Name {
	case parsing.Call, parsing.Function, parsing.CallWorkflow, parsing.FunctionWorkflow:
		key = "return"
	case parsing.Fork, parsing.ForkWorkflow, parsing.Ask:
		key = "next"
	}
	body := t.Target
	if parsing.HasPayload(t.Name) {
		body = t.Payload
		if r := []rune(body); len(r) > 40 {
			body = string(r[:40]) + placeholder
		}
	}
	var attrs []parsing.Attr
	if value, ok := t.Attr(key); ok {
		attrs = []parsing.Attr{{Key: key, Value: value}}
	}
	return element(t.Name, attrs, body)
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;")

// element writes <name key="value" …>body</name>.
func element(name string, attrs []parsing.Attr, body string) string {
	var b strings.Builder
	b.WriteString("<" + name)
	for _, a := range attrs {
		b.WriteString(" " + a.Key + `="` + attrEscaper.Replace(a.Value) + `"`)
	}
	b.WriteString(">" + body + "</" + name + ">")
	return b.String()
}
