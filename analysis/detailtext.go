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
	if s.Session != "" && !s.ranScript() { // a script leaves the session alone
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
	p.process(s)
	switch {
	case s.Error != "" && s.Outcome == "success":
		p.field("refused", "%s", oneLineMore(s.Error))
	case s.Error != "":
		p.field("error", "%s", oneLineMore(s.Error))
	}
	if sr := s.Script; sr != nil {
		p.scriptFacts(sr)
	} else {
		p.field("tokens", "%s in, %s out, %s cache read, %s cache written",
			grouped(s.Tokens.Input), grouped(s.Tokens.Output), grouped(s.Tokens.CacheRead), grouped(s.Tokens.CacheCreation))
	}
	if s.Model != "" {
		p.field("model", "%s (%s runner)", s.Model, orUnknown(s.Runner))
	}
	if s.Tools != nil {
		p.field("tools", "%s", s.Tools)
	}
	switch {
	case s.AskID != "" && s.Target != "":
		p.field("then", "<ask> %s, to %s once answered", s.AskID, s.Target)
	case s.Tag != "" && s.Target != "":
		p.field("then", "<%s> to %s", s.Tag, s.Target)
	case s.Tag == "result":
		p.field("then", "<result>: the agent ended")
	case s.AgentFailed != "" && s.Next != "":
		p.field("then", "the agent failed: %s; the run was resumed and it went on as %s", oneLineMore(s.AgentFailed), s.Next)
	case s.AgentFailed != "":
		p.field("then", "the agent failed: %s", oneLineMore(s.AgentFailed))
	case s.FellBack != "":
		p.field("then", "%s", again(s.FellBack, s))
	case s.Reminded:
		p.field("then", "%s", again("its answer was refused; a reminder followed", s))
	case s.Retried:
		p.field("then", "%s", again("retried", s))
	case s.Outcome == "usage limit" && !s.WaitUntil.IsZero():
		p.field("then", "%s", again("the run waited for the usage limit until "+clock(s.WaitUntil, s.Started)+"; it ran the step again", s))
	case s.Outcome == "usage limit":
		p.field("then", "%s", again("the run waited for the usage limit; it ran the step again", s))
	case s.CutShort && s.Next != "":
		p.field("then", "it ran again as %s when the run was resumed", s.Next)
	}
	for _, n := range d.Notes {
		p.wrapped("note: ", n)
	}

	if s.ranScript() {
		p.title(false, "Stdout")
		p.block(d.Stdout, "(nothing)")
		p.title(false, "Stderr")
		p.block(d.Stderr, "(nothing)")
		return p.w.Flush()
	}
	p.title(false, "Prompt")
	p.block(d.Prompt, "(unknown)")
	p.title(false, "What the model did")
	if len(d.Items) == 0 {
		p.line("  (nothing recorded)")
	}
	answer, _ := abbreviate(d.Answer, maxTextLines)
	col := itemColumn(d.Items)
	for _, it := range d.Items {
		if it.Kind == "text" && answer != "" && it.Text == answer {
			// The model's last text is its answer, shown in full below.
			it.Text = "(its answer, below)"
		}
		p.item(it, col)
	}
	p.title(false, "Answer")
	p.block(d.Answer, "(none)")
	return p.w.Flush()
}

// scriptFacts writes how a script step ran: what, where, with which
// variables and timeout.
func (p *textReport) scriptFacts(sr *ScriptRun) {
	if len(sr.Argv) > 0 {
		p.field("script", "%s", strings.Join(sr.Argv, " "))
	}
	if sr.Cwd != "" {
		p.field("cwd", "%s", sr.Cwd)
	}
	if sr.Timeout != "" {
		t := sr.Timeout + " of inactivity"
		if sr.TimeoutFrom != "" {
			t += " (from " + sr.TimeoutFrom + ")"
		}
		p.field("timeout", "%s", t)
	}
	if len(sr.Env) > 0 {
		p.field("env", "%s", envLine(sr.Env))
	}
}

// process writes how a step's process ended, when it did not succeed:
// its exit status or signal, and the tail of its stderr.
func (p *textReport) process(s *Step) {
	if s.Outcome == "success" || s.Outcome == "" && !s.CutShort {
		return
	}
	switch {
	case s.Signal != "":
		p.field("process", "killed by %s", s.Signal)
	case s.ExitCode != 0:
		p.field("process", "exited with status %d", s.ExitCode)
	}
	if s.Stderr == "" {
		return
	}
	text, _ := abbreviate(s.Stderr, maxToolLines)
	for i, l := range strings.Split(text, "\n") {
		name := ""
		if i == 0 {
			name = "stderr"
		}
		p.field(name, "%s", l)
	}
}

// block writes text indented by two spaces, in full; empty, it writes
// none instead.
func (p *textReport) block(text, none string) {
	text = strings.TrimRight(text, "\n")
	if strings.TrimSpace(text) == "" {
		p.line("  %s", none)
		return
	}
	for _, l := range strings.Split(text, "\n") {
		p.w.WriteString("  " + l + "\n")
	}
}

// The column of the labels of "What the model did": as wide as the
// widest label, within these bounds; a wider label (an MCP tool's long
// name) stands on a line of its own, the text under it.
const (
	minItemLabel = 10
	maxItemLabel = 16
)

// itemLabel is the label of an item, without colour, and whether it is
// to be shown in red.
func itemLabel(it Item) (string, bool) {
	switch it.Kind {
	case "text":
		return "says", false
	case "tool":
		return it.Tool, false
	case "tool_result":
		if it.IsErr {
			return "→ " + orUnknown(it.Tool) + " failed", true
		}
		return "→ " + orUnknown(it.Tool), false
	case "error":
		return "error", true
	}
	return it.Kind, false
}

// itemColumn is the width of the label column for items.
func itemColumn(items []Item) int {
	col := minItemLabel
	for _, it := range items {
		if l, _ := itemLabel(it); width(l) <= maxItemLabel {
			col = max(col, width(l))
		}
	}
	return col
}

// item writes one thing the model said or did: a label in a column col
// wide, then the text, its following lines indented under the first.
func (p *textReport) item(it Item, col int) {
	label, bad := itemLabel(it)
	indent := pad("", col+1)
	lead := pad(label, col) + " "
	if width(label) > col {
		p.line("  %s", label)
		lead = indent
	}
	if bad {
		lead = strings.Replace(lead, label, p.red(label), 1)
	}
	for i, l := range strings.Split(it.Text, "\n") {
		prefix := indent
		if i == 0 {
			prefix = lead
		}
		if it.Kind == "text" || it.Kind == "error" {
			p.wrapped(prefix, l)
		} else {
			p.line("  %s", strings.TrimRight(prefix+l, " "))
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
