package notify

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func msg(event string) Message {
	return Message{Event: event, RunID: "r1", Workflow: "wf", Status: "x", Text: "t", Time: time.Unix(0, 0).UTC()}
}

// A receiver that fails twice gets the notification at the third try, after
// the first two back-offs; every try carries the same delivery id.
func TestRetryBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{answers: []response{{code: 503}, {err: errors.New("connection refused")}}}
		n := start(t, f, nil, Options{}, Target{URL: "http://127.0.0.1:1/hook"})
		t0 := time.Now()
		n.Send(msg(EventCompleted))
		if lost := closeNow(n); lost != 0 {
			t.Fatalf("lost %d", lost)
		}
		got := f.requests()
		if len(got) != 3 {
			t.Fatalf("got %d requests, want 3", len(got))
		}
		for i, want := range []time.Duration{0, time.Second, 5 * time.Second} {
			if d := got[i].at.Sub(t0); d != want {
				t.Errorf("attempt %d at +%s, want +%s", i+1, d, want)
			}
		}
		id := got[0].header.Get(HeaderDelivery)
		if len(id) != 32 || got[1].header.Get(HeaderDelivery) != id || got[2].header.Get(HeaderDelivery) != id {
			t.Errorf("delivery ids %q %q %q, want one id", id, got[1].header.Get(HeaderDelivery), got[2].header.Get(HeaderDelivery))
		}
	})
}

// Five tries in all, then one warning; a 4xx other than 408, 425 and 429 is
// not tried again.
func TestGiveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{answers: []response{{code: 500}, {code: 500}, {code: 500}, {code: 500}, {code: 500}, {code: 500}, {code: 404}}}
		var w warnings
		n := start(t, f, &w, Options{}, Target{Name: "hook", URL: "http://127.0.0.1:1/hook"})
		t0 := time.Now()
		n.Send(msg(EventFailed))
		n.Send(msg(EventFailed)) // the sixth 500, then the 404
		closeNow(n)
		got := f.requests()
		if len(got) != 7 {
			t.Fatalf("got %d requests, want 5 then 2", len(got))
		}
		if d := got[4].at.Sub(t0); d != 81*time.Second {
			t.Errorf("fifth try at +%s, want +1m21s", d)
		}
		lines := w.all()
		if len(lines) != 1 || !strings.Contains(lines[0], "notify hook: gave up on a failed notification after 5 tries: the receiver answered Internal Server Error") {
			t.Errorf("warnings %q", lines)
		}
	})
}

// Retry-After, in seconds or as a date, makes the wait longer than the
// back-off; it is capped.
func TestRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{answers: []response{
			{code: 429, header: http.Header{"Retry-After": {"30"}}},
			{code: 503, header: http.Header{"Retry-After": {time.Now().Add(2 * time.Minute).UTC().Format(http.TimeFormat)}}},
			{code: 503, header: http.Header{"Retry-After": {"999999"}}},
		}}
		n := start(t, f, nil, Options{}, Target{URL: "http://127.0.0.1:1/hook"})
		t0 := time.Now()
		n.Send(msg(EventAsk))
		closeNow(n)
		got := f.requests()
		if len(got) != 4 {
			t.Fatalf("got %d requests, want 4", len(got))
		}
		for i, want := range []time.Duration{0, 30 * time.Second, 2 * time.Minute, 2*time.Minute + maxRetryAfter} {
			if d := got[i].at.Sub(t0); d != want {
				t.Errorf("attempt %d at +%s, want +%s", i+1, d, want)
			}
		}
	})
}

// A receiver that does not answer is given up after the target's timeout.
func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{hold: make(chan struct{})}
		var w warnings
		n := start(t, f, &w, Options{Backoff: []time.Duration{}}, Target{Name: "slow", URL: "http://127.0.0.1:1/", Timeout: 3 * time.Second})
		t0 := time.Now()
		n.Send(msg(EventAsk))
		closeNow(n)
		if d := time.Since(t0); d != 3*time.Second {
			t.Errorf("gave up after %s, want 3s", d)
		}
		if lines := w.all(); len(lines) != 1 || !strings.Contains(lines[0], "no answer within 3s") {
			t.Errorf("warnings %q", lines)
		}
	})
}

