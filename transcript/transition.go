package transcript

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// TransitionsFile is the name of the transitions log in a transcript folder.
const TransitionsFile = "transitions.log"

// payloadRunes is how much of a payload a transitions.log entry shows.
const payloadRunes = 200

// Transition is one entry of transitions.log: a step of an agent and the
// transition it took.
type Transition struct {
	// Time is when the transition was applied; Writer.Transition sets it to
	// now if zero. The log shows it in local time, to the second.
	Time time.Time
	// Agent is the agent that took the transition.
	Agent string
	// From is the state the step ran.
	From string
	// To is the next state, empty when the agent ended (a result with an
	// empty stack).
	To string
	// Tag is the transition's tag: goto, reset, call, function, fork, result.
	Tag string
	// Session is the session of the step; the entry leaves out the
	// session_id line when it is empty.
	Session string
	// SessionNote says how the session came about: "resumed", "new",
	// "branch of <id>".
	SessionNote string
	// CostUSD is the cost of this step.
	CostUSD float64
	// TotalCostUSD is the cost of the run so far.
	TotalCostUSD float64
	// Depth is the agent's stack depth after the transition.
	Depth int
	// Payload is the result's payload or the input attribute, nil if none.
	Payload *string
	// Spawned lists the agents the step's forks started, such as
	// "main_worker1 at WORKER.md".
	Spawned []string
}

// format renders t as a transitions.log entry, blank line included.
func (t Transition) format() string {
	var b strings.Builder
	b.WriteString(t.Time.Local().Format(time.DateTime))
	fmt.Fprintf(&b, " [%s] %s -> ", t.Agent, t.From)
	if t.To == "" {
		fmt.Fprintf(&b, "(%s, terminated)\n", t.Tag)
	} else {
		fmt.Fprintf(&b, "%s (%s)\n", t.To, t.Tag)
	}
	if t.Session != "" {
		b.WriteString("  session_id: " + t.Session)
		if t.SessionNote != "" {
			b.WriteString(" (" + t.SessionNote + ")")
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "  cost: $%.4f\n", t.CostUSD)
	fmt.Fprintf(&b, "  total_cost: $%.4f\n", t.TotalCostUSD)
	if t.Depth > 0 {
		fmt.Fprintf(&b, "  stack_depth: %d\n", t.Depth)
	}
	for _, s := range t.Spawned {
		b.WriteString("  spawned: " + s + "\n")
	}
	if t.Payload != nil {
		key := "input"
		if t.Tag == "result" {
			key = "result"
		}
		b.WriteString("  " + key + ": " + strconv.Quote(cut(*t.Payload, payloadRunes)) + "\n")
	}
	b.WriteByte('\n')
	return b.String()
}

// cut returns s cut to its first n runes followed by "…", or s itself when it
// has no more than n runes.
func cut(s string, n int) string {
	runes := 0
	for i := range s {
		if runes == n {
			return s[:i] + "…"
		}
		runes++
	}
	return s
}
