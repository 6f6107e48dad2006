package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"raymond/daemon"
	"raymond/project"
	"raymond/transcript"
)

// sse writes server-sent events.
type sse struct {
	w http.ResponseWriter
	f *http.ResponseController
}

// startSSE answers the headers of an event stream.
func startSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s := &sse{w: w, f: http.NewResponseController(w)}
	s.flush()
	return s
}

// send writes one event; id may be "".
func (s *sse) send(id, event string, data any) error {
	payload, err := json.Marshal(data)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if id != "" {
		fmt.Fprintf(&b, "id: %s\n", id)
	}
	fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", event, payload)
	_, err = s.w.Write(b.Bytes())
	return err
}

// comment writes a keep-alive comment.
func (s *sse) comment(text string) error {
	_, err := fmt.Fprintf(s.w, ": %s\n\n", text)
	return err
}

func (s *sse) flush() error { return s.f.Flush() }

// RunEvent is the data of one event of a run's stream: the transcript
// event's fields, and the run.
type RunEvent struct {
	transcript.Event
	Run string `json:"run"`
}

// tailEvery is how often the stream of a run the daemon does not drive
// looks for new lines in its events file, besides whenever a run's state
// changes.
const tailEvery = time.Second

// runEvents streams a run's events: what the events file holds after the
// client's Last-Event-ID, then the events as they come. For a run another
// process drives, the events file is followed instead; the stream ends
// when the run has ended and nobody drives it.
func (s *Server) runEvents(w http.ResponseWriter, r *http.Request) {
	id, ok := s.runID(w, r)
	if !ok {
		return
	}
	last := r.Header.Get("Last-Event-ID")
	if last == "" {
		last = r.URL.Query().Get("last_event_id")
	}
	sub, err := s.d.Subscribe(id, last)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer func() { sub.Close() }()
	out := startSSE(w)
	lastN := 0
	emit := func(ev daemon.Event) error {
		if n, ok := persistedID(ev.ID); ok {
			lastN = n
		}
		return out.send(ev.ID, ev.Event.Type, RunEvent{Event: ev.Event, Run: id})
	}
	for _, ev := range sub.Replay {
		if emit(ev) != nil {
			return
		}
	}
	if lastN == 0 {
		// A live id N.k stands for persisted event N.
		n, _, _ := strings.Cut(last, ".")
		lastN, _ = persistedID(n)
	}
	out.flush()
	ping := time.NewTicker(s.ping)
	defer ping.Stop()
	ctx := r.Context()
	var tail *daemon.Tail // the events file, while nobody drives the run here
	defer func() {
		if tail != nil {
			tail.Close()
		}
	}()
	for {
		if c := sub.C(); c != nil {
			select {
			case <-ctx.Done():
				return
			case <-ping.C:
				if out.comment("ping") != nil || out.flush() != nil {
					return
				}
			case ev, ok := <-c:
				if !ok {
					if sub.Lagged() {
						return // the client reconnects with its Last-Event-ID
					}
					sub = &daemon.Subscription{} // the drive ended: follow the file
					continue
				}
				if emit(*ev) != nil {
					return
				}
				for more := true; more; { // send what is queued, then flush once
					select {
					case ev, ok := <-c:
						if !ok {
							more = false
							break
						}
						if emit(*ev) != nil {
							return
						}
					default:
						more = false
					}
				}
				if out.flush() != nil {
					return
				}
			}
			continue
		}
		// Not driven here: follow the events file.
		if s.d.Driving(id) {
			next, err := s.d.Subscribe(id, fmt.Sprint(lastN))
			if err == nil {
				sub = next
				if tail != nil {
					tail.Close()
					tail = nil
				}
				for _, ev := range sub.Replay {
					if emit(ev) != nil {
						return
					}
				}
				out.flush()
				continue
			}
		}
		l, ok := s.d.Run(id)
		if !ok {
			return // removed
		}
		if tail == nil {
			tail = daemon.NewTail(filepath.Join(project.DebugDir(s.d.Project().Dir), id), lastN)
		}
		// Taken before the read, so a change made after it wakes the
		// loop: the driver saves its run as it writes most events.
		changed, _ := s.d.Changed()
		events, _ := tail.Next()
		for _, ev := range events {
			if emit(ev) != nil {
				return
			}
		}
		if len(events) > 0 && out.flush() != nil {
			return
		}
		if l.DrivenBy == nil && project.Ended(l.Status) && !s.d.Driving(id) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			if out.comment("ping") != nil || out.flush() != nil {
				return
			}
		case <-changed:
		case <-time.After(tailEvery):
		}
	}
}