// A full queue drops its oldest notification, with one warning; Send never
// waits for the receiver.
func TestQueueOverflow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{hold: make(chan struct{})}
		var w warnings
		n := start(t, f, &w, Options{Queue: 2}, Target{Name: "q", URL: "http://127.0.0.1:1/"})
		send := func(run string) {
			m := msg(EventAsk)
			m.RunID = run
			n.Send(m)
		}
		send("a")
		synctest.Wait() // a is in flight, held
		for _, r := range []string{"b", "c", "d", "e"} {
			send(r)
		}
		close(f.hold)
		closeNow(n)
		var runs []string
		for _, g := range f.requests() {
			runs = append(runs, strings.Split(strings.Split(g.body, `"run_id":"`)[1], `"`)[0])
		}
		if strings.Join(runs, " ") != "a d e" {
			t.Errorf("delivered %q, want a d e", runs)
		}
		if lines := w.all(); len(lines) != 1 || !strings.Contains(lines[0], "notify q: the receiver is behind: more than 2 notifications wait, so the oldest are dropped") {
			t.Errorf("warnings %q", lines)
		}
	})
}

// Close gives up once its context is done, stopping the send in flight,
// and says how many notifications it left.
func TestCloseBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{hold: make(chan struct{})}
		var w warnings
		n := start(t, f, &w, Options{}, Target{Name: "dead", URL: "http://127.0.0.1:1/", Timeout: time.Hour})
		n.Send(msg(EventCompleted))
		n.Send(msg(EventCompleted))
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		t0 := time.Now()
		if lost := n.Close(ctx); lost != 2 {
			t.Errorf("lost %d, want 2", lost)
		}
		if d := time.Since(t0); d != 5*time.Second {
			t.Errorf("Close took %s, want 5s", d)
		}
		if lines := w.all(); len(lines) != 1 || lines[0] != "notify dead: 2 notifications were not sent: the receiver did not take them in time" {
			t.Errorf("warnings %q", lines)
		}
		n.Send(msg(EventCompleted)) // after Close: dropped, no panic
	})
}

// Instant (RAYMOND_TEST_CLOCK=instant) retries at once.
func TestInstant(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{answers: []response{{code: 502}, {code: 502}}}
		n := start(t, f, nil, Options{Instant: true}, Target{URL: "http://127.0.0.1:1/"})
		t0 := time.Now()
		n.Send(msg(EventCompleted))
		closeNow(n)
		if got := f.requests(); len(got) != 3 || time.Since(t0) != 0 {
			t.Errorf("%d requests in %s, want 3 at once", len(got), time.Since(t0))
		}
	})
}

// A redirect is not followed: the notification would go elsewhere, or
// without its body.
func TestNoRedirect(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeReceiver{answers: []response{{code: 302, header: http.Header{"Location": {"http://127.0.0.1:2/"}}}}}
		var w warnings
		n := start(t, f, &w, Options{}, Target{Name: "r", URL: "http://127.0.0.1:1/"})
		n.Send(msg(EventCompleted))
		closeNow(n)
		if got := f.requests(); len(got) != 1 {
			t.Errorf("%d requests, want 1", len(got))
		}
		if lines := w.all(); len(lines) != 1 || !strings.Contains(lines[0], "a redirect, which is not followed") {
			t.Errorf("warnings %q", lines)
		}
	})
}

// Each target gets the events it asks for, and only those.
func TestEventsSelected(t *testing.T) {
	f := &fakeReceiver{}
	n := start(t, f, nil, Options{},
		Target{URL: "http://127.0.0.1:1/all"},
		Target{URL: "http://127.0.0.1:1/asks", Events: []string{EventAsk}})
	n.Send(msg(EventAsk))
	n.Send(msg(EventCompleted))
	closeNow(n)
	count := map[string]int{}
	for _, g := range f.requests() {
		count[g.url]++
	}
	if count["http://127.0.0.1:1/all"] != 2 || count["http://127.0.0.1:1/asks"] != 1 {
		t.Errorf("requests per target %v", count)
	}
}

func TestSecretFile(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	if _, err := New([]Target{{Name: "h", URL: "http://127.0.0.1:1/", SecretFile: empty}}, Options{}); err == nil ||
		!strings.Contains(err.Error(), "notify h: secret_file "+empty+" is empty") {
		t.Errorf("empty secret: %v", err)
	}
	if _, err := New([]Target{{Name: "h", URL: "http://127.0.0.1:1/", SecretFile: filepath.Join(dir, "none")}}, Options{}); err == nil ||
		!strings.Contains(err.Error(), "notify h: secret_file: open") {
		t.Errorf("missing secret: %v", err)
	}
	if n, err := New(nil, Options{}); n != nil || err != nil {
		t.Errorf("no targets: %v %v", n, err)
	}
}
