package state

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxIDLen is the longest run id ValidID accepts.
const MaxIDLen = 128

// NewID returns a new run id such as 20261121-154012-123456-3f9a2c: the UTC
// date, time and microseconds of its creation, then random hex. Ids sort by
// creation time as plain strings. Within a process they are strictly
// increasing (two ids never share a microsecond); ids made by several
// processes in the same microsecond differ by their random part, and
// Store.Create refuses the rare duplicate.
func NewID() string { return processIDs.next(time.Now()) }

// processIDs is the process-wide generator behind NewID.
var processIDs idGen

// idGen hands out strictly increasing microsecond timestamps, however the
// clock moves.
type idGen struct {
	mu   sync.Mutex
	last int64 // microseconds since the Unix epoch of the last id
}

func (g *idGen) next(now time.Time) string {
	us := now.UnixMicro()
	g.mu.Lock()
	if us <= g.last {
		us = g.last + 1
	}
	g.last = us
	g.mu.Unlock()

	t := time.UnixMicro(us).UTC()
	var b [3]byte
	_, _ = rand.Read(b[:]) // never fails since Go 1.24
	return fmt.Sprintf("%s-%06d-%s", t.Format("20060102-150405"), t.Nanosecond()/1e3, hex.EncodeToString(b[:]))
}

// ValidID checks a run id given by the user (--id): 1 to MaxIDLen ASCII
// letters, digits, '-' and '_', not starting with '-' (it would read as a
// flag). An id is a file name, so this also keeps it inside the state folder.
func ValidID(id string) error {
	if id == "" {
		return fmt.Errorf("run id is empty: use letters, digits, - and _")
	}
	for i, r := range id {
		if r >= utf8.RuneSelf || !idByte(byte(r)) {
			return fmt.Errorf("run id %q has %q at byte %d: use only letters, digits, - and _", id, r, i)
		}
	}
	if id[0] == '-' {
		return fmt.Errorf("run id %q starts with '-': start it with a letter, a digit or _", id)
	}
	if len(id) > MaxIDLen {
		return fmt.Errorf("run id %.16s… is too long: %d characters, at most %d", id, len(id), MaxIDLen)
	}
	return nil
}

func idByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}
