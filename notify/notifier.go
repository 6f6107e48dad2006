package notify

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultBackoff are the waits before the second, third, fourth and fifth
// attempts at a notification; after the fifth it is given up.
var DefaultBackoff = []time.Duration{time.Second, 4 * time.Second, 16 * time.Second, time.Minute}

// DefaultQueue is how many notifications may wait for one target; past it
// the oldest is dropped.
const DefaultQueue = 256

// maxRetryAfter caps how long a receiver's Retry-After can hold a
// notification.
const maxRetryAfter = 10 * time.Minute

// Options tune a Notifier.
type Options struct {
	// Warn receives the warnings meant for the user, one line each and
	// each kind at most once per target: the first notification given up,
	// the first dropped from a full queue, the ones left unsent at Close.
	// nil drops them.
	Warn func(string)
	// Log receives every failed attempt; nil discards them.
	Log *slog.Logger
	// Backoff are the waits between attempts; nil is DefaultBackoff. Its
	// length plus one is the number of attempts.
	Backoff []time.Duration
	// Instant makes every wait take no time (RAYMOND_TEST_CLOCK=instant).
	Instant bool
	// Transport sends the requests; nil is http.DefaultTransport.
	Transport http.RoundTripper
	// Queue is how many notifications may wait per target; 0 is
	// DefaultQueue.
	Queue int
}

// Notifier sends notifications to targets in the background: each target
// has a queue and a goroutine of its own, so a slow receiver delays only
// itself. Send never blocks.
type Notifier struct {
	senders []*sender
	opts    Options
	stop    context.CancelFunc
	wg      sync.WaitGroup
}

// New starts a Notifier for targets, which Check accepted. It reads each
// target's secret file (a path the caller resolved); one that cannot be
// read is an error. No targets give a nil Notifier, which sends nothing.
// Close it to flush what is queued.
func New(targets []Target, o Options) (*Notifier, error) {
	if len(targets) == 0 {
		return nil, nil
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	transport := o.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	client := &http.Client{
		Transport: transport,
		// A redirect would send the notification where the config does
		// not say, or drop its body: it is an answer, not followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	n := &Notifier{opts: o}
	for _, t := range targets {
		s := &sender{t: t, opts: &n.opts, client: client, wake: make(chan struct{}, 1)}
		if s.t.Timeout == 0 {
			s.t.Timeout = DefaultTimeout
		}
		if t.SecretFile != "" {
			data, err := os.ReadFile(t.SecretFile)
			if err != nil {
				return nil, fmt.Errorf("notify %s: secret_file: %w", t.Label(), err)
			}
			if s.secret = bytes.TrimSpace(data); len(s.secret) == 0 {
				return nil, fmt.Errorf("notify %s: secret_file %s is empty; put the shared secret in it", t.Label(), t.SecretFile)
			}
		}
		n.senders = append(n.senders, s)
	}
	ctx, stop := context.WithCancel(context.Background())
	n.stop = stop
	for _, s := range n.senders {
		n.wg.Go(func() { s.loop(ctx) })
	}
	return n, nil
}

// Send queues m for every target that wants its event. It never blocks:
// a full queue drops its oldest notification.
func (n *Notifier) Send(m Message) {
	if n == nil {
		return
	}
	for _, s := range n.senders {
		if !s.t.wants(m.Event) {
			continue
		}
		id := deliveryID()
		req, err := encode(&s.t, m, s.secret, id)
		if err != nil {
			s.warnOnce(&s.failWarned, fmt.Sprintf("cannot encode a %s notification: %v", m.Event, err))
			continue
		}
		s.push(delivery{req: req, event: m.Event, id: id})
	}
}

// Close stops taking notifications and sends what is queued until ctx is
// done; then it stops the sends in flight. It warns of what was left
// unsent and returns how many notifications that was.
func (n *Notifier) Close(ctx context.Context) int {
	if n == nil {
		return 0
	}
	for _, s := range n.senders {
		s.close()
	}
	done := make(chan struct{})
	go func() {
		n.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		n.stop()
		<-done
	}
	n.stop()
	total := 0
	for _, s := range n.senders {
		s.mu.Lock()
		lost := s.lost + len(s.queue)
		s.mu.Unlock()
		if lost > 0 && n.opts.Warn != nil {
			what := fmt.Sprintf("%d notifications were", lost)
			if lost == 1 {
				what = "1 notification was"
			}
			n.opts.Warn(fmt.Sprintf("notify %s: %s not sent: the receiver did not take them in time", s.t.Label(), what))
		}
		total += lost
	}
	return total
}

// delivery is one notification to one target.
type delivery struct {
	req   request
	event string
	id    string
}

// sender delivers the notifications of one target, one at a time, in order.
type sender struct {
	t      Target
	secret []byte
	opts   *Options
	client *http.Client
	wake   chan struct{}

	mu         sync.Mutex
	queue      []delivery
	closed     bool
	lost       int // given up because the Notifier was stopped
	dropWarned bool
	failWarned bool
}

func (s *sender) push(d delivery) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	dropped := false
	if len(s.queue) >= s.opts.Queue {
		s.queue = s.queue[1:]
		dropped = true
	}
	s.queue = append(s.queue, d)
	s.mu.Unlock()
	if dropped {
		s.opts.Log.Warn("notification dropped: queue full", "target", s.t.Label())
		s.warnOnce(&s.dropWarned, fmt.Sprintf("the receiver is behind: more than %d notifications wait, so the oldest are dropped", s.opts.Queue))
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sender) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// warnOnce passes msg to Options.Warn the first time *flag is false.
func (s *sender) warnOnce(flag *bool, msg string) {
	s.mu.Lock()
	first := !*flag
	*flag = true
	s.mu.Unlock()
	if first && s.opts.Warn != nil {
		s.opts.Warn(fmt.Sprintf("notify %s: %s", s.t.Label(), msg))
	}
}

// loop delivers the queue until it is closed and empty, or ctx is done.
func (s *sender) loop(ctx context.Context) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			d := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			s.deliver(ctx, d)
			continue
		}
		closed := s.closed
		s.mu.Unlock()
		if closed {
			return
		}
		select {
		case <-s.wake:
		case <-ctx.Done():
			return
		}
	}
}

