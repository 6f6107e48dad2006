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
	if slices.ContainsFunc(p.Rules, func(r Rule) bool { return r.Tag == parsing.Fork }) {
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
// rule leaves a part free.
func (r Rule) literal() string {
	or := func(s string) string {
		if s == "" {
			return placeholder
		}
		return s
	}
	switch r.Tag {
	case parsing.Call, parsing.Function:
		return element(r.Tag, "return", or(r.Return), or(r.Target))
	case parsing.Fork:
		return element(r.Tag, "next", or(r.Next), or(r.Target))
	case parsing.Result:
		if r.Payload == nil {
			return element(r.Tag, "", "", placeholder)
		}
		return element(r.Tag, "", "", strings.TrimSpace(*r.Payload))
	}
	return element(r.Tag, "", "", or(r.Target))
}

// describe writes a tag the model emitted, briefly: its name, return or
// next, and its target or (shortened) payload.
func describe(t parsing.Tag) string {
	key := ""
	switch t.Name {
	case parsing.Call, parsing.Function:
		key = "return"
	case parsing.Fork:
		key = "next"
	case parsing.Result:
		payload := t.Payload
		if r := []rune(payload); len(r) > 40 {
			payload = string(r[:40]) + placeholder
		}
		return element(t.Name, "", "", payload)
	}
	value, ok := t.Attr(key)
	if !ok {
		key = ""
	}
	return element(t.Name, key, value, t.Target)
}

var attrEscaper = strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;")

// element writes <name key="value">body</name>, without the attribute when
// key is empty.
func element(name, key, value, body string) string {
	if key == "" {
		return "<" + name + ">" + body + "</" + name + ">"
	}
	return "<" + name + " " + key + `="` + attrEscaper.Replace(value) + `">` + body + "</" + name + ">"
}
