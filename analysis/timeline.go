package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// maxTimelineRows is how many agents the text timeline draws (one more
// rather than a line that says one was left out); the "running" row
// still counts the steps of all of them.
const maxTimelineRows = 20

// The characters of the text timeline.
const (
	barStep   = '#' // a step runs
	barFailed = '!' // a step that did not succeed runs
	barIdle   = '.' // the agent lives, no step of it runs
	barCut    = '?' // a step cut short runs, as far as is known
	barWait   = '~' // a usage-limit wait
	barDriven = '=' // a process drives the run
)

// timeline draws agents as rows and their steps as bars over wall-clock
// columns.
func (p *textReport) timeline(r *Run) {
	labelW := 7 // "running"
	for _, a := range r.Agents {
		labelW = max(labelW, width(a.ID))
	}
	labelW = min(labelW, 18)
	cols := p.width - 2 - labelW - 1
	span := max(r.Ended.Sub(r.Started), time.Microsecond)
	colOf := func(t time.Time) int {
		c := int(int64(t.Sub(r.Started)) * int64(cols) / int64(span))
		return min(max(c, 0), cols-1)
	}
	p.title(false, "Timeline: %s wall, one column is %s", dur(r.Wall), dur(span/time.Duration(cols)))
	anyCut := false

	byAgent := make(map[string][]*Step)
	for _, s := range r.Steps {
		byAgent[s.Agent] = append(byAgent[s.Agent], s)
	}
	row := func(label string, cells []byte) {
		p.line("  %s %s", pad(cutMiddle(label, labelW), labelW), strings.TrimRight(string(cells), " "))
	}
	order := make([]*Agent, 0, len(r.Agents))
	for _, g := range agentGroups(r) {
		order = append(order, g...)
	}
	shown := order
	if len(order) > maxTimelineRows+1 {
		shown = pickAgents(r, order, maxTimelineRows)
	}
	for _, a := range shown {
		cells := blank(cols)
		steps := byAgent[a.ID]
		if len(steps) == 0 {
			row(a.ID, cells)
			continue
		}
		from, to := lifeOf(r, a, steps)
		fill(cells, colOf(from), colOf(to), barIdle)
		for _, s := range steps {
			c := byte(barStep)
			switch {
			case s.CutShort:
				c, anyCut = barCut, true
			case s.Outcome != "" && s.Outcome != "success":
				c = barFailed
			}
			for k := colOf(s.Started); k <= colOf(endOf(s)); k++ {
				if cells[k] != barFailed {
					cells[k] = c
				}
			}
		}
		row(a.ID, cells)
	}
	if len(shown) < len(order) {
		p.wrapped(pad("", labelW+1), fmt.Sprintf("… %s not drawn; drawn are main, the agents of the critical path and of "+
			"failed, retried or refused steps, and a sample of the others",
			count(len(order)-len(shown), "more agent", "more agents")))
	}
	if len(r.Agents) > 1 {
		row("running", concurrency(r, cols, colOf))
	}
	if len(r.Waits) > 0 {
		cells := blank(cols)
		for _, w := range r.Waits {
			end := w.Ended
			if end.IsZero() {
				end = r.Ended
			}
			fill(cells, colOf(w.Started), colOf(end), barWait)
		}
		row("limit", cells)
	}
	if len(r.Processes) > 1 {
		cells := blank(cols)
		for _, pr := range r.Processes {
			fill(cells, colOf(pr.Started), colOf(pr.Ended), barDriven)
		}
		row("driven", cells)
	}
	p.axis(r, labelW, cols)
	legend := "# a step, ! a step that failed, "
	if anyCut {
		legend += "? a step cut short (as far as it is known to have run), "
	}
	p.wrapped("", legend+". the agent waits; running: steps at once")
}

// lifeOf is when agent a, whose steps are steps (at least one), lived:
// from its spawn or its first step to its end, or, when it has not
// ended, to its last step's end, or to the run's end while it runs.
func lifeOf(r *Run, a *Agent, steps []*Step) (from, to time.Time) {
	from, to = a.Started, a.Ended
	if from.IsZero() || steps[0].Started.Before(from) {
		from = steps[0].Started
	}
	if to.IsZero() {
		to = endOf(steps[len(steps)-1])
		if a.Status == "running" {
			to = r.Ended
		}
	}
	return from, to
}

// axis writes the times under the timeline: the start, the middle and the
// end.
func (p *textReport) axis(r *Run, labelW, cols int) {
	cells := []rune(strings.Repeat(" ", cols))
	put := func(at int, s string) {
		text := []rune(s)
		at = min(max(at, 0), cols-len(text))
		if at >= 0 {
			copy(cells[at:], text)
		}
	}
	put(0, "+0s")
	if cols >= 40 {
		mid := "+" + dur(r.Wall/2)
		put(cols/2-width(mid)/2, mid)
	}
	put(cols, "+"+dur(r.Wall))
	p.line("  %s %s", strings.Repeat(" ", labelW), strings.TrimRight(string(cells), " "))
}

// concurrency returns, per column, the largest number of steps that ran at
// the same time during it: a digit, + for ten or more.
func concurrency(r *Run, cols int, colOf func(time.Time) int) []byte {
	levels := runningLevels(r)
	most := make([]int, cols)
	for i, l := range levels {
		if l.n <= 0 || i+1 == len(levels) {
			continue
		}
		for k := colOf(l.t); k <= colOf(levels[i+1].t); k++ {
			most[k] = max(most[k], l.n)
		}
	}
	cells := blank(cols)
	for k, n := range most {
		switch {
		case n >= 10:
			cells[k] = '+'
		case n > 0:
			cells[k] = byte('0' + n)
		}
	}
	return cells
}

// level is how many steps run from instant t until the next level's.
type level struct {
	t time.Time
	n int
}

// runningLevels returns the number of steps running after each instant a
// step started or ended, in time order, one level per instant. A step
// that never ended counts until the end of the transcript (r.Ended). The
// text and HTML timelines both draw from it.
func runningLevels(r *Run) []level {
	type edge struct {
		t     time.Time
		delta int
	}
	edges := make([]edge, 0, 2*len(r.Steps))
	for _, s := range r.Steps {
		end := s.Ended
		if end.IsZero() {
			end = r.Ended
		}
		if end.Before(s.Started) {
			end = s.Started
		}
		edges = append(edges, edge{s.Started, 1}, edge{end, -1})
	}
	// Ends before starts at the same instant: a step that follows another
	// at once is not parallel to it.
	slices.SortFunc(edges, func(a, b edge) int {
		if c := a.t.Compare(b.t); c != 0 {
			return c
		}
		return a.delta - b.delta
	})
	var levels []level
	n := 0
	for i := 0; i < len(edges); {
		t := edges[i].t
		for ; i < len(edges) && edges[i].t.Equal(t); i++ {
			n += edges[i].delta
		}
		levels = append(levels, level{t: t, n: n})
	}
	return levels
}

func blank(n int) []byte { return []byte(strings.Repeat(" ", n)) }

// fill sets cells from..to (inclusive) to c.
func fill(cells []byte, from, to int, c byte) {
	for k := from; k <= to && k < len(cells); k++ {
		cells[k] = c
	}
}
