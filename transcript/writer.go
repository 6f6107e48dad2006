package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"raymond/state"
	"sync"
	"sync/atomic"
	"time"
)

// Writer writes the transcript of one run into its folder. Event and
// Transition are meant to be called from one goroutine (the run loop), but
// are safe from several; each StepLog belongs to one goroutine, and many
// StepLogs may write at once.
//
// A nil *Writer is valid and writes nothing: it is the writer of a run
// started with --no-debug.
type Writer struct {
	dir    string
	warn   func(error)
	warned atomic.Bool

	mu          sync.Mutex // guards the fields below
	closed      bool
	events      *os.File // opened on first use, nil until then
	transitions *os.File // likewise
}

// The modes of what a Writer creates, whatever the umask: a transcript holds
// prompts, answers and tool output, for the user who runs raymond only.
const (
	dirMode  = 0o700
	fileMode = 0o600
)

// Open starts writing the transcript of one run into dir
// (.raymond/debug/<run-id>), creating it. A folder that already exists, the
// one of a run being resumed, is appended to.
//
// The folder and its parent (.raymond/debug, which holds the transcripts of
// every run) are made private, 0700, also when an older raymond created them
// open to others: the files they hold then cannot be reached by other users,
// whatever their own modes. The files Open writes are created 0600.
//
// warn receives the first write error, once per Writer, from whichever
// goroutine met it; later errors are dropped while the writer goes on trying
// each write. warn may be nil. Open itself never fails: a folder it cannot
// create is such a write error.
func Open(dir string, warn func(error)) *Writer {
	w := &Writer{dir: dir, warn: warn}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		w.fail(fmt.Errorf("create transcript folder: %w", err))
		return w
	}
	// Not being able to tighten a folder (someone else owns it) does not
	// stop the transcript.
	_ = state.MakePrivate(filepath.Dir(dir))
	_ = state.MakePrivate(dir)
	return w
}

// Dir returns the transcript folder, "" for a nil Writer.
func (w *Writer) Dir() string {
	if w == nil {
		return ""
	}
	return w.dir
}

// Event appends e to events.jsonl in one write, setting e.Time to now if it
// is zero. Live events (Event.Live) and events after Close are dropped, so a
// Writer can subscribe to the whole stream; dropping live events before the
// lock also keeps the transcript_failed event its own warn func publishes
// from waiting on the lock that warn is called under.
func (w *Writer) Event(e Event) {
	if w == nil || e.Live() {
		return
	}
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	rec, err := marshalLine(e, false)
	if err != nil {
		w.fail(fmt.Errorf("encode %s event: %w", e.Type, err))
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.appendRecord(&w.events, EventsFile, dropTornTail, rec)
}

// Transition appends an entry for t to transitions.log in one write, setting
// t.Time to now if it is zero. Transitions after Close are dropped.
func (w *Writer) Transition(t Transition) {
	if w == nil {
		return
	}
	if t.Time.IsZero() {
		t.Time = time.Now()
	}
	rec := []byte(t.format())
	w.mu.Lock()
	defer w.mu.Unlock()
	w.appendRecord(&w.transitions, TransitionsFile, padTail, rec)
}

// appendRecord writes rec at the end of the file *f, opening it first if
// need be and repairing the tail a crash may have left. w.mu must be held.
func (w *Writer) appendRecord(f **os.File, name string, repair func(*os.File) error, rec []byte) {
	if w.closed {
		return
	}
	if *f == nil {
		opened, err := w.openAppend(name, repair)
		if err != nil {
			w.fail(err)
			return
		}
		*f = opened
	}
	if _, err := (*f).Write(rec); err != nil {
		w.fail(fmt.Errorf("write transcript: %w", err))
	}
}

// openAppend opens the file name of the folder for appending, creating both
// if need be, and lets repair fix its tail.
func (w *Writer) openAppend(name string, repair func(*os.File) error) (*os.File, error) {
	if err := os.MkdirAll(w.dir, dirMode); err != nil {
		return nil, fmt.Errorf("create transcript folder: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_RDWR|os.O_APPEND|os.O_CREATE, fileMode)
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	if err := repair(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair transcript %s: %w", f.Name(), err)
	}
	return f, nil
}

// fail hands err to warn if it is the Writer's first error.
func (w *Writer) fail(err error) {
	if w.warn != nil && w.warned.CompareAndSwap(false, true) {
		w.warn(err)
	}
}

// Close closes events.jsonl and transitions.log and returns the error of
// closing them, without passing it to warn. StepLogs are closed by their own
// Close and keep working after it.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil
	}
	w.closed = true
	var errs []error
	for _, f := range []*os.File{w.events, w.transitions} {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close transcript: %w", err))
		}
	}
	w.events, w.transitions = nil, nil
	return errors.Join(errs...)
}
