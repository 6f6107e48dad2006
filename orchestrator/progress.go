package orchestrator

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"sync"

	"raymond/state"
	"raymond/step"
)

// printer writes progress lines to stderr. Steps' goroutines call live
// concurrently with the loop, so every write holds the mutex; a line is
// written in one call so that lines never interleave.
type printer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	quiet  bool
	color  bool
}

func newPrinter(w io.Writer, prefix string, quiet, color bool) *printer {
	if w == nil {
		w = io.Discard
	}
	return &printer{w: w, prefix: prefix, quiet: quiet, color: color}
}

// line writes one message for an agent ("" for the run). Lines that are not
// important are dropped with --quiet.
func (p *printer) line(agent, msg string, important bool) {
	if p.quiet && !important {
		return
	}
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		b.WriteString(p.prefix)
		if agent != "" {
			b.WriteString(p.tag(agent))
			b.WriteByte(' ')
		} else if i == 0 {
			b.WriteString("raymond: ")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_, _ = io.WriteString(p.w, b.String())
}

// palette holds the ANSI colours of agent prefixes.
var palette = []string{"36", "33", "35", "32", "34", "31", "96", "93", "95", "92"}

// tag returns "[agent]", coloured when allowed.
func (p *printer) tag(agent string) string {
	if !p.color {
		return "[" + agent + "]"
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(agent))
	return fmt.Sprintf("\x1b[%sm[%s]\x1b[0m", palette[h.Sum32()%uint32(len(palette))], agent)
}

// stepStarted announces a step.
func (p *printer) stepStarted(req step.Request) {
	s := req.Step
	what := "new session"
	switch s.Mode {
	case state.SessionResume:
		what = "resumed session"
	case state.SessionBranch:
		what = "branch of the caller's session"
	}
	msg := fmt.Sprintf("%s: step %d (%s", s.State, req.Seq, what)
	if s.Model != "" {
		msg += ", " + s.Model
	}
	if s.Attempt > 1 {
		msg += fmt.Sprintf(", retry %d", s.Attempt-1)
	}
	msg += ")"
	if s.Reminder != "" {
		msg = fmt.Sprintf("%s: step %d (reminder)", s.State, req.Seq)
	}
	p.line(req.Agent, msg, false)
}

// live shows what the model is doing: the first line of what it says, the
// tools it uses, its prints, and the CLI's own retries.
func (p *printer) live(agent, stateName string, e step.Event) {
	switch e.Kind {
	case step.EventText:
		if t := firstLine(e.Text); t != "" {
			p.line(agent, fmt.Sprintf("%s: %s", stateName, cut(t, 100)), false)
		}
	case step.EventToolUse:
		p.line(agent, fmt.Sprintf("%s: %s %s", stateName, e.Tool, cut(e.Detail, 80)), false)
	case step.EventToolResult:
		if e.IsError {
			p.line(agent, fmt.Sprintf("%s: %s failed: %s", stateName, e.Tool, cut(e.Detail, 80)), false)
		}
	case step.EventPrint:
		p.line(agent, e.Text, true)
	case step.EventRetry:
		p.line(agent, fmt.Sprintf("%s: API error %d, claude retries (attempt %d)", stateName, e.Status, e.Attempt), false)
	}
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// firstLine is the first non-blank line of s, trimmed and cut at 200 bytes.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 200 {
				line = line[:200] + "…"
			}
			return line
		}
	}
	return ""
}
