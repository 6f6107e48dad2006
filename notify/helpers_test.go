package notify

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// got is one request a fakeReceiver took.
type got struct {
	at     time.Time
	url    string
	header http.Header
	body   string
}

// fakeReceiver is an http.RoundTripper that answers from a list of status
// codes (200 once the list is spent) and records every request, with the
// time it came: in a synctest bubble that is the fake clock.
type fakeReceiver struct {
	mu      sync.Mutex
	answers []response
	got     []got
	// hold, when set, blocks each request until it is closed.
	hold chan struct{}
}

type response struct {
	code   int
	header http.Header
	err    error
}

func (f *fakeReceiver) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.got = append(f.got, got{at: time.Now(), url: r.URL.String(), header: r.Header.Clone(), body: string(body)})
	a := response{code: 200}
	if len(f.answers) > 0 {
		a, f.answers = f.answers[0], f.answers[1:]
	}
	hold := f.hold
	f.mu.Unlock()
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
	}
	if a.err != nil {
		return nil, a.err
	}
	h := a.header
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: a.code, Status: http.StatusText(a.code), Header: h,
		Body: io.NopCloser(strings.NewReader("")), Request: r}, nil
}

func (f *fakeReceiver) requests() []got {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]got(nil), f.got...)
}

// warnings collects Options.Warn's lines.
type warnings struct {
	mu    sync.Mutex
	lines []string
}

func (w *warnings) warn(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines = append(w.lines, s)
}

func (w *warnings) all() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

// start makes a Notifier of targets over f.
func start(t *testing.T, f *fakeReceiver, w *warnings, o Options, targets ...Target) *Notifier {
	t.Helper()
	o.Transport = f
	if w != nil {
		o.Warn = w.warn
	}
	n, err := New(targets, o)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// closeNow closes n, waiting as long as its sends take.
func closeNow(n *Notifier) int { return n.Close(context.Background()) }
