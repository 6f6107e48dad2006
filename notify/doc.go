// Package notify tells people outside the terminal what a run needs or did:
// an ask opened, the run failed, reached its budget, waits for a usage limit
// to reset, or completed. The targets are the [[notify]] entries of a
// project's config.toml (Target); a Notifier sends to them in the
// background, one queue and one sender per target, retrying with back-off,
// so that a slow or dead receiver never holds up or fails a run; a Sink
// turns a run's event stream (transcript.Event) into notifications, so runs
// of the command line and of a daemon notify alike.
//
// Three formats: a JSON body of its own with an HMAC-SHA256 signature
// header (Message is its schema), an ntfy topic (text body, Title, Tags,
// Priority and Click headers) and a Slack-compatible incoming webhook
// ({"text": ...}). No prompt, question, answer or result text is sent unless
// the target sets include_text.
package notify
