package analysis

import (
	"fmt"
	"strings"
	"time"
)

// foldCritical is the fewest steps of one agent in one state in a row that
// the critical path folds into one line.
const foldCritical = 3

// criticalRow is one line of the critical path: a step, or a run of one
// agent's steps in one state.
type criticalRow struct {
	links []Link
	took  time.Duration
	gap   time.Duration
	// why is the reason of the largest gap of the row, when known.
	why string
	cut bool
}

// critical writes the critical path, runs of one agent's steps in one
// state folded into a line.
func (p *textReport) critical(r *Run) {
	links := CriticalPath(r)
	if len(links) == 0 {
		return
	}
	var took, gaps time.Duration
	for _, l := range links {
		took += l.Step.Duration
		gaps += l.Gap
	}
	// One line of 80 columns even for a long run: "Critical path: 12345
	// steps, 59m59s in steps + 59m59s between, of 59m59s wall" is 73.
	p.title(false, "Critical path: %s, %s in steps + %s between, of %s wall",
		count(len(links), "step", "steps"), dur(took), dur(gaps), dur(r.Wall))
	rows := criticalRows(links)
	gapW := len("GAP BEFORE")
	anyCut := false
	for _, row := range rows {
		gapW = max(gapW, width(row.gapText()))
		anyCut = anyCut || row.cut
	}
	// AT, a space, the name, a space, TOOK, two spaces, the gap.
	const fixed = 2 + 8 + 1 + 1 + 8 + 2
	nameW := min(max(p.width-fixed-gapW, 12), 40)
	gapHead := "GAP BEFORE"
	if p.width-fixed-nameW < width(gapHead) {
		gapHead = "GAP"
	}
	p.line("  %-8s %s %8s  %s", "AT", pad("STEP", nameW), "TOOK", gapHead)
	for _, row := range rows {
		first := row.links[0].Step
		name := first.Name
		if n := len(row.links); n > 1 {
			suffix := fmt.Sprintf(" ×%d", n)
			name = cutMiddle(name, nameW-width(suffix)) + suffix
		}
		tookText := dur(row.took)
		if row.cut {
			tookText = "≥" + tookText
		}
		left := fmt.Sprintf("  %-8s %s %s", offset(r, first.Started), pad(cutMiddle(name, nameW), nameW), padLeft(tookText, 8))
		gap := row.gapText()
		if gap == "" {
			p.line("%s", left)
			continue
		}
		if width(left)+2+width(gap) <= p.width {
			p.line("%s  %s", left, gap)
			continue
		}
		// Too narrow for the reason: it goes on the lines below, under
		// the step.
		p.line("%s  %s", left, dur(row.gap))
		if row.why != "" {
			p.wrapped(strings.Repeat(" ", 9), "(gap: "+row.why+")")
		}
	}
	if end := endOf(links[len(links)-1].Step); r.Ended.Sub(end) > time.Millisecond {
		what := "run ended"
		if r.Running {
			what = "now, still running"
		}
		p.line("  %-8s %s", offset(r, r.Ended), what)
	}
	if anyCut {
		p.wrapped("", "≥: a step cut short (its process stopped without ending it); it ran at least this long")
	}
}

// criticalRows folds runs of at least foldCritical steps of one agent in
// one state into one row; the row's gap reason is that of its largest
// gap.
func criticalRows(links []Link) []criticalRow {
	var rows []criticalRow
	for i := 0; i < len(links); {
		j := i + 1
		for j < len(links) && links[j].Step.Agent == links[i].Step.Agent && links[j].Step.State == links[i].Step.State {
			j++
		}
		if j-i < foldCritical {
			j = i + 1
		}
		row := criticalRow{links: links[i:j]}
		var largest time.Duration
		for _, l := range row.links {
			row.took += l.Step.Duration
			row.gap += l.Gap
			row.cut = row.cut || l.Step.CutShort
			if l.Why != "" && l.Gap > largest {
				row.why, largest = l.Why, l.Gap
			}
		}
		rows = append(rows, row)
		i = j
	}
	return rows
}

// gapText is the GAP BEFORE cell: the gap and, when known, its reason.
func (row criticalRow) gapText() string {
	if row.gap <= 0 {
		return ""
	}
	if row.why == "" {
		return dur(row.gap)
	}
	return dur(row.gap) + " " + row.why
}
