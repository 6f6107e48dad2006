package analysis

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// MinWidth is the narrowest text report WriteText and WriteDetail lay
// out; a smaller TextOptions.Width is taken as MinWidth.
const MinWidth = 40

// textReport writes a text report: one section after another, each a title and
// indented lines, never wider than width columns.
type textReport struct {
	w     *bufio.Writer
	width int
	color bool
}

func newReport(w io.Writer, o TextOptions) *textReport {
	width := o.Width
	if width == 0 {
		width = 80
	}
	return &textReport{w: bufio.NewWriter(w), width: max(width, MinWidth), color: o.Color}
}

// title starts a section; sections after the first are set apart by a
// blank line. A long title is folded, the following lines indented.
func (p *textReport) title(first bool, format string, args ...any) {
	if !first {
		p.w.WriteByte('\n')
	}
	for _, t := range wrapText("", "  ", fmt.Sprintf(format, args...), p.width) {
		if p.color {
			t = "\x1b[1m" + t + "\x1b[0m"
		}
		p.w.WriteString(t + "\n")
	}
}

// line writes one line, cut to the width.
func (p *textReport) line(format string, args ...any) {
	p.w.WriteString(cut(fmt.Sprintf(format, args...), p.width) + "\n")
}

// field writes an indented "name  value" line of the summary; a long value
// is folded, the following lines indented under the value.
func (p *textReport) field(name, format string, args ...any) {
	lead := "  " + pad(name, 9) + " "
	for _, l := range wrapText(lead, strings.Repeat(" ", width(lead)), fmt.Sprintf(format, args...), p.width) {
		p.w.WriteString(l + "\n")
	}
}

// red marks s as bad when colour is on.
func (p *textReport) red(s string) string {
	if p.color {
		return "\x1b[31m" + s + "\x1b[0m"
	}
	return s
}

// WriteText writes the text report: summary, notes, path, asks,
// per-state table, timeline and critical path, readable in Width columns.
func WriteText(w io.Writer, r *Run, o TextOptions) error {
	p := newReport(w, o)
	p.summary(r)
	resumed := resumedFailures(r)
	if len(r.Notes) > 0 || len(resumed) > 0 || len(r.Warnings) > 0 {
		p.title(false, "Notes")
		for _, n := range r.Notes {
			p.wrapped("- ", n)
		}
		for _, n := range resumed {
			p.wrapped("- ", n)
		}
		for _, wn := range r.Warnings {
			p.wrapped("- warning: ", wn)
		}
	}
	if len(r.Steps) > 0 {
		p.path(r)
	}
	if r.Changes != nil || hasCheckpoints(r) {
		p.changes(r)
	}
	if len(r.Asks) > 0 {
		p.asks(r)
	}
	if len(r.VisitCaps) > 0 {
		p.visitCaps(r)
	}
	if len(r.Steps) > 0 {
		p.states(r, o.Sort)
		p.timeline(r)
		p.critical(r)
	}
	return p.w.Flush()
}

// wrapped writes text after a prefix, folded at word boundaries to the
// width, the following lines indented under the first.
func (p *textReport) wrapped(prefix, text string) {
	for _, l := range wrapText("  "+prefix, "  "+strings.Repeat(" ", width(prefix)), text, p.width) {
		p.w.WriteString(l + "\n")
	}
}

// wrapText folds text at word boundaries into lines of at most n columns:
// the first starts with lead, the others with indent. A word too long
// for a line (a path, a run of CJK text) is broken where it must be.
func wrapText(lead, indent, text string, n int) []string {
	var lines []string
	line, w, empty := lead, width(lead), true
	flush := func() {
		lines = append(lines, line)
		line, w, empty = indent, width(indent), true
	}
	for _, word := range strings.Fields(text) {
		ww := width(word)
		// A word that fits on no line starts where it is, to be broken.
		if !empty && w+1+ww > n && ww <= n-width(indent) {
			flush()
		}
		if !empty {
			line += " "
			w++
		}
		if w+ww <= n {
			line, w, empty = line+word, w+ww, false
			continue
		}
		for _, c := range word {
			if w+runeWidth(c) > n && !empty {
				flush()
			}
			line, w, empty = line+string(c), w+runeWidth(c), false
		}
	}
	return append(lines, line)
}

