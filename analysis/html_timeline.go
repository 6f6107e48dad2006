package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Geometry of the timeline chart, in SVG user units (the chart scales to
// the page's width).
const (
	tlWidth     = 1200
	tlLabelW    = 170 // the column of agent names
	tlPadRight  = 16
	tlPlotW     = tlWidth - tlLabelW - tlPadRight
	tlLoadTop   = 8 // the strip that counts the running steps
	tlLoadH     = 40
	tlRowsTop   = tlLoadTop + tlLoadH + 14
	tlAxisH     = 28
	tlMaxRows   = 120 // agents drawn at most; a note says how many were left out
	tlRowsSpace = 660 // the height rows share when there are many
	tlRowMaxH   = 22
	tlRowMinH   = 8
	tlLabelMinH = 12 // rows thinner than this carry no name (a tooltip has it)
	tlMinBarW   = 1.5
)

// htmlTimeline is the timeline chart, laid out: agents as rows, steps as
// bars over wall-clock time.
type htmlTimeline struct {
	Width, Height int
	LabelX        int // right edge of the agent names
	PlotX, PlotW  int
	PlotEnd       int
	RowsBottom    float64
	AxisY, TickY  float64
	WaitH         float64 // waits shade the strip and every row
	LoadLabelY    float64
	Labels        bool // rows are tall enough to carry agent names
	FontSize      float64
	Rows          []tlRow
	Bars          []tlBar
	Waits         []tlBand
	Pauses        []tlBand // no process drove the run
	// Asks are the times agents waited for a person's answer.
	Asks  []tlAskBar
	Ticks []tlTick
	// Load is the outline of the running-steps strip (SVG points), and
	// MaxLoad its peak.
	Load    string
	MaxLoad int
	LoadTop int
	LoadH   int
	// Origin is the instant the axis counts from.
	Origin string
	// Note says which agents were left out, when some were.
	Note string
}

// tlRow is one agent's row. Life is the faint line under its bars, while
// the agent lived (waiting for a slot or a retry, or for the agents it
// forked, between its steps); LifeW is 0 when there is none.
type tlRow struct {
	Y, H, TextY  float64
	Label, Full  string
	Odd          bool
	Anchor       string
	LifeX, LifeY float64
	LifeW, LifeH float64
}

// tlBar is one step.
type tlBar struct {
	X, Y, W, H float64
	Class      string
	Critical   bool
	Title      string
	Anchor     string
}

// tlBand is a stretch of time shaded across every row: a usage-limit
// wait, or a pause between two processes driving the run.
type tlBand struct {
	X, W  float64
	Title string
}

// tlTick is a mark of the time axis.
type tlTick struct {
	X     float64
	Label string
}

// tlSpan is the stretch of time the chart covers.
type tlSpan struct{ from, to time.Time }

func (s tlSpan) x(t time.Time) float64 {
	total := s.to.Sub(s.from)
	f := float64(t.Sub(s.from)) / float64(total)
	return tlRound(tlLabelW + math.Max(0, math.Min(1, f))*tlPlotW)
}

// buildTimeline lays out the timeline of r, or returns nil when r has no
// step to show.
func buildTimeline(r *Run, anchors map[string]string, critical map[string]bool) *htmlTimeline {
	if len(r.Steps) == 0 {
		return nil
	}
	span := timelineSpan(r)
	shown, note := timelineAgents(r)
	n := len(shown)
	rowH := math.Max(tlRowMinH, math.Min(tlRowMaxH, math.Floor(tlRowsSpace/float64(n))))
	tl := &htmlTimeline{
		Width:      tlWidth,
		LabelX:     tlLabelW - 8,
		PlotX:      tlLabelW,
		PlotW:      tlPlotW,
		PlotEnd:    tlLabelW + tlPlotW,
		LoadTop:    tlLoadTop,
		LoadH:      tlLoadH,
		LoadLabelY: tlLoadTop + tlLoadH/2 + 4,
		Labels:     rowH >= tlLabelMinH,
		// The font shrinks with the rows, within what stays readable.
		FontSize: math.Min(12, math.Max(9, rowH-6)),
		Origin:   htmlWhen(span.from),
		Note:     note,
	}
	byAgent := make(map[string][]*Step, n)
	for _, s := range r.Steps {
		byAgent[s.Agent] = append(byAgent[s.Agent], s)
	}
	row := make(map[string]int, n)
	for i, a := range shown {
		y := float64(tlRowsTop) + float64(i)*rowH
		row[a.ID] = i
		tr := tlRow{
			Y: y, H: rowH, TextY: tlRound(y + rowH/2 + tl.FontSize*0.35),
			Label: htmlClip(a.ID, 24), Full: a.ID, Odd: i%2 == 1,
			Anchor: anchors[htmlAgentKey(a.ID)],
		}
		if steps := byAgent[a.ID]; len(steps) > 0 {
			from, to := lifeOf(r, a, steps)
			if a.Status == "running" {
				to = span.to
			}
			tr.LifeH = math.Max(1, math.Round(rowH*0.2))
			tr.LifeX, tr.LifeY = span.x(from), tlRound(y+(rowH-tr.LifeH)/2)
			tr.LifeW = tlRound(math.Max(0, span.x(to)-tr.LifeX))
		}
		tl.Rows = append(tl.Rows, tr)
	}
	tl.RowsBottom = float64(tlRowsTop) + float64(n)*rowH
	tl.AxisY = tl.RowsBottom
	tl.TickY = tl.AxisY + 17
	tl.WaitH = tl.RowsBottom - tlLoadTop
	tl.Height = int(math.Ceil(tl.RowsBottom)) + tlAxisH

	inset := math.Max(1, math.Round(rowH*0.18))
	for _, s := range r.Steps {
		i, ok := row[s.Agent]
		if !ok {
			continue
		}
		end := endOf(s)
		if s.Ended.IsZero() && s.Duration == 0 {
			end = span.to // how long it ran is not known
		}
		x0, x1 := span.x(s.Started), span.x(end)
		tl.Bars = append(tl.Bars, tlBar{
			X: x0, W: tlRound(math.Max(tlMinBarW, x1-x0)),
			Y: tl.Rows[i].Y + inset, H: rowH - 2*inset,
			Class:    htmlStepClass(s),
			Critical: critical[s.Name],
			Title:    timelineTitle(s),
			Anchor:   anchors[s.Name],
		})
	}
	timelineAsks(r, tl, row, span)
	for _, w := range r.Waits {
		end := w.Ended
		if end.IsZero() {
			end = span.to
		}
		x0, x1 := span.x(w.Started), span.x(end)
		title := fmt.Sprintf("usage-limit wait %s–%s (%s)", htmlClock(w.Started), htmlClock(end),
			htmlDuration(end.Sub(w.Started).Milliseconds()))
		if w.Reason != "" {
			title += ": " + w.Reason
		}
		tl.Waits = append(tl.Waits, tlBand{X: x0, W: tlRound(math.Max(tlMinBarW, x1-x0)), Title: title})
	}
	for i := 1; i < len(r.Processes); i++ {
		from, to := r.Processes[i-1].Ended, r.Processes[i].Started
		if from.IsZero() || !to.After(from) {
			continue
		}
		how := "the run was paused"
		if r.Processes[i-1].Crashed {
			how = "the process driving the run stopped without ending it"
		}
		x0, x1 := span.x(from), span.x(to)
		tl.Pauses = append(tl.Pauses, tlBand{X: x0, W: tlRound(math.Max(tlMinBarW, x1-x0)),
			Title: fmt.Sprintf("%s–%s (%s): %s; nothing ran until it was resumed", htmlClock(from), htmlClock(to),
				htmlDuration(to.Sub(from).Milliseconds()), how)})
	}
	tl.Ticks = timelineTicks(span)
	tl.Load, tl.MaxLoad = timelineLoad(r, span)
	return tl
}

// timelineSpan is from the run's start to the last thing the transcript
// shows: the run's end, a step's end, or a wait's.
func timelineSpan(r *Run) tlSpan {
	from, to := r.Started, r.Ended
	for _, s := range r.Steps {
		if from.IsZero() || (!s.Started.IsZero() && s.Started.Before(from)) {
			from = s.Started
		}
		to = tlLater(to, s.Started, s.Ended)
	}
	for _, w := range r.Waits {
		to = tlLater(to, w.Started, w.Ended)
	}
	if !to.After(from) {
		to = from.Add(time.Second)
	}
	return tlSpan{from, to}
}

func tlLater(t time.Time, others ...time.Time) time.Time {
	for _, o := range others {
		if o.After(t) {
			t = o
		}
	}
	return t
}

// timelineTitle is a bar's tooltip.
func timelineTitle(s *Step) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nstate %s", s.Name, s.State)
	switch {
	case s.Ended.IsZero() && s.CutShort:
		fmt.Fprintf(&b, "\nstarted %s, cut short: its process stopped %s later", htmlClock(s.Started), htmlDuration(s.DurationMS))
	case s.Ended.IsZero():
		fmt.Fprintf(&b, "\nstarted %s, not ended", htmlClock(s.Started))
	default:
		fmt.Fprintf(&b, "\n%s (%s–%s)", htmlDuration(s.DurationMS), htmlClock(s.Started), htmlClock(s.Ended))
	}
	fmt.Fprintf(&b, "\ncost %s", htmlMoney(s.CostUSD))
	fmt.Fprintf(&b, "\n%s", htmlStepOutcome(s))
	if s.Tag != "" {
		fmt.Fprintf(&b, "\n%s", htmlTransition(s.Tag, s.Target))
	}
	return b.String()
}

