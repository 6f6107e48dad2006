package daemon

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"raymond/transcript"
)

// Tail follows a run's events file from where it last read: each Next
// reads only what was appended since, so a client following a run another
// process drives costs the new lines, not the whole file again.
type Tail struct {
	path  string
	after int // events up to this line are skipped
	f     *os.File
	n     int    // the complete lines read
	torn  []byte // the start of a line not yet complete
	chunk []byte
}

// NewTail follows the events file in folder, from the event after line
// after.
func NewTail(folder string, after int) *Tail {
	return &Tail{path: filepath.Join(folder, transcript.EventsFile), after: after}
}

// Next returns the events appended since the last call, numbered as their
// lines; none while the file does not exist yet.
func (t *Tail) Next() ([]Event, error) {
	if t.f == nil {
		f, err := os.Open(t.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		t.f, t.chunk = f, make([]byte, 64*1024)
	}
	var out []Event
	for {
		k, err := t.f.Read(t.chunk)
		data := t.chunk[:k]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				t.torn = append(t.torn, data...)
				break
			}
			line := data[:i]
			if len(t.torn) > 0 {
				line = append(t.torn, line...)
				t.torn = t.torn[:0]
			}
			data = data[i+1:]
			t.n++
			if t.n <= t.after {
				continue
			}
			var e transcript.Event
			if json.Unmarshal(line, &e) != nil {
				continue
			}
			out = append(out, Event{ID: strconv.Itoa(t.n), Event: e})
		}
		if errors.Is(err, io.EOF) || (err == nil && k == 0) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// Close ends the tail.
func (t *Tail) Close() {
	if t.f != nil {
		_ = t.f.Close()
		t.f = nil
	}
}
