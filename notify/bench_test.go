package notify

import (
	"context"
	"testing"
	"time"

	"raymond/transcript"
)

// BenchmarkSinkEvent is the cost the sink adds to every event of a run that
// is not one it notifies (text, tool use, step ends): most events.
func BenchmarkSinkEvent(b *testing.B) {
	n, err := New([]Target{{URL: "http://127.0.0.1:1/"}}, Options{Transport: &fakeReceiver{}})
	if err != nil {
		b.Fatal(err)
	}
	defer closeNow(n)
	s := n.Sink(Run{ID: "r1", Workflow: "wf"})
	e := transcript.Event{Type: transcript.EventToolUse, Time: time.Now(), Agent: "main", Tool: "Bash", Message: "ls"}
	b.ReportAllocs()
	for b.Loop() {
		s.Event(e)
	}
}

// BenchmarkSend is what the driver's loop pays to queue one notification
// for one json target (encoding, signing): Send never waits for the
// receiver.
func BenchmarkSend(b *testing.B) {
	// The receiver holds the first request: what is measured is the
	// queueing, not the sending.
	f := &fakeReceiver{hold: make(chan struct{})}
	n, err := New([]Target{{URL: "http://127.0.0.1:1/"}}, Options{Transport: f, Queue: 1 << 20})
	if err != nil {
		b.Fatal(err)
	}
	n.senders[0].secret = []byte("s3cret")
	defer func() {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		n.Close(ctx)
	}()
	m := askMessage()
	b.ReportAllocs()
	for b.Loop() {
		n.Send(m)
	}
}
