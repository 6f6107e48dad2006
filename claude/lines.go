package claude

import (
	"bufio"
	"errors"
	"io"
	"sync"
)

// Limits on what is read from the child.
const (
	// maxLine is the longest stdout line decoded; one JSON line can carry a
	// whole file a tool read. Longer lines are read and dropped (see
	// Result.LongLine).
	maxLine = 64 << 20
	// stderrTail is how much of the end of stderr a Result keeps.
	stderrTail = 8 << 10
)

// lineReader reads newline-terminated lines of any length without ever
// stopping early: of a line longer than max it returns the first max bytes,
// marked truncated, and consumes the rest, so the child never blocks on a
// full pipe because we gave up reading.
type lineReader struct {
	br  *bufio.Reader
	buf []byte
	max int
	// size is the length of the line next returned last, in full: more
	// than max when it was truncated.
	size int
}

// readers holds the 64 KiB buffered readers of steps that ended, for the
// next steps: a fan-out of thousands of steps would otherwise allocate and
// clear two of them per step.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// newLineReader returns a reader of r's lines; release it when done.
func newLineReader(r io.Reader, max int) *lineReader {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	return &lineReader{br: br, max: max}
}

// release gives the reader's buffer back for another step: no line it
// returned may be used after.
func (lr *lineReader) release() {
	if lr.br == nil {
		return
	}
	lr.br.Reset(nil)
	readers.Put(lr.br)
	lr.br, lr.buf = nil, nil
}

// next returns the next line without its newline. The slice is valid until
// the following call. A last line without a newline is returned too; err is
// io.EOF (or the read error) once nothing is left.
func (lr *lineReader) next() (line []byte, truncated bool, err error) {
	lr.buf, lr.size = lr.buf[:0], 0
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if err == nil {
			chunk = chunk[:len(chunk)-1]
			if len(lr.buf) == 0 && !truncated && len(chunk) <= lr.max {
				lr.size = len(chunk)
				return chunk, false, nil // the whole line sat in the reader's buffer
			}
		}
		lr.size += len(chunk)
		if room := lr.max - len(lr.buf); len(chunk) > room {
			chunk, truncated = chunk[:room], true
		}
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == nil:
			return lr.buf, truncated, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(lr.buf) > 0 || truncated:
			return lr.buf, truncated, nil // the last line had no newline
		default:
			return nil, false, err
		}
	}
}
