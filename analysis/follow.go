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

	"github.com/fsnotify/fsnotify"

	"raymond/transcript"
)

// DefaultFollowInterval is how often Follow checks that a process still
// drives the run, and reads the events file in case a change went unseen
// (a file system that does not report changes).
const DefaultFollowInterval = 2 * time.Second

// pollInterval is how often Follow reads the events file when it cannot
// watch the folder at all.
const pollInterval = 200 * time.Millisecond

// FollowOptions shape Follow.
type FollowOptions struct {
	// Driven reports whether a process drives the run now. Follow stops
	// once it says no and the events file holds nothing new. Nil means no
	// process does: Follow prints what is there and stops.
	Driven func() bool
	// Interval is the time between checks of Driven; 0 means
	// DefaultFollowInterval. New events are printed as they are written,
	// whatever the interval.
	Interval time.Duration
	// ID names the run in the advice of the closing line; "" takes the
	// folder's name.
	ID string
}

// Follow prints the events of the run whose transcript is in dir as they
// are written, one line each (EventLine), starting with those already
// there. It returns when the run ends (a run_ended event that is the
// last one), when no process drives the run any more, or when ctx is
// done; its last line says why it stopped. It watches the folder (which
// may not exist yet) to learn when the events file grows, reads only what
// was added, and holds back a line written in two parts until its end
// arrives. A process killed without writing run_ended is noticed at the
// next check of Driven.
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
	f := &follower{dir: dir, path: filepath.Join(dir, transcript.EventsFile), w: w}
	driven := o.Driven != nil && o.Driven()
	if driven {
		// Watch before the first read, so that no write between the two
		// goes unseen.
		f.watch()
		defer f.close()
	}
	// A run_ended read at first may be an old one, followed by the
	// run_resumed of a process starting now: while a process drives the
	// run, only a run_ended written since counts.
	if err := f.poll(); err != nil {
		return "", err
	}
	var fresh bool
	for {
		switch {
		case f.last == transcript.EventRunEnded && (!driven || fresh):
			return f.status, f.say("run %s ended: %s", id, f.status)
		case !driven:
			return "", f.stopped(id)
		}
		check, changed := f.wait(ctx, o.Interval)
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if check {
			driven = o.Driven()
		}
		if check || changed {
			n := f.printed
			if err := f.poll(); err != nil {
				return "", err
			}
			fresh = fresh || f.printed > n
		}
	}
}

// follower reads the events file as it grows.
type follower struct {
	dir  string
	path string
	w    io.Writer
	// watcher reports changes in watching: dir, or while dir does not
	// exist, the nearest folder above it that does. It is nil when the
	// system cannot watch folders: the file is then polled.
	watcher  *fsnotify.Watcher
	watching string
	// printed counts the events printed.
	printed int
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
		f.printed++
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

// newWatcher makes the watcher of Follow; a test replaces it to make
// Follow poll.
var newWatcher = fsnotify.NewWatcher

// watch starts watching the folder for changes. A system that cannot
// watch (no inotify instance or watch left, say) is no error: the file is
// then polled.
func (f *follower) watch() {
	if w, err := newWatcher(); err == nil {
		f.watcher = w
		f.rewatch()
	}
}

// rewatch watches dir if it exists now, else the nearest folder above it
// that does, so that its creation is seen. Each Add is followed by a look
// at what exists now: a folder created just before the Add sent no event.
func (f *follower) rewatch() {
	for f.watcher != nil && f.watching != f.dir {
		d := f.dir
		for !isDir(d) && filepath.Dir(d) != d {
			d = filepath.Dir(d)
		}
		if d == f.watching {
			return // watched, and nothing below it appeared since
		}
		if err := f.watcher.Add(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed since: look again
			}
			f.close()
			return
		}
		if f.watching != "" {
			_ = f.watcher.Remove(f.watching)
		}
		f.watching = d
	}
}

// wait waits for a change in the folder (changed), for the time to check
// that a process still drives the run (check), or for ctx. Without a
// watcher it polls, as often as it did before it could watch.
func (f *follower) wait(ctx context.Context, interval time.Duration) (check, changed bool) {
	if f.watcher == nil {
		interval = min(interval, pollInterval)
	}
	t := time.NewTimer(interval)
	defer t.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if f.watcher != nil {
		events, errs = f.watcher.Events, f.watcher.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return false, false
		case <-t.C:
			// The folder may have appeared unseen, the file changed on
			// a file system that does not say: read it anyway.
			f.rewatch()
			return true, true
		case _, ok := <-errs:
			// Changes were lost (the kernel's queue overflowed): read
			// the file to catch up.
			if !ok {
				f.close()
			}
			return false, true
		case e, ok := <-events:
			switch {
			case !ok:
				f.close()
				return false, true
			case f.watching != f.dir:
				// Something changed above the folder: it may exist now.
				if f.rewatch(); f.watching == f.dir {
					return false, true
				}
			case filepath.Base(e.Name) == transcript.EventsFile:
				return false, true
			}
		}
	}
}

// close stops watching; Follow polls from then on.
func (f *follower) close() {
	if f.watcher != nil {
		_ = f.watcher.Close()
		f.watcher = nil
	}
}

// isDir reports whether path is an existing folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
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
