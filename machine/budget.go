package machine

import (
	"fmt"
	"math"
	"strings"

	"raymond/state"
)

// minShare is the smallest --max-budget-usd a paid step starts with while
// other steps hold reservations: below it, the step would most likely be
// stopped after its first API request, so it waits for a step in flight to
// end and give back what it did not spend.
const minShare = 0.001

// reserve sets the --max-budget-usd of the paid steps of a round, the
// agents about to start together, and returns those that start. A step's
// cap is reserved while it is prepared and runs: no other step may be
// given that money. The paid steps of a round share what no step in flight
// holds equally (rounded down to the micro-dollar), so together they
// cannot spend more than is left, and Claude Code stops each within one
// API request of its share. When the shares would be below minShare while
// other steps hold reservations, only as many start as get minShare each;
// the others stay first in the ready queue until a step ends. With nothing
// reserved, one step always starts, with all that is left. Script steps
// cost nothing: they take no share and always start.
func (m *Machine) reserve(round []*state.Agent) []*state.Agent {
	r := m.run
	if r.BudgetUSD <= 0 {
		return round
	}
	paid := 0
	for _, a := range round {
		if !isScript(a.Pending.State) {
			paid++
		}
	}
	if paid == 0 {
		return round
	}
	left := r.BudgetUSD - r.TotalCostUSD
	for _, c := range m.reserved {
		left -= c
	}
	n := paid
	if left/float64(n) < minShare {
		n = max(int(left/minShare), 0)
		if n == 0 && len(m.reserved) == 0 {
			n = 1
		}
	}
	var start []*state.Agent
	var wait []string
	for _, a := range round {
		switch {
		case isScript(a.Pending.State):
			start = append(start, a)
		case n > 0:
			m.reserved[a.ID] = capOf(left / float64(n))
			left -= m.reserved[a.ID]
			n--
			start = append(start, a)
		default:
			wait = append(wait, a.ID)
		}
	}
	m.requeue(wait)
	return start
}

// capOf is a cap of usd rounded down to the micro-dollar, and never 0,
// which would mean no cap. Claude Code compares the cap with the spend of
// that one call, from $0 also for a resumed or branched step, checked after
// each API request; adding what the session cost before would let a
// resumed step overspend by that much.
func capOf(usd float64) float64 {
	return max(math.Floor(math.Round(usd*1e9)/1e3)/1e6, 1e-6)
}

// release ends the reservation of an agent's step: it no longer runs.
func (m *Machine) release(id string) {
	delete(m.running, id)
	delete(m.reserved, id)
}

// requeue puts agents back at the head of the ready queue, in order.
func (m *Machine) requeue(ids []string) {
	if len(ids) == 0 {
		return
	}
	q := make([]string, 0, len(ids)+len(m.queue)-m.head)
	for _, id := range ids {
		if !m.queued[id] {
			m.queued[id] = true
			q = append(q, id)
		}
	}
	m.queue, m.head = append(q, m.queue[m.head:]...), 0
}

// isScript reports whether a state is a script (NAME.sh): it runs no
// model and costs nothing.
func isScript(stateName string) bool {
	return strings.HasSuffix(stateName, ".sh")
}

// budgetReached is the error of a run that has spent its budget.
func budgetReached(r *state.Run) string {
	return fmt.Sprintf("budget reached: $%.4f spent of $%.4f", r.TotalCostUSD, r.BudgetUSD)
}
