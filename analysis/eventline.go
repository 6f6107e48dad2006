package analysis

import (
	"raymond/report"
	"raymond/transcript"
)

// EventLine describes an event of events.jsonl in one line, as
// `raymond transcript --follow` prints it: the local time, the agent in
// brackets, and what happened, in the words of raymond's progress lines
// (report.FollowLine).
func EventLine(e *transcript.Event) string { return report.FollowLine(e) }
