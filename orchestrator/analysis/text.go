package analysis

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// The narrowest report WriteText lays out; a smaller Width is taken as this.
const minWidth = 60

// report writes a text report: one section after another, each a title and
// indented lines, never wider than width columns.
type report struct {
	w     *bufio.Writer
	width int
	color bool
}

func newReport(w io.Writer, o TextOptions) *report {
	width := o.Width
	if width == 0 {
		width = 80
	}
	return &report{w: bufio.NewWriter(w), width: max(width, minWidth), color: o.Color}
}

// title starts a section; sections after the first are set apart by a
// blank line.
func (p *report) title(first bool, format string, args ...any) {
	if !first {
		p.w.WriteByte('\n')
	}
	t := cut(fmt.Sprintf(format, args...), p.width)
	if p.color {
		t = "\x1b[1m" + t + "\x1b[0m"
	}
	p.w.WriteString(t + "\n")
}

// line writes one line, cut to the width.
func (p *report) line(format string, args ...any) {
	p.w.WriteString(cut(fmt.Sprintf(format, args...), p.width) + "\n")
}

// field writes an indented "name  value" line of the summary; a long value
// is cut to the width.
func (p *report) field(name, format string, args ...any) {
	p.line("  %-9s %s", name, fmt.Sprintf(format, args...))
}

// red marks s as bad when colour is on.
func (p *report) red(s string) string {
	if p.color {
		return "\x1b[31m" + s + "\x1b[0m"
	}
	return s
}

// WriteText writes the text report: summary, notes, path, per-state
// table, timeline and critical path, readable in Width columns.
func WriteText(w io.Writer, r *Run, o TextOptions) error {
	p := newReport(w, o)
	p.summary(r)
	if len(r.Notes) > 0 || len(r.Warnings) > 0 {
		p.title(false, "Notes")
		for _, n := range r.Notes {
			p.wrapped("- ", n)
		}
		for _, wn := range r.Warnings {
			p.wrapped("- warning: ", wn)
		}
	}
	if len(r.Steps) > 0 {
		p.path(r)
		p.states(r, o.Sort)
		p.timeline(r)
		p.critical(r)
	}
	return p.w.Flush()
}

// wrapped writes text after a prefix, folded at word boundaries to the
// width, the following lines indented under the first.
func (p *report) wrapped(prefix, text string) {
	indent := "  " + strings.Repeat(" ", width(prefix))
	line := "  " + prefix
	n := width(line)
	fresh := true
	for _, word := range strings.Fields(text) {
		if !fresh && n+1+width(word) > p.width {
			p.line("%s", line)
			line, n, fresh = indent, width(indent), true
		}
		if !fresh {
			line += " "
			n++
		}
		line += word
		n += width(word)
		fresh = false
	}
	p.line("%s", line)
}

// summary writes how the run went, in a few lines.
func (p *report) summary(r *Run) {
	status := r.Status
	switch {
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
	p.field("time", "%s", timeLine(r))
	p.field("cost", "%s", costLine(r))
	t := r.Tokens
	p.field("tokens", "%s in, %s out, %s cache read, %s cache written",
		grouped(t.Input), grouped(t.Output), grouped(t.CacheRead), grouped(t.CacheCreation))
	p.field("steps", "%d in %s: %d failed, %s, %s", r.StepCount, count(r.AgentCount, "agent", "agents"),
		r.Failures, count(r.Retries, "retry", "retries"), count(r.Reminders, "reminder", "reminders"))
	if len(r.Waits) == 0 {
		p.field("waits", "no usage-limit wait")
	} else {
		p.field("waits", "%s for usage limits, %s in all", count(len(r.Waits), "wait", "waits"), dur(r.WaitMS))
	}
}

// timeLine says when the run ran and for how long.
func timeLine(r *Run) string {
	if r.Started.IsZero() {
		return "unknown"
	}
	s := fmt.Sprintf("%s wall, from %s", dur(r.WallMS), r.Started.Local().Format("2006-01-02 15:04:05 MST"))
	if len(r.Processes) > 1 || (r.DrivenMS > 0 && r.WallMS-r.DrivenMS > 1000) {
		s += fmt.Sprintf("; driven %s by %s", dur(r.DrivenMS), count(len(r.Processes), "process", "processes"))
	}
	return s
}

// costLine says what the run cost against its budget.
func costLine(r *Run) string {
	if r.BudgetUSD <= 0 {
		return money(r.CostUSD) + " (no budget)"
	}
	s := fmt.Sprintf("%s of a %s budget (%.0f%%)", money(r.CostUSD), money(r.BudgetUSD), 100*r.CostUSD/r.BudgetUSD)
	if r.BudgetExceeded {
		s += "; stopped at the budget"
	}
	return s
}

// oneLineMore returns the first line of s and says how many lines follow.
func oneLineMore(s string) string {
	line, more := firstLine(s)
	if more > 0 {
		return fmt.Sprintf("%s (+%s)", line, count(more, "line", "lines"))
	}
	return line
}

// critical writes the critical path, runs of one agent's steps in one
// state folded into a line.
func (p *report) critical(r *Run) {
	links := CriticalPath(r)
	if len(links) == 0 {
		return
	}
	var took, gaps int64
	for _, l := range links {
		took += l.Step.DurationMS
		gaps += l.GapMS
	}
	p.title(false, "Critical path: %s, %s in steps and %s between them, of %s wall time",
		count(len(links), "step", "steps"), dur(took), dur(gaps), dur(r.WallMS))
	nameW := min(max(p.width-2-9-9-20, 16), 40)
	p.line("  %-8s %s %8s  %s", "AT", pad("STEP", nameW), "TOOK", "GAP BEFORE")
	for i := 0; i < len(links); {
		j := i + 1
		for j < len(links) && links[j].Step.Agent == links[i].Step.Agent && links[j].Step.State == links[i].Step.State {
			j++
		}
		if j-i < 3 {
			j = i + 1
		}
		var t, g int64
		for _, l := range links[i:j] {
			t += l.Step.DurationMS
			g += l.GapMS
		}
		name := links[i].Step.Name
		if j-i > 1 {
			name = fmt.Sprintf("%s ×%d", cutMiddle(name, nameW-width(fmt.Sprintf(" ×%d", j-i))), j-i)
		}
		gap := ""
		if g > 0 {
			gap = dur(g)
			if why := links[i].Why; why != "" && j-i == 1 {
				gap += " " + why
			}
		}
		p.line("  %-8s %s %8s  %s", offset(r, links[i].Step.Started), pad(cutMiddle(name, nameW), nameW), dur(t), gap)
		i = j
	}
	if end := endOf(links[len(links)-1].Step); r.Ended.Sub(end) > time.Millisecond {
		p.line("  %-8s %s", offset(r, r.Ended), "run ended")
	}
}
