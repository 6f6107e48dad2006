package claude

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
)

// ToolLoop is a tool call a step made over and over: Call is the call as
// people read it (`Bash {"command":"ls"}`), Count how many times it had
// been made when it was reported (its loop_warn, or its loop_stop when
// the step was stopped for it), and Stop the loop_stop limit.
type ToolLoop struct {
	Call  string
	Count int
	Stop  int
}

// loops counts a step's tool calls by their identity, the tool's name and
// its input as canonical JSON (keys sorted, no spaces), so that two calls
// that differ only in how their JSON was written count as one. It counts
// every call of the step, not only consecutive ones: a model that reads a
// file, runs a command and reads the file again, round after round, is as
// stuck as one that repeats a single call.
type loops struct {
	warn, stop int
	seen       map[[sha256.Size]byte]int
}

// maxCallText is the longest call shown in a message, in runes.
const maxCallText = 160

// call records one tool call and returns how many times it has now been
// made, with its text for a message.
func (l *loops) call(name string, input []byte) (n int, text string) {
	canon := canonicalJSON(input)
	sum := sha256.Sum256(append([]byte(name+"\x00"), canon...))
	if l.seen == nil {
		l.seen = make(map[[sha256.Size]byte]int)
	}
	l.seen[sum]++
	return l.seen[sum], callText(name, canon)
}

// on reports whether loops are watched at all.
func (l *loops) on() bool { return l.warn > 0 || l.stop > 0 }

// canonicalJSON rewrites a JSON value with its object keys sorted and no
// white space; input that is not JSON is kept as it is.
func canonicalJSON(input []byte) []byte {
	input = bytes.TrimSpace(input)
	if len(input) == 0 {
		return []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return input
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return input
	}
	return bytes.TrimSpace(buf.Bytes())
}

// callText is a tool call as a message shows it: the tool's name and its
// canonical input (one line: JSON escapes a newline in a string), cut to
// maxCallText runes.
func callText(name string, canon []byte) string {
	s := name + " " + string(canon)
	r := []rune(s)
	if len(r) > maxCallText {
		s = string(r[:maxCallText-1]) + "…"
	}
	return s
}
