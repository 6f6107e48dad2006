package notify

import (
	"encoding/json"
	"testing"
	"time"

	"raymond/transcript"
)

func ptr[T any](v T) *T { return &v }

// A run's events make one notification each for ask, wait and the end of
// the run; other events, and a drive that ends paused or asking, none.
func TestSink(t *testing.T) {
	f := &fakeReceiver{}
	n := start(t, f, nil, Options{}, Target{URL: "http://127.0.0.1:1/", IncludeText: true})
	created := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	at := created.Add(90 * time.Second)
	s := n.Sink(Run{ID: "r1", Workflow: "wf", Created: created, Page: "http://127.0.0.1:7777/",
		Answer: func(id string) string { return "raymond answer r1 " + id + " TEXT" }})
	for _, e := range []transcript.Event{
		{Type: transcript.EventStepStarted, Time: at},
		{Type: transcript.EventAsk, Time: at, Agent: "main", AskID: "ask_main_1", State: "START.md", Message: "Go?"},
		{Type: transcript.EventWait, Time: at, Until: ptr(at.Add(time.Hour)), Message: "limit"},
		{Type: transcript.EventAgentCompleted, Time: at, Agent: "main_w1", Payload: ptr("not main")},
		{Type: transcript.EventAgentCompleted, Time: at, Agent: "main", Payload: ptr("42")},
		{Type: transcript.EventRunEnded, Time: at, Status: "completed"},
		{Type: transcript.EventSummary, Time: at, Status: "completed", TotalCostUSD: ptr(0.5), DurationMS: 10},
		{Type: transcript.EventSummary, Time: at, Status: "paused"},
		{Type: transcript.EventSummary, Time: at, Status: "asking"},
		{Type: transcript.EventRunEnded, Time: at, Status: "failed", Message: "agent main failed: boom"},
		{Type: transcript.EventSummary, Time: at, Status: "failed"},
		{Type: transcript.EventRunEnded, Time: at, Status: "budget_exceeded", Message: "budget reached"},
		{Type: transcript.EventSummary, Time: at, Status: "budget_exceeded", TotalCostUSD: ptr(2.0)},
	} {
		s.Event(e)
	}
	closeNow(n)
	var got []Message
	for _, g := range f.requests() {
		var m Message
		if err := json.Unmarshal([]byte(g.body), &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m)
	}
	if len(got) != 5 {
		t.Fatalf("%d notifications: %+v", len(got), got)
	}
	ask, wait, done, failed, budget := got[0], got[1], got[2], got[3], got[4]
	if ask.Event != EventAsk || ask.AskID != "ask_main_1" || ask.Agent != "main" || *ask.Question != "Go?" ||
		ask.Link != "http://127.0.0.1:7777/#/runs/r1" || ask.Answer != "raymond answer r1 ask_main_1 TEXT" || ask.Status != "asking" {
		t.Errorf("ask %+v", ask)
	}
	if wait.Event != EventWaiting || !wait.Until.Equal(at.Add(time.Hour)) || wait.Error != "limit" {
		t.Errorf("wait %+v", wait)
	}
	if done.Event != EventCompleted || *done.Result != "42" || *done.CostUSD != 0.5 || done.DurationMS != 90000 ||
		done.Text != "Run r1 (wf) completed in 1m30s for $0.5000." {
		t.Errorf("completed %+v", done)
	}
	if failed.Event != EventFailed || failed.Error != "agent main failed: boom" || failed.Status != "failed" {
		t.Errorf("failed %+v", failed)
	}
	if budget.Event != EventBudget || budget.Error != "budget reached" || *budget.CostUSD != 2 {
		t.Errorf("budget %+v", budget)
	}
	var none *Notifier
	if none.Sink(Run{}) != nil {
		t.Error("a nil Notifier's sink is not nil")
	}
	none.Sink(Run{}).Event(transcript.Event{Type: transcript.EventAsk}) // no panic
}
