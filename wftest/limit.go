package wftest

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Failure messages stay readable whatever the run did: a fan-out of 200
// agents that all failed must not print 200 lines or one line of 30 KB.
const (
	// maxListed is the most items (agents, steps, replies) a list in a
	// message names before it says how many more there are.
	maxListed = 10
	// maxReasons is the most distinct errors a status message quotes.
	maxReasons = 3
	// maxReason is the most characters of one quoted error or path.
	maxReason = 300
	// maxDiffLines is the most lines a diff shows.
	maxDiffLines = 60
	// maxFailure is the most bytes of one failure message.
	maxFailure = 4000
)

// listed joins items with commas, naming at most max of them:
// "a, b, c, … and 197 more".
func listed(items []string, max int) string {
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s, … and %d more", strings.Join(items[:max], ", "), len(items)-max)
}

// clip cuts s to at most max characters, ending it with "…" when cut.
func clip(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max-1]) + "…"
}

// clipMessage cuts a failure message to at most about maxFailure bytes,
// at a line end when it can, and says how much was left out.
func clipMessage(msg string) string {
	if len(msg) <= maxFailure {
		return msg
	}
	cut := maxFailure
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(msg[:cut], '\n'); nl > maxFailure/2 {
		cut = nl
	}
	return fmt.Sprintf("%s\n… %d more characters of this message not shown", strings.TrimSuffix(msg[:cut], "\n"), utf8.RuneCountInString(msg[cut:]))
}
