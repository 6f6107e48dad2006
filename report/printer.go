package report

import (
	"fmt"
	"hash/fnv"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"raymond/transcript"
)

// Printer writes progress lines: the sink of the event stream that shows a
// run to the person who drives it (raymond run's stderr). Steps' goroutines
// publish live events concurrently with the run loop, so every write holds
// a mutex; a line is written in one call so that lines never interleave.
type Printer struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	quiet  bool
	color  bool

	// colors is the palette index each agent got, and recent the agents
	// that wrote last, newest first, at most len(palette)-1 of them: a new
	// agent takes a colour none of them has (tag).
	colors map[string]int
	recent []string

	// steps holds when each agent's running step started, from its
	// step_started event: the live lines of a long step say how long it
	// has run.
	steps map[string]time.Time
}

// ElapsedAfter is how long a step runs before its live lines (text, tool
// uses) say how long it has been running: "TEST.md (2m05s): Bash go test".
const ElapsedAfter = 10 * time.Second

// NewPrinter returns a Printer writing to w (nil: nowhere). prefix leads
// every line (raymond test's "case: "); quiet drops the lines that are not
// important; color colours each agent's tag.
func NewPrinter(w io.Writer, prefix string, quiet, color bool) *Printer {
	if w == nil {
		w = io.Discard
	}
	return &Printer{w: w, prefix: prefix, quiet: quiet, color: color}
}

// Event writes the progress line of e, if it has one (Progress).
func (p *Printer) Event(e transcript.Event) {
	line, important := Progress(&e)
	if line == "" {
		p.track(&e)
		return
	}
	if d, ok := p.track(&e); ok && d >= ElapsedAfter {
		if rest, cut := strings.CutPrefix(line, e.State+": "); cut {
			line = fmt.Sprintf("%s (%s): %s", e.State, Duration(d.Truncate(time.Second)), rest)
		}
	}
	p.Line(e.Agent, line, important)
}

// track keeps when each agent's step started and returns, for a live line
// of a step (text, tool use, tool failure), how long the step has run.
func (p *Printer) track(e *transcript.Event) (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e.Type {
	case transcript.EventStepStarted:
		if p.steps == nil {
			p.steps = map[string]time.Time{}
		}
		p.steps[e.Agent] = e.Time
	case transcript.EventStepEnded:
		delete(p.steps, e.Agent)
	case transcript.EventText, transcript.EventToolUse, transcript.EventToolFailed:
		if start, ok := p.steps[e.Agent]; ok && !start.IsZero() && !e.Time.IsZero() {
			return e.Time.Sub(start), true
		}
	}
	return 0, false
}

// Line writes one message for an agent ("" for the run: "raymond: "
// leads it). Each line of msg gets the prefix and the agent's tag. Lines
// that are not important are dropped with quiet.
func (p *Printer) Line(agent, msg string, important bool) {
	if p.quiet && !important {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	tag := ""
	if agent != "" {
		tag = p.tag(agent)
	}
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(msg, "\n"), "\n") {
		b.WriteString(p.prefix)
		if agent != "" {
			b.WriteString(tag)
			b.WriteByte(' ')
		} else if i == 0 {
			b.WriteString("raymond: ")
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	_, _ = io.WriteString(p.w, b.String())
}

// palette holds the ANSI colours of agent tags.
var palette = []string{"36", "33", "35", "32", "34", "31", "96", "93", "95", "92"}

// tag returns "[agent]", coloured when allowed; p.mu is held. An agent
// keeps its colour while the Printer lives. A new agent gets the colour its
// name hashes to (the same from run to run) unless one of the agents that
// wrote last has it; then the next colour none of them has, so agents that
// run at the same time, up to the palette's size, differ.
func (p *Printer) tag(agent string) string {
	if !p.color {
		return "[" + agent + "]"
	}
	c, ok := p.colors[agent]
	if !ok {
		h := fnv.New32a()
		_, _ = h.Write([]byte(agent))
		c = int(h.Sum32() % uint32(len(palette)))
		taken := make([]bool, len(palette))
		for _, a := range p.recent {
			taken[p.colors[a]] = true
		}
		for taken[c] {
			c = (c + 1) % len(palette)
		}
		if p.colors == nil {
			p.colors = make(map[string]int)
		}
		p.colors[agent] = c
	}
	p.touch(agent)
	return fmt.Sprintf("\x1b[%sm[%s]\x1b[0m", palette[c], agent)
}

// touch moves agent to the front of p.recent, dropping the oldest past
// len(palette)-1.
func (p *Printer) touch(agent string) {
	if i := slices.Index(p.recent, agent); i >= 0 {
		p.recent = slices.Delete(p.recent, i, i+1)
	}
	p.recent = slices.Insert(p.recent, 0, agent)
	if len(p.recent) > len(palette)-1 {
		p.recent = p.recent[:len(palette)-1]
	}
}
