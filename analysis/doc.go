// Package analysis reads a run's transcript (.raymond/debug/<id>/: events,
// and each step's prompt, stream and meta files) and the run's state file,
// and answers what a person asks after a run: how it ended, where it went,
// where the time and the money went, what one step did. It backs
// `raymond transcript` in its text, JSON, Mermaid and HTML forms, and the
// recording of runs as workflow tests.
//
// A transcript that is cut short (a crash, a run still going) or torn (a
// half-written last line) is analysed as far as it goes; Run.Notes says
// what is missing.
package analysis
