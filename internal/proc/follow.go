package proc

import (
	"io"
	"os"
	"path/filepath"
	"time"
)

// The pace at which a Follower looks again at a file that has not grown:
// at once at first, then less and less often while nothing comes, up to
// followMaxWait. A step that writes often is read as it writes; one that
// waits for its model or a tool costs a read every few tens of ms.
const (
	followMinWait = 2 * time.Millisecond
	followMaxWait = 25 * time.Millisecond
)

// Follower reads a file that a step's process writes (its stdout and
// stderr, which go to the file rather than to pipes that would break when
// the reader dies): at the file's end, Read waits for more until done is
// closed (the process has ended), then reads what is left and returns
// io.EOF. It reads at an offset of its own (ReadAt), so it may share the
// file with the writer.
type Follower struct {
	f    io.ReaderAt
	off  int64
	done <-chan struct{}
	wait time.Duration
	over bool
}

// NewFollower follows f from offset off until done is closed.
func NewFollower(f io.ReaderAt, off int64, done <-chan struct{}) *Follower {
	return &Follower{f: f, off: off, done: done}
}

// Offset is how far the follower has read.
func (r *Follower) Offset() int64 { return r.off }

// Read implements io.Reader.
func (r *Follower) Read(p []byte) (int, error) {
	for {
		n, err := r.f.ReadAt(p, r.off)
		r.off += int64(n)
		if n > 0 {
			r.wait = 0
			return n, nil
		}
		if err != nil && err != io.EOF {
			return 0, err
		}
		if r.over {
			return 0, io.EOF
		}
		r.wait = min(max(r.wait*2, followMinWait), followMaxWait)
		t := time.NewTimer(r.wait)
		select {
		case <-r.done:
			// What the process wrote before it ended is in the file: one
			// more read gets it.
			r.over = true
		case <-t.C:
		}
		t.Stop()
	}
}

// OpenSpool creates (or empties) the file at path that a step's process
// writes its output to, with the folder when it is missing, open for
// reading and appending: the child gets it as its stdout and stderr, the
// driver reads it through a [Follower].
func OpenSpool(path string) (*os.File, error) {
	const flags = os.O_RDWR | os.O_CREATE | os.O_TRUNC | os.O_APPEND
	f, err := os.OpenFile(path, flags, 0o600)
	if os.IsNotExist(err) {
		if merr := os.MkdirAll(filepath.Dir(path), 0o700); merr != nil {
			return nil, merr
		}
		f, err = os.OpenFile(path, flags, 0o600)
	}
	return f, err
}
