// Package report is the one place that words a run's events for people.
//
// The driver publishes [transcript.Event] values; the transcript writer
// keeps those that are not live, and the progress printer ([Printer]) and
// `raymond transcript --follow` ([FollowLine]) word them here, from the
// event alone, so that a progress line and a follow line about the same
// event say the same thing. Progress lines keep free text as it is and may
// run over several lines (a print, the run's summary); follow lines are one
// line each, free text cut to its first line.
//
// Some events have no progress line (step_ended, agent_completed, paused,
// budget_exceeded, run_ended: other lines already say it) and some are live
// only (transcript.Event.Live), so a follower never sees them.
package report
