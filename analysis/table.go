package analysis

import (
	"fmt"
	"slices"
	"strings"
)

// maxStateRows is how many states the States table lists.
const maxStateRows = 40

// minStateCol is the narrowest the STATE column gets: columns of numbers
// are left out, the least telling first, to keep it this wide.
const minStateCol = 12

// stateColumn is one column of numbers of the States table.
type stateColumn struct {
	head  string
	width int
	value func(*StateStats) string
	// legend explains the column under the table; "" needs none.
	legend string
}

var stateColumns = []stateColumn{
	{"VISITS", 6, func(s *StateStats) string { return fmt.Sprint(s.Visits) }, "VISITS: entries into the state"},
	{"STEPS", 5, func(s *StateStats) string { return fmt.Sprint(s.Steps) }, ""},
	{"TIME", 7, func(s *StateStats) string { return dur(s.Duration) }, "TIME: the steps' durations added up"},
	{"MEAN", 7, meanCell, "MEAN: per visit that ran"},
	{"COST", 9, func(s *StateStats) string { return money(s.CostUSD) }, ""},
	{"TOKENS", 6, func(s *StateStats) string { return compact(s.Tokens.Input + s.Tokens.Output) }, "TOKENS: in + out"},
	{"REM", 3, func(s *StateStats) string { return fmt.Sprint(s.Reminders) }, "REM: reminders"},
	{"FAIL", 4, func(s *StateStats) string { return fmt.Sprint(s.Failures) }, "FAIL: failed steps"},
}

// dropOrder is the order in which columns are left out when the width is
// short: tokens, the mean, the visit count, then, at the narrowest,
// reminders, failures and steps. STATE, TIME and COST stay.
var dropOrder = []string{"TOKENS", "MEAN", "VISITS", "REM", "FAIL", "STEPS"}

// states writes the per-state table, sorted by cost or by time.
func (p *textReport) states(r *Run, sortBy string) {
	if sortBy != "time" {
		sortBy = "cost"
	}
	rows := slices.Clone(r.States)
	SortStates(rows, sortBy)
	p.title(false, "States, by %s", sortBy)

	cols := slices.Clone(stateColumns)
	numW := func() int {
		n := 0
		for _, c := range cols {
			n += c.width + 1
		}
		return n
	}
	for _, drop := range dropOrder {
		if p.width-2-numW() >= minStateCol {
			break
		}
		cols = slices.DeleteFunc(cols, func(c stateColumn) bool { return c.head == drop })
	}
	nameW := 5
	for _, st := range rows {
		nameW = max(nameW, width(st.State))
	}
	nameW = min(nameW, max(p.width-2-numW(), minStateCol))
	row := func(name string, cell func(stateColumn) string) {
		var b strings.Builder
		b.WriteString("  " + pad(cutMiddle(name, nameW), nameW))
		for _, c := range cols {
			b.WriteString(" " + fmt.Sprintf("%*s", c.width, cell(c)))
		}
		p.line("%s", b.String())
	}
	row("STATE", func(c stateColumn) string { return c.head })
	shown := rows
	if len(rows) > maxStateRows {
		shown = rows[:maxStateRows]
	}
	for _, st := range shown {
		row(st.State, func(c stateColumn) string { return c.value(st) })
	}
	if len(rows) > len(shown) {
		p.line("  … %s more (--json lists them all)", count(len(rows)-len(shown), "state", "states"))
	}
	var legend []string
	for _, c := range cols {
		if c.legend != "" {
			legend = append(legend, c.legend)
		}
	}
	p.wrapped("", strings.Join(legend, "; "))
}

// meanCell is a state's mean time per visit that ran, "-" when none ran.
func meanCell(s *StateStats) string {
	if s.Visits > 0 && s.Visits == s.NotRun {
		return "-"
	}
	return dur(s.Mean)
}
