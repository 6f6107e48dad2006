package wftest

import (
	"fmt"
	"strings"
	"sync"

	"raymond/transcript"
)

// printSink collects the <print> outputs of a case's run, in the order the
// driver publishes them. Prints come from the steps' goroutines, so it
// locks.
type printSink struct {
	mu     sync.Mutex
	prints []string
}

// Event keeps the text of a print event.
func (s *printSink) Event(e transcript.Event) {
	if e.Type != transcript.EventPrint {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prints = append(s.prints, e.Message)
}

// all returns the prints so far.
func (s *printSink) all() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prints...)
}

// checkPrints checks that each of want is a substring of a print, each in
// a later print than the one before it; "" when they all are.
func checkPrints(want, prints []string) string {
	at := 0
	for i, w := range want {
		found := false
		for ; at < len(prints); at++ {
			if strings.Contains(prints[at], w) {
				found, at = true, at+1
				break
			}
		}
		if found {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "prints: %s (item %d) is not in any print", quote(w), i+1)
		if i > 0 {
			b.WriteString(" after the one that matched " + quote(want[i-1]))
		}
		if len(prints) == 0 {
			b.WriteString("; the run printed nothing")
			return b.String()
		}
		fmt.Fprintf(&b, "; the run printed %s:", count(len(prints), "line", "lines"))
		for j, p := range prints[:min(len(prints), 2*maxListed)] {
			fmt.Fprintf(&b, "\n  %d. %s", j+1, quote(p))
		}
		if n := len(prints) - 2*maxListed; n > 0 {
			fmt.Fprintf(&b, "\n  … and %d more", n)
		}
		return b.String()
	}
	return ""
}
