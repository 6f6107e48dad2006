package proc

import (
	"sync"
	"unicode/utf8"
)

// Tail keeps the last bytes written to it, for the end of a child's stderr.
// It is safe for concurrent use.
type Tail struct {
	mu   sync.Mutex
	size int
	buf  []byte
}

// NewTail returns a Tail that keeps the last size bytes.
func NewTail(size int) *Tail { return &Tail{size: size} }

// Write keeps the end of what was written so far; it never fails.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= t.size {
		t.buf = append(t.buf[:0], p[len(p)-t.size:]...)
		return n, nil
	}
	if over := len(t.buf) + len(p) - t.size; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return n, nil
}

// String returns the kept bytes, starting at a whole UTF-8 character.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	for n := 0; n < utf8.UTFMax && len(b) > 0 && !utf8.RuneStart(b[0]); n++ {
		b = b[1:]
	}
	return string(b)
}
