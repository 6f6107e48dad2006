package notify

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"raymond/transcript"
)

// Run is what a Sink knows of the run it follows besides its events.
type Run struct {
	// ID and Workflow name the run.
	ID, Workflow string
	// Created is when the run was created, for the duration reported.
	Created time.Time
	// Page is the daemon page's address (http://127.0.0.1:7777/), "" when
	// there is none: an ask's link is Page#/runs/ID. A target's own
	// page_url wins.
	Page string
	// Answer, when set, gives the command that answers an ask (the
	// command line's raymond answer).
	Answer func(askID string) string
}

// mainAgent is the agent whose result is the run's (machine.MainAgent).
const mainAgent = "main"

// Sink turns the events of one run into notifications for a Notifier. It
// is an orchestrator.Sink.
type Sink struct {
	n   *Notifier
	run Run

	mu     sync.Mutex
	result *string // main's result
	err    string  // run_ended's error
}

// Sink returns the sink of one run; a nil Notifier gives a nil Sink, which
// sends nothing.
func (n *Notifier) Sink(r Run) *Sink {
	if n == nil {
		return nil
	}
	return &Sink{n: n, run: r}
}

// Event takes one event of the run.
func (s *Sink) Event(e transcript.Event) {
	if s == nil {
		return
	}
	switch e.Type {
	case transcript.EventAgentCompleted:
		if e.Agent == mainAgent && e.Payload != nil {
			s.mu.Lock()
			p := *e.Payload
			s.result = &p
			s.mu.Unlock()
		}
	case transcript.EventRunEnded:
		s.mu.Lock()
		s.err = e.Message
		s.mu.Unlock()
	case transcript.EventAsk:
		m := s.message(EventAsk, e)
		m.Status = "asking"
		m.Agent, m.AskID, m.State, m.Deadline = e.Agent, e.AskID, e.State, utc(e.Deadline)
		q := e.Message
		m.Question = &q
		if s.run.Answer != nil {
			m.Answer = s.run.Answer(e.AskID)
		}
		m.Text = fmt.Sprintf("Run %s (%s): agent %s asks a question (%s) at %s.", m.RunID, m.Workflow, e.Agent, e.AskID, e.State)
		s.n.Send(m)
	case transcript.EventWait:
		m := s.message(EventWaiting, e)
		m.Status = "waiting"
		m.Until = utc(e.Until)
		m.setError(e.Message)
		until := "its reset"
		if e.Until != nil {
			until = e.Until.UTC().Format(time.RFC3339)
		}
		m.Text = fmt.Sprintf("Run %s (%s) reached a usage limit; no new step starts until %s.", m.RunID, m.Workflow, until)
		s.n.Send(m)
	case transcript.EventSummary:
		s.summary(e)
	}
}

// summary notifies the end of a drive that ended the run: completed,
// failed or at its budget. A run that pauses or waits for answers ends no
// notification here.
func (s *Sink) summary(e transcript.Event) {
	var event string
	switch e.Status {
	case "completed":
		event = EventCompleted
	case "failed":
		event = EventFailed
	case "budget_exceeded":
		event = EventBudget
	default:
		return
	}
	s.mu.Lock()
	result, runErr := s.result, s.err
	s.mu.Unlock()
	m := s.message(event, e)
	m.Status = e.Status
	m.CostUSD = e.TotalCostUSD
	m.DurationMS = e.DurationMS
	if !s.run.Created.IsZero() && e.Time.After(s.run.Created) {
		m.DurationMS = e.Time.Sub(s.run.Created).Milliseconds()
	}
	cost := 0.0
	if e.TotalCostUSD != nil {
		cost = *e.TotalCostUSD
	}
	took := (time.Duration(m.DurationMS) * time.Millisecond).Round(time.Second)
	switch event {
	case EventCompleted:
		m.Result = result
		m.Text = fmt.Sprintf("Run %s (%s) completed in %s for $%.4f.", m.RunID, m.Workflow, took, cost)
	case EventFailed:
		full := runErr
		if full == "" {
			var failed []string
			for _, f := range e.Failures {
				failed = append(failed, fmt.Sprintf("%s at %s: %s", f.Agent, f.State, f.Error))
			}
			full = strings.Join(failed, "\n")
		}
		m.setError(full)
		m.Text = fmt.Sprintf("Run %s (%s) failed after %s ($%.4f): %s", m.RunID, m.Workflow, took, cost, m.Error)
	case EventBudget:
		m.setError(runErr)
		m.Text = fmt.Sprintf("Run %s (%s) stopped at its budget after %s ($%.4f); resume it with a higher --budget.", m.RunID, m.Workflow, took, cost)
	}
	s.n.Send(m)
}

// message starts the notification of event e.
func (s *Sink) message(event string, e transcript.Event) Message {
	id := s.run.ID
	if id == "" {
		id = e.Run
	}
	m := Message{Event: event, RunID: id, Workflow: s.run.Workflow, Time: e.Time.UTC()}
	if s.run.Page != "" {
		m.Link = Link(s.run.Page, id)
	}
	return m
}

// Link is the address of run id on the daemon's page at page.
func Link(page, id string) string {
	return strings.TrimRight(page, "/") + "/#/runs/" + url.PathEscape(id)
}

// setError sets the error of m from raymond's error text: its own words,
// the first line of each failure, always; the rest (the stderr a script
// or claude left, quoted under it) only for targets with include_text.
func (m *Message) setError(full string) {
	var own []string
	for _, line := range strings.Split(full, "\n") {
		if line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			own = append(own, line)
		}
	}
	m.Error = strings.Join(own, "; ")
	if m.Error != full {
		m.ErrorDetail = &full
	}
}

// utc is t in UTC, as every time of a message is given.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
