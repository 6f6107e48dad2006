package analysis

import (
	"fmt"
	"math"
)

// htmlAsk is one ask as the report's Asks section and its steps show it.
type htmlAsk struct {
	ID, Anchor string
	Agent      string
	State      string
	Question   string
	Status     string
	Class      string // ok answered, bad expired, warn pending
	Asked      string
	Waited     string
	Deadline   string
	HasAnswer  bool
	Answer     string
	Outcome    string // what became of it, in words
	// Step links to the step whose answer asked.
	Step htmlStepRef
}

// htmlAskAnchor is the anchor of an ask in the Asks section.
func htmlAskAnchor(id string) string { return "ask-" + htmlAnchorPart(id) }

// htmlAsks lays out the run's asks.
func htmlAsks(r *Run, steps map[string]*Step, anchors map[string]string) []*htmlAsk {
	var out []*htmlAsk
	for _, k := range r.Asks {
		h := &htmlAsk{
			ID: k.ID, Anchor: htmlAskAnchor(k.ID), Agent: k.Agent, State: k.State, Question: k.Question,
			Status: k.Status, Asked: htmlClock(k.Asked), Waited: htmlDuration(k.WaitMS),
		}
		if !k.Deadline.IsZero() {
			h.Deadline = htmlClock(k.Deadline)
		}
		if k.Answer != nil {
			h.HasAnswer, h.Answer = true, *k.Answer
		}
		h.Class, h.Outcome = htmlAskOutcome(k)
		if k.Step != "" {
			h.Step = htmlRef(k.Step, steps[k.Step], anchors)
		}
		out = append(out, h)
	}
	return out
}

// htmlAskOutcome colours an ask and says what became of it.
func htmlAskOutcome(k *Ask) (class, words string) {
	switch k.Status {
	case AskAnswered:
		return "ok", fmt.Sprintf("answered after %s; on to %s", htmlDuration(k.WaitMS), k.Target)
	case AskExpired:
		if k.Target == "" {
			return "bad", fmt.Sprintf("no answer within %s: the agent failed", htmlDuration(k.WaitMS))
		}
		return "bad", fmt.Sprintf("no answer within %s: timed out to %s", htmlDuration(k.WaitMS), k.Target)
	}
	return "warn", fmt.Sprintf("still waiting for an answer, asked at %s", htmlClock(k.Asked))
}

// tlAskBar is the time an agent waited for an answer, on its row.
type tlAskBar struct {
	X, Y, W, H float64
	Class      string
	Title      string
	Anchor     string
}

// timelineAsks lays out the asks as waiting bars on their agents' rows.
func timelineAsks(r *Run, tl *htmlTimeline, row map[string]int, span tlSpan) {
	for _, k := range r.Asks {
		i, ok := row[k.Agent]
		if !ok {
			continue
		}
		end := k.Closed
		if end.IsZero() {
			end = span.to
		}
		x0, x1 := span.x(k.Asked), span.x(end)
		rr := tl.Rows[i]
		h := math.Max(2, math.Round(rr.H*0.3))
		class, words := htmlAskOutcome(k)
		tl.Asks = append(tl.Asks, tlAskBar{
			X: x0, W: tlRound(math.Max(tlMinBarW, x1-x0)), Y: tlRound(rr.Y + (rr.H-h)/2), H: h,
			Class: class, Anchor: htmlAskAnchor(k.ID),
			Title: fmt.Sprintf("%s asked %s: %s", k.ID, htmlClip(k.Question, 80), words),
		})
	}
}
