package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// queuedListener hands out the connections queued in it, then waits for
// Close: a listener whose clients are all waiting in its backlog.
type queuedListener struct {
	conns  chan net.Conn
	closed chan struct{}
}

func (l *queuedListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	default:
	}
	<-l.closed
	return nil, net.ErrClosed
}

func (l *queuedListener) Close() error   { close(l.closed); return nil }
func (l *queuedListener) Addr() net.Addr { return &net.TCPAddr{} }

// TestLimitListener: past its cap, Accept takes no more connections until
// one closes, though clients wait; closing a connection twice frees one
// slot, not two.
func TestLimitListener(t *testing.T) {
	inner := &queuedListener{conns: make(chan net.Conn, 4), closed: make(chan struct{})}
	for range 4 {
		c, other := net.Pipe()
		defer other.Close()
		inner.conns <- c
	}
	ln := LimitListener(inner, 2)
	first, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	second, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	first.Close()
	first.Close() // again: frees nothing more
	third, err := ln.Accept()
	if err != nil {
		t.Fatalf("Accept once a connection closed: %v", err)
	}
	defer third.Close()
	// Two are open (second and third) and a client waits: Accept must
	// wait too, until the listener closes.
	fourth := make(chan error)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		fourth <- err
	}()
	ln.Close()
	if err := <-fourth; !errors.Is(err, net.ErrClosed) {
		t.Errorf("a third connection open at once with a cap of 2 (Accept: %v)", err)
	}
}

// TestMaxConns: a quarter of the descriptors, within bounds.
func TestMaxConns(t *testing.T) {
	for nofile, want := range map[uint64]int{1024: 256, 40: 16, 1 << 20: 1 << 14, 65536: 16384, 4096: 1024} {
		if got := MaxConns(nofile); got != want {
			t.Errorf("MaxConns(%d) = %d, want %d", nofile, got, want)
		}
	}
}

// streamServer serves e's daemon with at most maxStreams event streams,
// through the daemon's own http.Server settings, readTimeout aside.
func streamServer(t *testing.T, e *env, maxStreams int, readTimeout time.Duration) (*Server, string) {
	t.Helper()
	srv := New(Config{Daemon: e.d, Workflows: e.cat, Token: testToken, Version: "test", MaxStreams: maxStreams})
	ts := httptest.NewUnstartedServer(srv)
	ts.Config = HTTPServer(srv, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ts.Config.ReadTimeout = readTimeout
	ts.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
	})
	return srv, ts.URL
}

// openStream opens GET path as an event stream and returns the answer.
func openStream(t *testing.T, ctx context.Context, base, path string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// TestStreamsCapped: past MaxStreams, an event stream is answered 503
// with Retry-After; once one ends, a new one is served.
func TestStreamsCapped(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	_, base := streamServer(t, e, 2, ReadTimeout)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	first := openStream(t, ctx, base, "/api/v1/events")
	defer first.Body.Close()
	second := openStream(t, t.Context(), base, "/api/v1/events")
	defer second.Body.Close()
	for _, r := range []*http.Response{first, second} {
		if r.StatusCode != http.StatusOK {
			t.Fatalf("a stream within the cap: %s", r.Status)
		}
	}
	for _, path := range []string{"/api/v1/events", "/api/v1/runs/" + id + "/events"} {
		third := openStream(t, t.Context(), base, path)
		body, _ := io.ReadAll(third.Body)
		third.Body.Close()
		if third.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), `"too_many_streams"`) ||
			third.Header.Get("Retry-After") == "" {
			t.Errorf("GET %s past the cap: %s %s (Retry-After %q), want 503 too_many_streams", path, third.Status, body, third.Header.Get("Retry-After"))
		}
	}
	// Other routes are not streams and are served.
	runs := openStream(t, t.Context(), base, "/api/v1/runs")
	runs.Body.Close()
	if runs.StatusCode != http.StatusOK {
		t.Errorf("GET /api/v1/runs with the streams full: %s", runs.Status)
	}

	// End the first: its slot is free once its handler has returned.
	cancel()
	first.Body.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		r := openStream(t, t.Context(), base, "/api/v1/runs/"+id+"/events")
		r.Body.Close()
		if r.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no stream served a minute after one ended: %s", r.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStreamOutlivesReadTimeout: the daemon's http.Server settings, whose
// ReadTimeout bounds a slow body, do not end an event stream (a write
// timeout would).
func TestStreamOutlivesReadTimeout(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	srv, base := streamServer(t, e, 0, 50*time.Millisecond)
	srv.ping = 20 * time.Millisecond
	resp := openStream(t, t.Context(), base, "/api/v1/events")
	defer resp.Body.Close()
	start := time.Now()
	sc := bufio.NewScanner(resp.Body)
	pings := 0
	for pings < 8 && sc.Scan() {
		if sc.Text() == ": ping" {
			pings++
		}
	}
	if pings < 8 {
		t.Fatalf("the stream ended after %s and %d pings (%v), with a read timeout of 50ms", time.Since(start), pings, sc.Err())
	}
}

// TestSlowBodyTimesOut: a request whose body never comes whole is ended
// by ReadTimeout instead of holding its connection for good.
func TestSlowBodyTimesOut(t *testing.T) {
	if hs := HTTPServer(nil, slog.Default()); hs.ReadTimeout <= 0 || hs.ReadHeaderTimeout <= 0 || hs.WriteTimeout != 0 {
		t.Fatalf("the daemon's server has ReadTimeout %s, ReadHeaderTimeout %s and WriteTimeout %s: bodies need a bound, streams none",
			hs.ReadTimeout, hs.ReadHeaderTimeout, hs.WriteTimeout)
	}
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	_, base := streamServer(t, e, 0, 100*time.Millisecond)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = io.WriteString(c, "POST /api/v1/runs HTTP/1.1\r\nHost: "+strings.TrimPrefix(base, "http://")+"\r\n"+
		"Authorization: Bearer "+testToken+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"workflow\"")
	if err != nil {
		t.Fatal(err)
	}
	// A generous bound: without a read timeout the server would wait for
	// the rest of the body for ever.
	_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.ReadAll(c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the server still held the connection of a body that never came, 30 s on")
	}
}