// summary writes how the run went, in a few lines.
func (p *textReport) summary(r *Run) {
	status := r.Status
	switch {
	case r.Running && r.Status == "waiting":
		status = "waiting for the usage limit"
		if w := openWait(r); w != nil && !w.Until.IsZero() {
			status += " until " + clock(w.Until, r.Ended)
			if left := w.Until.Sub(r.Ended); left > 0 {
				status += " (in " + dur(left) + ")"
			}
		}
	case r.Running:
		status = "running"
	case status == "running" || status == "waiting":
		status += " according to its state file, but no process drives it"
	}
	if r.Status == "failed" || r.Status == "unknown" {
		status = p.red(status)
	}
	p.title(true, "Run %s: %s", r.ID, status)
	if r.Workflow != "" {
		wf := r.Workflow
		if r.Entry != "" {
			wf += " (entry " + r.Entry + ")"
		}
		p.field("workflow", "%s", wf)
	}
	if r.Result != nil {
		p.field("result", "%s", oneLineMore(*r.Result))
	}
	if r.Error != "" {
		p.field("error", "%s", oneLineMore(r.Error))
	}
	p.failedAgents(r)
	p.field("time", "%s", timeLine(r))
	p.field("cost", "%s", costLine(r))
	t := r.Tokens
	p.field("tokens", "%s in, %s out, %s cache read, %s cache written",
		grouped(t.Input), grouped(t.Output), grouped(t.CacheRead), grouped(t.CacheCreation))
	fellBack := ""
	if r.Fallbacks > 0 {
		fellBack = ", " + count(r.Fallbacks, "model fallback", "model fallbacks")
	}
	p.field("steps", "%d in %s: %d failed, %s, %s%s", r.StepCount, count(r.AgentCount, "agent", "agents"),
		r.Failures, count(r.Retries, "retry", "retries"), count(r.Reminders, "reminder", "reminders"), fellBack)
	if len(r.Asks) > 0 {
		p.field("asks", "%s", askCounts(r))
	}
	switch w := openWait(r); {
	case len(r.Waits) == 0:
		p.field("waits", "no usage-limit wait")
	case w != nil && r.Running && !w.Until.IsZero():
		p.field("waits", "%s for usage limits, %s in all; waiting until %s", count(len(r.Waits), "wait", "waits"),
			dur(r.WaitTime), clock(w.Until, r.Ended))
	default:
		p.field("waits", "%s for usage limits, %s in all", count(len(r.Waits), "wait", "waits"), dur(r.WaitTime))
	}
}

// failedAgents names, under the run's error, the agents that failed and
// why, one each (at most maxFailedNamed), when more than one did.
func (p *textReport) failedAgents(r *Run) {
	var failed []*Agent
	for _, a := range r.Agents {
		if a.Status == "failed" {
			failed = append(failed, a)
		}
	}
	if len(failed) < 2 {
		return
	}
	const lead = "            "
	for i, a := range failed {
		if i == maxFailedNamed {
			p.line("%s… and %s (the Path section lists them)", lead, count(len(failed)-i, "more", "more"))
			break
		}
		why, _ := firstLine(a.Error)
		for _, l := range wrapText(lead+a.ID+": ", lead+"  ", orUnknown(why), p.width) {
			p.w.WriteString(l + "\n")
		}
	}
}

// openWait returns the last usage-limit wait when it has not ended.
func openWait(r *Run) *Wait {
	if n := len(r.Waits); n > 0 && r.Waits[n-1].Ended.IsZero() {
		return &r.Waits[n-1]
	}
	return nil
}

// clock writes t as a local time of day, with its date when that is not
// the date of ref.
func clock(t, ref time.Time) string {
	t, ref = t.Local(), ref.Local()
	if t.Format("20060102") != ref.Format("20060102") {
		return t.Format("2006-01-02 15:04:05")
	}
	return t.Format("15:04:05")
}

// timeLine says when the run ran and for how long.
func timeLine(r *Run) string {
	if r.Started.IsZero() {
		return "unknown"
	}
	wall := dur(r.Wall) + " wall"
	if r.Running {
		wall += " so far"
	}
	s := fmt.Sprintf("%s, from %s", wall, r.Started.Local().Format("2006-01-02 15:04:05 MST"))
	if len(r.Processes) > 1 || (r.Driven > 0 && r.Wall-r.Driven > time.Second) {
		s += fmt.Sprintf("; driven %s by %s", dur(r.Driven), count(len(r.Processes), "process", "processes"))
	}
	return s
}

// costLine says what the run cost against its budget.
func costLine(r *Run) string {
	scripted := ""
	if r.Scripted {
		scripted = "; scripted replies, nothing billed"
	}
	if r.BudgetUSD <= 0 {
		return money(r.CostUSD) + " (no budget" + scripted + ")"
	}
	s := fmt.Sprintf("%s of a %s budget (%.0f%%)", money(r.CostUSD), money(r.BudgetUSD), 100*r.CostUSD/r.BudgetUSD)
	if r.BudgetExceeded {
		s += "; stopped at the budget"
	}
	return s + scripted
}

// oneLineMore returns the first line of s and says how many lines follow.
func oneLineMore(s string) string {
	line, more := firstLine(s)
	if more > 0 {
		return fmt.Sprintf("%s (+%s)", line, count(more, "line", "lines"))
	}
	return line
}
