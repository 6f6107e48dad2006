package analysis

import (
	"fmt"
	"io"
	"strings"
)

// WriteDetail writes one step in full as text (--step): what raymond knows
// of it, the prompt sent, what the model said and did, and its answer.
func WriteDetail(w io.Writer, d *Detail, o TextOptions) error {
	p := newReport(w, o)
	s := d.Step
	p.title(true, "Step %s: agent %s at %s", s.Name, s.Agent, s.State)
	kind := fmt.Sprintf("attempt %d", max(s.Attempt, 1))
	if s.Reminder {
		kind = "a reminder"
	}
	p.field("step", "%d of the agent, %s", s.Seq, kind)
	if s.Session != "" {
		session := s.Session
		switch s.SessionMode {
		case "new":
			session += " (new)"
		case "resume":
			session += " (resumed)"
		case "branch":
			session += " (branch of " + s.ResumedSession + ")"
		}
		p.field("session", "%s", session)
	}
	if !s.Started.IsZero() {
		p.field("started", "%s", s.Started.Local().Format("2006-01-02 15:04:05.000 MST"))
	}
	switch {
	case s.Outcome == "" && s.CutShort:
		p.field("outcome", "%s: it never ended (its process stopped after %s), %s",
			p.red("cut short"), dur(s.Duration), money(s.CostUSD))
	case s.Outcome == "":
		p.field("outcome", "running, for %s so far", dur(s.Duration))
	case s.Outcome == "success":
		p.field("outcome", "success in %s, %s", dur(s.Duration), money(s.CostUSD))
	default:
		p.field("outcome", "%s in %s, %s", p.red(s.Outcome), dur(s.Duration), money(s.CostUSD))
	}
	p.field("tokens", "%s in, %s out, %s cache read, %s cache written",
		grouped(s.Tokens.Input), grouped(s.Tokens.Output), grouped(s.Tokens.CacheRead), grouped(s.Tokens.CacheCreation))
	if s.Model != "" {
		p.field("model", "%s (%s runner)", s.Model, orUnknown(s.Runner))
	}
	switch {
	case s.Tag != "" && s.Target != "":
		p.field("then", "<%s> to %s", s.Tag, s.Target)
	case s.Tag == "result":
		p.field("then", "<result>: the agent ended")
	case s.Reminded:
		p.field("then", "a reminder: %s", oneLineMore(s.Error))
	case s.Retried:
		p.field("then", "%s", again("retried", s))
	case s.Outcome == "usage limit" && !s.WaitUntil.IsZero():
		p.field("then", "%s", again("the run waited for the usage limit until "+clock(s.WaitUntil, s.Started)+"; it ran the step again", s))
	case s.Outcome == "usage limit":
		p.field("then", "%s", again("the run waited for the usage limit; it ran the step again", s))
	case s.CutShort && s.Next != "":
		p.field("then", "it ran again as %s when the run was resumed", s.Next)
	case s.Error != "":
		p.field("error", "%s", oneLineMore(s.Error))
	}
	for _, n := range d.Notes {
		p.wrapped("note: ", n)
	}

	p.title(false, "Prompt")
	p.block(d.Prompt, "(unknown)")
	p.title(false, "What the model did")
	if len(d.Items) == 0 {
		p.line("  (nothing recorded)")
	}
	answer, _ := abbreviate(d.Answer, maxTextLines)
	for _, it := range d.Items {
		if it.Kind == "text" && answer != "" && it.Text == answer {
			// The model's last text is its answer, shown in full below.
			it.Text = "(its answer, below)"
		}
		p.item(it)
	}
	p.title(false, "Answer")
	p.block(d.Answer, "(none)")
	return p.w.Flush()
}

// block writes text indented by two spaces, in full; empty, it writes
// none instead.
func (p *report) block(text, none string) {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		p.line("  %s", none)
		return
	}
	for _, l := range strings.Split(text, "\n") {
		p.w.WriteString("  " + l + "\n")
	}
}

// item writes one thing the model said or did: a label, then the text,
// its following lines indented under the first.
func (p *report) item(it Item) {
	var label string
	switch it.Kind {
	case "text":
		label = "says"
	case "tool":
		label = it.Tool
	case "tool_result":
		label = "→ " + orUnknown(it.Tool)
		if it.IsErr {
			label = p.red("→ " + orUnknown(it.Tool) + " failed")
		}
	case "error":
		label = p.red("error")
	default:
		label = it.Kind
	}
	lines := strings.Split(it.Text, "\n")
	for i, l := range lines {
		prefix := pad("", 11)
		if i == 0 {
			prefix = pad(label, 10) + " "
		}
		if it.Kind == "text" || it.Kind == "error" {
			p.wrapped(prefix, l)
		} else {
			p.line("  %s%s", prefix, l)
		}
	}
}

// again says what followed a step that ran again: "retried as main_X_003",
// or, when the transcript ends first, that it has not run again yet.
func again(what string, s *Step) string {
	if s.Next == "" {
		return what + " (not yet run again)"
	}
	return what + " as " + s.Next
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
