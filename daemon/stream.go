package daemon

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"raymond/transcript"
)

// Event is one event of a run as the API streams it: the transcript event
// and its id. A persisted event's id is its line number in events.jsonl
// ("17"); a live event's is "N.k", the k-th live event after persisted event N.
type Event struct {
	ID    string
	Event transcript.Event
}

// subBuffer is how many events a subscriber may be behind before it is cut
// off; a client cut off reconnects with Last-Event-ID and misses nothing
// persisted. Subscribers get pointers to one shared Event: a channel of
// 4,096 Events (half a KiB each) would hold 2 MiB for every client.
const subBuffer = 4096

// stream is the live events of one run the daemon drives: a Sink of its
// driver that numbers the events and hands them to subscribers.
type stream struct {
	run    string
	folder string // the transcript folder, "" without one

	mu        sync.Mutex
	persisted int // line number of the last persisted event
	live      int // live events since it
	subs      map[*Subscription]struct{}
	closed    bool
}

// newStream starts numbering after the lines events.jsonl has already.
func newStream(run, folder string) *stream {
	s := &stream{run: run, folder: folder, subs: make(map[*Subscription]struct{})}
	if folder != "" {
		s.persisted = countLines(filepath.Join(folder, transcript.EventsFile))
	}
	return s
}

// countLines counts the complete lines of a file (0 when it is missing).
func countLines(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte{'\n'})
}

// Event numbers e and hands it to every subscriber (orchestrator.Sink).
func (s *stream) Event(e transcript.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var id string
	if e.Live() {
		s.live++
		id = strconv.Itoa(s.persisted) + "." + strconv.Itoa(s.live)
	} else {
		s.persisted++
		s.live = 0
		id = strconv.Itoa(s.persisted)
	}
	ev := &Event{ID: id, Event: e}
	for sub := range s.subs {
		select {
		case sub.ch <- ev:
		default:
			// Too far behind: cut it off rather than hold the run.
			delete(s.subs, sub)
			sub.lagged = true
			close(sub.ch)
		}
	}
}

// close ends every subscription: the daemon no longer drives the run.
func (s *stream) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	for sub := range s.subs {
		delete(s.subs, sub)
		close(sub.ch)
	}
}

// Subscription is a client following a run's events: first the persisted
// events after the id it gave, from the run's events file, then the live
// ones as they come.
type Subscription struct {
	// Replay are the persisted events to send first.
	Replay []Event
	ch     chan *Event
	// lagged says the subscriber was cut off for falling behind.
	lagged bool
	stream *stream
}

// C delivers the live events, shared between subscribers: do not change
// them. It is closed when the run is no longer driven by the daemon, or
// when the subscriber fell too far behind. It is nil for a run the daemon
// does not drive.
func (s *Subscription) C() <-chan *Event {
	if s.ch == nil {
		return nil
	}
	return s.ch
}

// Lagged says C was closed because the subscriber fell behind.
func (s *Subscription) Lagged() bool {
	if s.stream == nil {
		return false
	}
	s.stream.mu.Lock()
	defer s.stream.mu.Unlock()
	return s.lagged
}

// Close ends the subscription.
func (s *Subscription) Close() {
	if s.stream == nil {
		return
	}
	s.stream.mu.Lock()
	defer s.stream.mu.Unlock()
	if _, ok := s.stream.subs[s]; ok {
		delete(s.stream.subs, s)
		close(s.ch)
	}
}

// subscribe registers a subscriber and reads what it missed: the persisted
// events after lastID up to the last one the stream has numbered (the
// transcript writer, the sink before this one, wrote them already).
func (s *stream) subscribe(lastID string) (*Subscription, error) {
	after, err := parseLastID(lastID)
	if err != nil {
		return nil, err
	}
	sub := &Subscription{ch: make(chan *Event, subBuffer), stream: s}
	s.mu.Lock()
	upTo := s.persisted
	if s.closed {
		close(sub.ch)
	} else {
		s.subs[sub] = struct{}{}
	}
	s.mu.Unlock()
	if s.folder != "" && after < upTo {
		sub.Replay, err = ReadEvents(s.folder, after, upTo)
		if err != nil {
			sub.Close()
			return nil, err
		}
	}
	return sub, nil
}

// parseLastID reads a Last-Event-ID: "N" or "N.k"; "" is 0.
func parseLastID(id string) (int, error) {
	if id == "" {
		return 0, nil
	}
	n, _, _ := strings.Cut(id, ".")
	v, err := strconv.Atoi(n)
	if err != nil || v < 0 {
		return 0, errorf(ErrInvalid, "Last-Event-ID %q is not an event id of this stream (a number, or NUMBER.NUMBER)", id)
	}
	return v, nil
}

// ReadEvents reads the persisted events after line after, up to line upTo
// (0 for all), of the transcript folder's events.jsonl. A torn last line is
// left out.
func ReadEvents(folder string, after, upTo int) ([]Event, error) {
	f, err := os.Open(filepath.Join(folder, transcript.EventsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Event
	r := bufio.NewReaderSize(f, 64*1024)
	for n := 1; upTo == 0 || n <= upTo; n++ {
		line, err := r.ReadBytes('\n')
		if err != nil {
			break // the end, or a torn last line
		}
		if n <= after {
			continue
		}
		var e transcript.Event
		if json.Unmarshal(line, &e) != nil {
			continue
		}
		out = append(out, Event{ID: strconv.Itoa(n), Event: e})
	}
	return out, nil
}
