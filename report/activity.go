package report

import (
	"raymond/step"
	"raymond/transcript"
)

// Activity turns what a step's runner reports while the step runs into the
// live event the stream publishes, for agent running stateName. ok is false
// for what no sink shows: the session's start, a tool that succeeded, the
// rate-limit state, API errors (the step's outcome says those).
func Activity(agent, stateName string, e step.Event) (ev transcript.Event, ok bool) {
	ev = transcript.Event{Agent: agent, State: stateName}
	switch e.Kind {
	case step.EventText:
		ev.Type, ev.Message = transcript.EventText, e.Text
	case step.EventToolUse:
		ev.Type, ev.Tool, ev.Message = transcript.EventToolUse, e.Tool, e.Detail
	case step.EventToolResult:
		if !e.IsError {
			return ev, false
		}
		ev.Type, ev.Tool, ev.Message = transcript.EventToolFailed, e.Tool, e.Detail
	case step.EventPrint:
		ev.Type, ev.Message = transcript.EventPrint, e.Text
	case step.EventRetry:
		ev.Type, ev.Code, ev.Attempt = transcript.EventAPIRetry, e.Status, e.Attempt
	case step.EventLoopWarning:
		ev.Type, ev.Tool, ev.Message, ev.Count, ev.Max = transcript.EventToolRepeated, e.Tool, e.Detail, e.Count, e.Limit
	case step.EventFallback:
		ev.Type, ev.Model, ev.Target, ev.Outcome = transcript.EventFallback, e.From, e.To, e.Text
		ev.Message = transcript.FallbackMessage(e.From, e.Text, e.To)
	default:
		return ev, false
	}
	return ev, true
}
