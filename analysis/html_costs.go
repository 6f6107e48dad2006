package analysis

import (
	"fmt"
	"math"
)

// Geometry of the cost-per-state chart.
const (
	costWidth   = 1200
	costLabelW  = 190
	costValueW  = 330 // room right of the longest bar for its numbers
	costRowH    = 24
	costBarH    = 14
	costTop     = 4
	costMaxRows = 40
)

// htmlCosts is the cost-per-state chart: one horizontal bar per state,
// the most expensive first.
type htmlCosts struct {
	Width, Height int
	Rows          []costRow
	// Empty is set when no state cost anything: the report says so
	// instead of drawing bars of no length.
	Empty bool
	Note  string
}

// costRow is one state's bar.
type costRow struct {
	Y, BarY, TextY float64
	BarH           float64
	LabelX         float64
	Label, Full    string
	X, W           float64
	ValueX         float64
	Value          string
	Title          string
}

// buildCosts lays out the cost-per-state chart of r, or returns nil when
// r has no state statistics.
func buildCosts(r *Run) *htmlCosts {
	states := r.States
	if len(states) == 0 {
		return nil
	}
	c := &htmlCosts{Width: costWidth}
	if len(states) > costMaxRows {
		c.Note = fmt.Sprintf("The %d most expensive of %d states; the others cost %s together.",
			costMaxRows, len(states), htmlMoney(costSum(states[costMaxRows:])))
		states = states[:costMaxRows]
	}
	top, total := 0.0, costSum(r.States)
	for _, s := range states {
		top = math.Max(top, s.CostUSD)
	}
	c.Empty = top <= 0
	plotW := float64(costWidth - costLabelW - costValueW)
	for i, s := range states {
		y := float64(costTop + i*costRowH)
		w := 0.0
		if top > 0 {
			w = tlRound(s.CostUSD / top * plotW)
		}
		if s.CostUSD > 0 {
			w = math.Max(w, tlMinBarW)
		}
		value := htmlMoney(s.CostUSD)
		switch {
		case total <= 0:
		case s.CostUSD > 0 && s.CostUSD/total < 0.01:
			value += " (<1%)"
		default:
			value += fmt.Sprintf(" (%.0f%%)", s.CostUSD/total*100)
		}
		value += " · " + htmlPlural(s.Visits, "visit", "visits") + " · " + htmlDuration(s.DurationMS)
		mean := htmlDuration(s.MeanMS) + " per visit that ran"
		if s.Visits == s.NotRun {
			mean = "no visit ran"
		}
		title := fmt.Sprintf("%s\n%s over %s and %s\n%s in all, %s\n%s tokens in, %s out",
			s.State, htmlMoney(s.CostUSD), htmlPlural(s.Visits, "visit", "visits"),
			htmlPlural(s.Steps, "step", "steps"), htmlDuration(s.DurationMS), mean,
			htmlTokens(s.Tokens.Input), htmlTokens(s.Tokens.Output))
		if s.Reminders > 0 || s.Failures > 0 {
			title += fmt.Sprintf("\n%s, %s", htmlPlural(s.Reminders, "reminder", "reminders"),
				htmlPlural(s.Failures, "failed step", "failed steps"))
		}
		c.Rows = append(c.Rows, costRow{
			Y: y, BarY: y + (costRowH-costBarH)/2, BarH: costBarH, TextY: y + costRowH/2 + 4,
			LabelX: costLabelW - 10,
			Label:  htmlClip(s.State, 26), Full: s.State,
			X: costLabelW, W: w, ValueX: costLabelW + w + 8,
			Value: value, Title: title,
		})
	}
	c.Height = costTop*2 + len(c.Rows)*costRowH
	return c
}

func costSum(states []*StateStats) float64 {
	sum := 0.0
	for _, s := range states {
		sum += s.CostUSD
	}
	return sum
}