// deliver sends d, again after each back-off while the failure may pass,
// until it is taken, refused for good, out of attempts, or ctx is done.
func (s *sender) deliver(ctx context.Context, d delivery) {
	for attempt := 1; ; attempt++ {
		err := s.post(ctx, d)
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			s.mu.Lock()
			s.lost++
			s.mu.Unlock()
			return
		}
		s.opts.Log.Warn("notification failed", "target", s.t.Label(), "event", d.event, "delivery", d.id, "attempt", attempt, "err", err)
		var ae *attemptError
		retry := errors.As(err, &ae) && ae.retry
		if !retry || attempt > len(s.opts.Backoff) {
			tries := "once"
			if attempt > 1 {
				tries = fmt.Sprintf("after %d tries", attempt)
			}
			s.warnOnce(&s.failWarned, fmt.Sprintf("gave up on a %s notification %s: %v (later failures of this target are not shown)", d.event, tries, err))
			return
		}
		wait := s.opts.Backoff[attempt-1]
		if ae.after > wait {
			wait = min(ae.after, maxRetryAfter)
		}
		if !s.sleep(ctx, wait) {
			s.mu.Lock()
			s.lost++
			s.mu.Unlock()
			return
		}
	}
}

// sleep waits d, or not at all with Options.Instant; false when ctx ended
// first.
func (s *sender) sleep(ctx context.Context, d time.Duration) bool {
	if s.opts.Instant || d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// attemptError is an attempt that failed: whether another may do better,
// and how long the receiver asked to wait first.
type attemptError struct {
	retry bool
	after time.Duration
	err   error
}

func (e *attemptError) Error() string { return e.err.Error() }

func (e *attemptError) Unwrap() error { return e.err }

// post makes one attempt at d.
func (s *sender) post(ctx context.Context, d delivery) error {
	ctx, cancel := context.WithTimeout(ctx, s.t.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.t.URL, bytes.NewReader(d.req.body))
	if err != nil {
		return err
	}
	req.Header = d.req.header.Clone()
	resp, err := s.client.Do(req)
	if err != nil {
		// The error names the address, whose path may be a secret.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %s", s.t.Timeout)
		}
		return &attemptError{retry: true, err: err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		return nil
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests, code >= 500:
		return &attemptError{retry: true, after: retryAfter(resp.Header.Get("Retry-After")),
			err: fmt.Errorf("the receiver answered %s", resp.Status)}
	case code >= 300 && code < 400:
		return &attemptError{err: fmt.Errorf("the receiver answered %s, a redirect, which is not followed; give the final address as url", resp.Status)}
	}
	return &attemptError{err: fmt.Errorf("the receiver answered %s", resp.Status)}
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent or unreadable.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.Atoi(v); err == nil {
		if secs < 0 {
			return 0
		}
		return min(time.Duration(secs)*time.Second, maxRetryAfter)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// deliveryID is a new random id for X-Raymond-Delivery.
func deliveryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
