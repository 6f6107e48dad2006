package analysis

import (
	"fmt"
	"strings"
	"time"

	"raymond/transcript"
)

// The states of an Ask.
const (
	AskPending  = "pending"
	AskAnswered = "answered"
	AskExpired  = "expired"
)

// Ask is one question an agent put to a person with <ask> (protocol §15),
// from its ask event to its ask_answered or ask_expired event.
type Ask struct {
	// ID is the ask's id, ask_<agent>_<n>.
	ID    string `json:"id"`
	Agent string `json:"agent"`
	// State is the state that asked; Step the step whose answer asked, ""
	// when the transcript does not say.
	State    string `json:"state"`
	Step     string `json:"step,omitempty"`
	Question string `json:"question"`
	// Next is where the agent goes once answered.
	Next string `json:"next,omitempty"`
	// Status is pending, answered or expired.
	Status string    `json:"status"`
	Asked  time.Time `json:"asked"`
	// Deadline is when the ask expires, zero (and absent) for none.
	Deadline time.Time `json:"deadline,omitzero"`
	// Closed is when it was answered or expired, zero while pending.
	Closed time.Time `json:"closed,omitzero"`
	// Answer is the person's answer, nil unless answered.
	Answer *string `json:"answer,omitempty"`
	// Target is where the agent went: Next when answered, the ask's
	// timeout_next when it expired ("" when the agent failed instead).
	Target string `json:"target,omitempty"`
	// Wait is how long the ask waited: until Closed, or, while pending,
	// until the run's end (Run.Ended). WaitMS is Wait rounded.
	Wait   time.Duration `json:"-"`
	WaitMS int64         `json:"wait_ms"`
}

// askEvent records an ask event.
func (b *builder) askEvent(e *transcript.Event) {
	if b.asks[e.AskID] != nil || e.AskID == "" {
		return // a resumed run does not ask again, but keep the first
	}
	k := &Ask{ID: e.AskID, Agent: e.Agent, State: e.State, Question: e.Message, Next: e.Target,
		Status: AskPending, Asked: e.Time.UTC()}
	if e.Deadline != nil {
		k.Deadline = e.Deadline.UTC()
	}
	if a := b.agents[e.Agent]; a != nil {
		if n := len(a.StepNames); n > 0 {
			k.Step = a.StepNames[n-1]
		}
	}
	if s := b.steps[k.Step]; s != nil {
		s.AskID = k.ID
	}
	b.asks[k.ID] = k
	b.r.Asks = append(b.r.Asks, k)
}

// askClosed records an ask_answered or ask_expired event.
func (b *builder) askClosed(e *transcript.Event) {
	k := b.asks[e.AskID]
	if k == nil {
		// Its ask event is lost: what this one says is all there is.
		k = &Ask{ID: e.AskID, Agent: e.Agent, State: e.State, Next: e.Target,
			Asked: e.Time.Add(-time.Duration(e.DurationMS) * time.Millisecond).UTC()}
		b.asks[k.ID] = k
		b.r.Asks = append(b.r.Asks, k)
	}
	k.Closed, k.Target = e.Time.UTC(), e.Target
	if e.Type == transcript.EventAnswered {
		k.Status, k.Answer = AskAnswered, e.Payload
		return
	}
	k.Status = AskExpired
	// The ask transition opened a visit at next; the agent goes to
	// timeout_next instead, or nowhere (it fails).
	a := b.agent(e.Agent)
	v := b.open[a.ID]
	if v == nil || len(v.Steps) > 0 {
		return
	}
	prev := (*Visit)(nil)
	if n := len(a.Path); n > 1 && a.Path[n-1] == v {
		prev = a.Path[n-2]
	}
	if e.Target == "" {
		a.Path = a.Path[:len(a.Path)-1]
		b.open[a.ID] = nil
		if prev != nil {
			prev.Target = ""
			prev.Exit = askTimeoutTag
		}
		return
	}
	v.State, v.Via = e.Target, askTimeoutTag
	if prev != nil {
		prev.Exit, prev.Target = askTimeoutTag, e.Target
	}
}

// settleAsks works out how long each ask waited.
func (b *builder) settleAsks() {
	for _, k := range b.r.Asks {
		end := k.Closed
		if end.IsZero() {
			end = b.r.Ended
		}
		k.Wait = max(end.Sub(k.Asked), 0)
		k.WaitMS = millis(k.Wait)
	}
}

// pendingAsk returns the agent's ask that is still pending, nil if none.
func (r *Run) pendingAsk(agent string) *Ask {
	for _, k := range r.Asks {
		if k.Agent == agent && k.Status == AskPending {
			return k
		}
	}
	return nil
}

// AskOf returns the ask with the given id, nil if the run has none.
func (r *Run) AskOf(id string) *Ask {
	for _, k := range r.Asks {
		if k.ID == id {
			return k
		}
	}
	return nil
}

// askTimeoutTag is the Exit and Via of a transition an expired ask made.
const askTimeoutTag = "ask timeout"

// asks writes the Asks section of the text report: each ask, what became
// of it, how long it waited, its question and its answer.
func (p *textReport) asks(r *Run) {
	p.title(false, "Asks")
	for _, k := range r.Asks {
		p.wrapped(k.ID+": ", askSummary(r, k))
		p.wrapped("    question: ", orNone(oneLineMore(k.Question)))
		if k.Answer != nil {
			p.wrapped("    answer: ", orNone(oneLineMore(*k.Answer)))
		}
	}
}

// askSummary says in one line who asked, where and what became of it.
func askSummary(r *Run, k *Ask) string {
	s := fmt.Sprintf("%s at %s, asked at %s", k.Agent, k.State, offset(r, k.Asked))
	switch k.Status {
	case AskAnswered:
		s += fmt.Sprintf("; answered after %s, on to %s", dur(k.Wait), k.Target)
	case AskExpired:
		s += fmt.Sprintf("; %s after %s", "no answer", dur(k.Wait))
		if k.Target != "" {
			s += ", timed out to " + k.Target
		} else {
			s += ", the agent failed"
		}
	default:
		s += "; still waiting for an answer"
		if !k.Deadline.IsZero() {
			s += ", deadline " + offset(r, k.Deadline)
		}
	}
	return s
}

// orNone is s, or "(empty)" when it is blank.
func orNone(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// askPending counts the asks still waiting for an answer.
func askPending(r *Run) int {
	n := 0
	for _, k := range r.Asks {
		if k.Status == AskPending {
			n++
		}
	}
	return n
}

// askCounts says how many asks there were and what became of them: "2
// asks: 1 answered, 1 pending".
func askCounts(r *Run) string {
	var answered, expired int
	var waited time.Duration
	for _, k := range r.Asks {
		switch k.Status {
		case AskAnswered:
			answered++
		case AskExpired:
			expired++
		}
		waited += k.Wait
	}
	return fmt.Sprintf("%s: %d answered, %d timed out, %d pending; %s waiting in all",
		count(len(r.Asks), "ask", "asks"), answered, expired, askPending(r), dur(waited))
}

// visitCaps writes where visit caps fired, one line each.
func (p *textReport) visitCaps(r *Run) {
	p.title(false, "Visit caps")
	for _, c := range r.VisitCaps {
		p.wrapped(c.Agent+": ", visitCapSummary(r, c))
	}
}

// visitCapSummary says in one line where a cap fired and what followed.
func visitCapSummary(r *Run, c *VisitCap) string {
	return fmt.Sprintf("%s at %s, entry %d past max_visits %d; %s", c.State, offset(r, c.Time), c.Visits+1, c.Max, c.Taken)
}
