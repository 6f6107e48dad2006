package server

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// The HTTP server's limits, which keep a crowd of clients, idle or slow,
// from taking the descriptors and memory the daemon's steps need.
const (
	// ReadHeaderTimeout is how long a connection may take to send a
	// request's headers, and so how long an idle new connection is kept.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout is how long a request may take to arrive whole, its body
	// (at most MaxBody) included. It does not end event streams: once a
	// request is read, net/http lifts the deadline. There is no write
	// timeout, which would.
	ReadTimeout = 30 * time.Second
	// IdleTimeout is how long a connection is kept between requests.
	IdleTimeout = 2 * time.Minute
	// DefaultMaxStreams is how many event streams are served at once when
	// Config.MaxStreams is 0; one more is answered 503.
	DefaultMaxStreams = 256
)

// HTTPServer returns the http.Server that serves h with the limits above;
// its error log goes to log at level warn.
func HTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: ReadHeaderTimeout, ReadTimeout: ReadTimeout,
		IdleTimeout: IdleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
}

// MaxConns is how many connections the daemon holds at once, for a process
// that may have nofile descriptors open: a quarter of them, so that
// clients can never take those the runs need for their steps (pipes, state
// files, transcripts), and at least 16.
func MaxConns(nofile uint64) int {
	return int(max(16, min(nofile/4, 1<<14)))
}

// NofileLimit is this process's limit on open descriptors (RLIMIT_NOFILE),
// or 1024 when it cannot be read.
func NofileLimit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur == 0 {
		return 1024
	}
	return rl.Cur
}

// LimitListener returns a listener that holds at most n of ln's connections
// open at once: past n, Accept waits for one to close, and the clients
// that come meanwhile wait in the kernel's backlog, holding no descriptor
// of ours.
func LimitListener(ln net.Listener, n int) net.Listener {
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// stream lets at most the configured number of event streams run at once:
// each holds a connection and goroutines for as long as its client likes.
// One more is answered 503 with Retry-After.
func (s *Server) stream(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.streams <- struct{}{}:
			defer func() { <-s.streams }()
		default:
			w.Header().Set("Retry-After", "10")
			writeError(w, http.StatusServiceUnavailable, "too_many_streams",
				fmt.Sprintf("this daemon already serves %d event streams, its most: close some (pages left open in other tabs), then try again", cap(s.streams)))
			return
		}
		h(w, r)
	}
}
