package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"raymond/project"
	"raymond/transcript"
)

// maxConnects bounds the connections one follower makes to one run's
// event stream.
const maxConnects = 1000

// follower follows one run's event stream as a page would, dropping the
// connection at random points and reconnecting with Last-Event-ID. It
// checks that the persisted events (ids 1, 2, 3 …) arrive exactly once and
// in order; live events (N.k) may be missed across a reconnect.
type follower struct {
	run        string
	last       string // the last event id seen, for Last-Event-ID
	persisted  int    // the last persisted id seen
	ended      bool   // run_ended was seen
	connects   int
	liveEvents int
}

// follow reads the run's events until run_ended, dropping the connection
// after a random number of events on about half the connections.
func (f *follower) follow(ctx context.Context, d *daemonProc, rng *rand.Rand) error {
	for !f.ended {
		if f.connects >= maxConnects {
			return fmt.Errorf("run %s: no run_ended after %d connections (last event %q)", f.run, f.connects, f.last)
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("run %s: %w (last event %q)", f.run, err, f.last)
		}
		f.connects++
		drop := -1
		if rng.IntN(2) == 0 {
			drop = 1 + rng.IntN(30)
		}
		if err := f.connect(ctx, d, drop); err != nil {
			return err
		}
	}
	return nil
}

// connect makes one connection and reads it until it ends, run_ended, or
// drop events have been read (drop < 0: never).
func (f *follower) connect(ctx context.Context, d *daemonProc, drop int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.base+"/api/v1/runs/"+f.run+"/events", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	if f.last != "" {
		req.Header.Set("Last-Event-ID", f.last)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return fmt.Errorf("run %s: follow: %w", f.run, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("run %s: follow: %s", f.run, resp.Status)
	}
	var bad error
	read := 0
	// A read error is the server cutting the stream (a client too far
	// behind is cut off): the caller reconnects, as a page would.
	_ = readSSE(resp.Body, func(ev sseEvent) bool {
		if ev.id == "" {
			return true
		}
		read++
		if n, k, live := strings.Cut(ev.id, "."); live {
			f.liveEvents++
			if n != strconv.Itoa(f.persisted) || k == "" {
				bad = fmt.Errorf("run %s: live event %s after persisted event %d", f.run, ev.id, f.persisted)
				return false
			}
		} else {
			got, err := strconv.Atoi(ev.id)
			if err != nil || got != f.persisted+1 {
				bad = fmt.Errorf("run %s: event %s (%s) after persisted event %d: persisted events must come once each, in order", f.run, ev.id, ev.typ, f.persisted)
				return false
			}
			f.persisted = got
			if ev.typ == transcript.EventRunEnded {
				f.ended = true
			}
		}
		f.last = ev.id
		return !f.ended && read != drop
	})
	return bad
}

// checkAllSeen checks that the follower saw every persisted event of its
// run's events file, ending with run_ended.
func (f *follower) checkAllSeen(projectDir string) error {
	data, err := os.ReadFile(filepath.Join(project.DebugDir(projectDir), f.run, transcript.EventsFile))
	if err != nil {
		return err
	}
	n := bytes.Count(data, []byte{'\n'})
	switch {
	case !f.ended:
		return fmt.Errorf("run %s: the follower never saw run_ended", f.run)
	case f.persisted != n:
		return fmt.Errorf("run %s: the follower saw persisted events 1..%d, the events file has %d", f.run, f.persisted, n)
	}
	return nil
}

// sseEvent is one server-sent event.
type sseEvent struct {
	id, typ string
}

// readSSE reads events from r and hands each to fn until r ends, fn says
// stop, or a read fails.
func readSSE(r io.Reader, fn func(sseEvent) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.typ != "" || ev.id != "" {
				if !fn(ev) {
					return nil
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.typ = line[7:]
		}
	}
	return sc.Err()
}