// persistedID reads the line number of a persisted event's id.
func persistedID(id string) (int, bool) {
	var n int
	if _, err := fmt.Sscanf(id, "%d", &n); err != nil || fmt.Sprint(n) != id {
		return 0, false
	}
	return n, true
}

// events streams the daemon's changes for the page's lists: runs created,
// changed and removed, the pending asks, the workflows, the gate. It starts
// with the asks, the workflows and the gate as they are.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	out := startSSE(w)
	// Each channel is taken before what it tells of is read, and again
	// only once it fired: a change while the loop sends something else
	// (or waits on the gate) is not lost.
	runsChanged, gateChanged := s.d.Changed()
	var wfChanged, schedChanged <-chan struct{}
	if s.cfg.Workflows != nil {
		wfChanged = s.cfg.Workflows.Changed()
	}
	if s.cfg.Schedules != nil {
		schedChanged = s.cfg.Schedules.Changed()
		if out.send("", "schedules", map[string]any{"schedules": s.cfg.Schedules.List()}) != nil {
			return
		}
	}
	_, _, seq, _ := s.d.Since(^uint64(0) >> 1)
	asks := s.d.Asks()
	status, _ := json.Marshal(s.status())
	if out.send("", "daemon", json.RawMessage(status)) != nil ||
		out.send("", "asks", map[string]any{"asks": nonNil(asks)}) != nil ||
		out.send("", "workflows", map[string]any{"workflows": s.workflowList()}) != nil ||
		out.flush() != nil {
		return
	}
	ping := time.NewTicker(s.ping)
	defer ping.Stop()
	ctx := r.Context()
	for {
		var err error
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			err = out.comment("ping")
		case <-runsChanged:
			runsChanged, _ = s.d.Changed()
			var changed, removed []string
			changed, removed, seq, _ = s.d.Since(seq)
			slices.Sort(changed)
			for _, id := range changed {
				if l, ok := s.d.Run(id); ok && err == nil {
					err = out.send("", "run", l)
				}
			}
			for _, id := range removed {
				if err == nil {
					err = out.send("", "run_removed", map[string]string{"run_id": id})
				}
			}
			if now := s.d.Asks(); err == nil && !sameAsks(asks, now) {
				asks = now
				err = out.send("", "asks", map[string]any{"asks": nonNil(asks)})
			}
		case <-gateChanged:
			_, gateChanged = s.d.Changed()
			// The gate changes at every step's start and end: say it at
			// most a few times a second.
			select {
			case <-time.After(200 * time.Millisecond):
			case <-ctx.Done():
				return
			}
			if now, _ := json.Marshal(s.status()); !bytes.Equal(now, status) {
				status = now
				err = out.send("", "daemon", json.RawMessage(status))
			}
		case <-wfChanged:
			wfChanged = s.cfg.Workflows.Changed()
			err = out.send("", "workflows", map[string]any{"workflows": s.workflowList()})
		case <-schedChanged:
			schedChanged = s.cfg.Schedules.Changed()
			err = out.send("", "schedules", map[string]any{"schedules": s.cfg.Schedules.List()})
		}
		if err != nil || out.flush() != nil {
			return
		}
	}
}

func nonNil(asks []daemon.PendingAsk) []daemon.PendingAsk {
	if asks == nil {
		return []daemon.PendingAsk{}
	}
	return asks
}

func sameAsks(a, b []daemon.PendingAsk) bool {
	return slices.EqualFunc(a, b, func(x, y daemon.PendingAsk) bool {
		return x.RunID == y.RunID && x.AskID == y.AskID
	})
}
