package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"raymond/transcript"
)

// DefaultFollowInterval is how often Follow looks for new events.
const DefaultFollowInterval = 200 * time.Millisecond

// FollowOptions shape Follow.
type FollowOptions struct {
	// Driven reports whether a process drives the run now. Follow stops
	// once it says no and the events file holds nothing new. Nil means no
	// process does: Follow prints what is there and stops.
	Driven func() bool
	// Interval is the time between looks at the events file; 0 means
	// DefaultFollowInterval.
	Interval time.Duration
	// ID names the run in the advice of the closing line; "" takes the
	// folder's name.
	ID string
}

// Follow prints the events of the run whose transcript is in dir as they
// are written, one line each (EventLine), starting with those already
// there. It returns when the run ends (a run_ended event that is the
// last one), when no process drives the run any more, or when ctx is
// done; its last line says why it stopped. It polls the events file,
// reads only what was added, and holds back a line written in two parts
// until its end arrives.
//
// status is the status the run ended with (run_ended's: completed,
// failed, paused, …), "" when it stopped without ending (crashed or
// killed) or never started.
func Follow(ctx context.Context, dir string, w io.Writer, o FollowOptions) (status string, err error) {
	if o.Interval <= 0 {
		o.Interval = DefaultFollowInterval
	}
	id := o.ID
	if id == "" {
		id = filepath.Base(dir)
	}
	f := &follower{path: filepath.Join(dir, transcript.EventsFile), w: w}
	for first := true; ; first = false {
		driven := o.Driven != nil && o.Driven()
		if err := f.poll(); err != nil {
			return "", err
		}
		switch {
		case f.last == transcript.EventRunEnded && (!driven || !first):
			// An old run_ended read first may be followed by the
			// run_resumed of a process starting now: wait for it.
			return f.status, f.say("run %s ended: %s", id, f.status)
		case !driven:
			return "", f.stopped(id)
		}
		t := time.NewTimer(o.Interval)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", ctx.Err()
		case <-t.C:
		}
	}
}

// follower reads the events file as it grows.
type follower struct {
	path string
	w    io.Writer
	// off is how far the file has been read; part holds a line read
	// without its newline yet.
	off  int64
	part []byte
	// last is the type of the last event printed; status the status of
	// the last run_ended.
	last   string
	status string
	// seen is set once the file existed.
	seen bool
}

// poll prints the complete lines added to the file since the last poll.
func (f *follower) poll() error {
	file, err := os.Open(f.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // not written yet
	}
	if err != nil {
		return fmt.Errorf("follow events: %w", err)
	}
	defer file.Close()
	f.seen = true
	info, err := file.Stat()
	if err != nil {
		return fmt.Errorf("follow events: %w", err)
	}
	if info.Size() < f.off {
		// A resumed run cut a torn last line off: read on from there.
		f.off, f.part = info.Size(), nil
	}
	if _, err := file.Seek(f.off, io.SeekStart); err != nil {
		return fmt.Errorf("follow events: %w", err)
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return fmt.Errorf("follow events: %w", err)
	}
	f.off += int64(len(data))
	data = append(f.part, data...)
	f.part = nil
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			break
		}
		line := data[:i]
		data = data[i+1:]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		e, ok := decodeEvent(line)
		if !ok {
			if _, err := fmt.Fprintln(f.w, "(a line of events.jsonl does not decode; skipped)"); err != nil {
				return err
			}
			continue
		}
		f.last = e.Type
		if e.Type == transcript.EventRunEnded {
			f.status = e.Status
		}
		if _, err := fmt.Fprintln(f.w, EventLine(&e)); err != nil {
			return err
		}
	}
	if len(data) > 0 {
		f.part = append([]byte(nil), data...)
	}
	return nil
}

// say writes Follow's closing line.
func (f *follower) say(format string, args ...any) error {
	_, err := fmt.Fprintf(f.w, "raymond: "+format+"\n", args...)
	return err
}

// stopped writes why Follow stops while the run has not ended.
func (f *follower) stopped(id string) error {
	switch {
	case !f.seen:
		return f.say("no process drives run %s and it has no events yet", id)
	case len(f.part) > 0:
		return f.say("no process drives run %s any more; its events end in a torn line (%d bytes): it stopped without ending (crashed or killed); `raymond resume %s` continues it",
			id, len(f.part), id)
	}
	return f.say("no process drives run %s any more and it has not ended: it stopped without ending (crashed or killed); `raymond resume %s` continues it",
		id, id)
}
