package notify

import (
	"fmt"
	"time"
)

// Message is one notification, and the body of the json format as it is
// sent (docs/running.md documents it). A field that does not apply to the
// event is left out. Question and Result are filled in only for targets
// with include_text.
type Message struct {
	// Event is ask, failed, budget, waiting or completed.
	Event string `json:"event"`
	// RunID and Workflow name the run.
	RunID    string `json:"run_id"`
	Workflow string `json:"workflow,omitempty"`
	// Agent, AskID and State are the ask's (ask).
	Agent string `json:"agent,omitempty"`
	AskID string `json:"ask_id,omitempty"`
	State string `json:"state,omitempty"`
	// Deadline is when an ask expires (ask with a timeout).
	Deadline *time.Time `json:"deadline,omitempty"`
	// Status is the run's status: asking, waiting, failed,
	// budget_exceeded or completed.
	Status string `json:"status"`
	// CostUSD is what the run has cost so far (failed, budget, completed).
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// DurationMS is how long the run has taken since it was created
	// (failed, budget, completed).
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Until is when a usage-limit wait ends (waiting).
	Until *time.Time `json:"until,omitempty"`
	// Error is raymond's error for the run (failed, budget), or the reason
	// of a wait (waiting): raymond's own words, the first line of each
	// failure.
	Error string `json:"error,omitempty"`
	// ErrorDetail is the error in full, with what a script or claude
	// wrote on stderr quoted under raymond's words (include_text only).
	ErrorDetail *string `json:"error_detail,omitempty"`
	// Text says what happened in one line of words, without any text a
	// model or a person wrote.
	Text string `json:"text"`
	// Link opens the run on the daemon's page, where its asks are
	// answered; "" when no page is known.
	Link string `json:"link,omitempty"`
	// Answer is the command that answers an ask from the command line
	// (ask, from raymond run).
	Answer string `json:"answer_command,omitempty"`
	// Question is the ask's question and Result main's result (include_text
	// only).
	Question *string `json:"question,omitempty"`
	Result   *string `json:"result,omitempty"`
	// Time is when it happened.
	Time time.Time `json:"time"`
}

// forTarget is m as t receives it: with t's page_url in the link, and
// without text unless t includes it.
func (m Message) forTarget(t *Target) Message {
	if t.PageURL != "" {
		m.Link = Link(t.PageURL, m.RunID)
	}
	if !t.IncludeText {
		m.Question, m.Result, m.ErrorDetail = nil, nil, nil
	}
	return m
}

// title is a short headline of m, for ntfy's title and Slack's first words.
func (m *Message) title() string {
	switch m.Event {
	case EventAsk:
		return fmt.Sprintf("raymond: %s asks a question", m.RunID)
	case EventFailed:
		return fmt.Sprintf("raymond: %s failed", m.RunID)
	case EventBudget:
		return fmt.Sprintf("raymond: %s reached its budget", m.RunID)
	case EventWaiting:
		return fmt.Sprintf("raymond: %s waits for a usage limit", m.RunID)
	case EventCompleted:
		return fmt.Sprintf("raymond: %s completed", m.RunID)
	}
	return "raymond: " + m.RunID
}
