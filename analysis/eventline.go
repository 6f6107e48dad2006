package analysis

import (
	"fmt"
	"strings"
	"time"

	"raymond/claude"
	"raymond/transcript"
)

// EventLine describes an event of events.jsonl in one line, as
// `raymond transcript --follow` prints it: the local time, the agent in
// brackets, and what happened, in the words of raymond's progress lines.
func EventLine(e *transcript.Event) string {
	var b strings.Builder
	b.WriteString(e.Time.Local().Format("15:04:05"))
	b.WriteByte(' ')
	if e.Agent != "" {
		b.WriteString("[" + e.Agent + "] ")
	}
	b.WriteString(eventText(e))
	return b.String()
}

// eventText is what an event says, without time and agent.
func eventText(e *transcript.Event) string {
	cost := func() string {
		if e.CostUSD == nil {
			return ""
		}
		s := "  " + money(*e.CostUSD)
		if e.TotalCostUSD != nil {
			s += ", total " + money(*e.TotalCostUSD)
		}
		return s
	}
	switch e.Type {
	case transcript.EventRunStarted:
		s := "run started"
		if e.State != "" {
			s += " at " + e.State
		}
		return because(s, e.Message)
	case transcript.EventRunResumed:
		return because("run resumed", e.Message)
	case transcript.EventStepStarted:
		s := fmt.Sprintf("%s: step %s started", e.State, e.Step)
		if e.Attempt > 1 {
			s += fmt.Sprintf(" (attempt %d)", e.Attempt)
		}
		return s
	case transcript.EventStepEnded:
		took := dur(time.Duration(e.DurationMS) * time.Millisecond)
		if e.DurationMS == 0 {
			took = "under 1ms" // the event holds whole milliseconds
		}
		s := fmt.Sprintf("%s: %s in %s", e.State, e.Outcome, took)
		if e.Message != "" {
			if e.Outcome == "success" {
				// The step ran well; its answer was not taken.
				s = fmt.Sprintf("%s: answered in %s, but the answer was refused", e.State, took)
			}
			s += ": " + claude.OneLine(e.Message)
		}
		return s + cost()
	case transcript.EventTransition:
		to := e.Target
		if to == "" {
			to = "done"
		}
		return fmt.Sprintf("%s -> %s (%s)%s", e.State, to, e.Tag, cost())
	case transcript.EventSpawn:
		return fmt.Sprintf("started %s at %s", e.Child, e.State)
	case transcript.EventRetry:
		return fmt.Sprintf("%s; retry, attempt %d", because(e.State, e.Message), e.Attempt)
	case transcript.EventReminder:
		return fmt.Sprintf("%s; reminder %d", because(e.State, e.Message), max(e.Attempt-1, 1))
	case transcript.EventAgentCompleted:
		s := "completed at " + e.State
		if e.Payload != nil {
			s += ": " + claude.OneLine(*e.Payload)
		}
		return s
	case transcript.EventAgentFailed:
		return because("failed", e.Message)
	case transcript.EventWait:
		s := "usage limit: no step starts"
		if e.Until != nil {
			s += " until " + e.Until.Local().Format("15:04:05")
		}
		if e.Message != "" {
			s += " (" + claude.OneLine(e.Message) + ")"
		}
		return s
	case transcript.EventWaitOver:
		return "usage-limit wait over; steps start again"
	case transcript.EventPaused:
		return because("paused", e.Message)
	case transcript.EventBudgetExceeded:
		return because("stopped at the budget", e.Message)
	case transcript.EventWarning:
		return "warning: " + claude.OneLine(warningMessage(e))
	case transcript.EventRunEnded:
		s := "run ended: " + e.Status
		if e.TotalCostUSD != nil {
			s += ", " + money(*e.TotalCostUSD)
		}
		if e.Message != "" {
			s += ": " + claude.OneLine(e.Message)
		}
		return s
	}
	return e.Type
}

// because writes what happened and, when the event says, why: "paused",
// "failed: the answer has no transition tag".
func because(what, message string) string {
	if message = claude.OneLine(message); message != "" {
		return what + ": " + message
	}
	return what
}