// tlSteps are the tick intervals the axis may use.
var tlSteps = []time.Duration{
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// timelineTicks marks the axis at the first round interval that gives at
// most ten ticks; a span longer than ten days (a transcript whose times are
// off) gets ten even ticks. The count is bounded whatever the span.
func timelineTicks(span tlSpan) []tlTick {
	total := span.to.Sub(span.from)
	if total < 0 {
		return nil
	}
	step := total/10 + 1
	for _, s := range tlSteps {
		if total/s <= 10 {
			step = s
			break
		}
	}
	var ticks []tlTick
	for i := time.Duration(0); i <= 10; i++ {
		d := i * step
		if d < 0 || d > total { // d < 0: the product overflowed
			break
		}
		ticks = append(ticks, tlTick{X: span.x(span.from.Add(d)), Label: htmlOffset(d)})
	}
	return ticks
}

// timelineLoad outlines the number of steps running over time, as the
// points of a polygon in the strip above the rows.
func timelineLoad(r *Run, span tlSpan) (string, int) {
	levels := runningLevels(r)
	peak := 0
	for _, l := range levels {
		peak = max(peak, l.n)
	}
	if peak == 0 {
		return "", 0
	}
	base := float64(tlLoadTop + tlLoadH)
	y := func(n int) float64 { return tlRound(base - float64(n)/float64(peak)*tlLoadH) }
	var b strings.Builder
	pt := func(x, y float64) {
		b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(y, 'f', -1, 64))
		b.WriteByte(' ')
	}
	pt(tlLabelW, base)
	before := 0 // one vertical step per instant: the level before, then after
	for _, l := range levels {
		x := span.x(l.t)
		pt(x, y(before))
		pt(x, y(l.n))
		before = l.n
	}
	pt(tlLabelW+tlPlotW, base)
	return strings.TrimSpace(b.String()), peak
}

// tlRound keeps SVG coordinates short.
func tlRound(f float64) float64 { return math.Round(f*10) / 10 }
