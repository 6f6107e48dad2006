package step

import (
	"crypto/rand"
	"fmt"
)

// NewSessionID returns a random version-4 UUID, the form Claude Code accepts
// for --session-id. The orchestrator mints one for every step that starts a
// new session or branches one, including re-runs after a crash, because
// Claude Code refuses an id it has already seen.
func NewSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
