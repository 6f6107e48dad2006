package report

import (
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"sync"

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
}

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
	if line, important := Progress(&e); line != "" {
		p.Line(e.Agent, line, important)
	}
}

// Line writes one message for an agent ("" for the run: "raymond: "
// leads it). Each line of msg gets the prefix and the agent's tag. Lines
// that are not important are dropped with quiet.
func (p *Printer) Line(agent, msg string, important bool) {
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

// palette holds the ANSI colours of agent tags.
var palette = []string{"36", "33", "35", "32", "34", "31", "96", "93", "95", "92"}

// tag returns "[agent]", coloured when allowed; an agent keeps its colour
// from run to run.
func (p *Printer) tag(agent string) string {
	if !p.color {
		return "[" + agent + "]"
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(agent))
	return fmt.Sprintf("\x1b[%sm[%s]\x1b[0m", palette[h.Sum32()%uint32(len(palette))], agent)
}
