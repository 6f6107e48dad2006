package parsing

import "strings"

// maxPrint bounds the memory of a PrintScanner: a <print> whose closing tag
// has not ended within this many bytes of its opening tag is dropped.
const maxPrint = 1 << 20

// Prints returns the payloads of the <print>…</print> tags of text, trimmed,
// in order. It is PrintScanner applied to the whole text, so both always
// agree.
func Prints(text string) []string {
	return NewPrintScanner().Feed(text)
}

const (
	printOpen  = "<print"
	printClose = "</print"
)

// PrintScanner extracts <print> payloads from text that arrives in chunks,
// such as the assistant text a step streams. A tag may be split across
// chunks anywhere.
//
// <print> is recognized anywhere, code included: it is only ever shown to the
// user, and streamed text cannot be read as markdown before it is complete.
// The opening tag is <print> with optional whitespace before '>'; the body
// runs to the first </print> (whitespace allowed before '>'). A <print> that
// is not closed within 1 MiB is dropped, and scanning resumes right after the
// byte that went over, so memory stays bounded whatever the input.
//
// The zero PrintScanner is not ready for use; call NewPrintScanner.
type PrintScanner struct {
	limit  int
	inside bool
	// matched counts the bytes of printOpen (outside) or printClose (inside)
	// matched so far; len(printOpen) or len(printClose) means the name is
	// complete and only whitespace or '>' may follow.
	matched int
	// body buffers the text since the opening tag, including any partial
	// closing tag, which starts at closeAt.
	body    []byte
	closeAt int
}

// NewPrintScanner returns a scanner positioned at the start of a text.
func NewPrintScanner() *PrintScanner {
	return &PrintScanner{limit: maxPrint}
}

// Feed consumes the next chunk of text and returns the payloads of the
// <print> tags it completed, trimmed, in order.
func (s *PrintScanner) Feed(chunk string) []string {
	var out []string
	for i := 0; i < len(chunk); {
		switch {
		case !s.inside && s.matched == 0:
			j := strings.IndexByte(chunk[i:], '<')
			if j < 0 {
				return out
			}
			i += j + 1
			s.matched = 1
		case !s.inside:
			s.stepOpen(chunk[i])
			i++
		case s.matched == 0 && chunk[i] != '<':
			// Copy the plain text up to the next '<' in one go, but never past
			// the limit.
			j := strings.IndexByte(chunk[i:], '<')
			if j < 0 {
				j = len(chunk) - i
			}
			n := min(j, s.limit+1-len(s.body))
			s.body = append(s.body, chunk[i:i+n]...)
			i += n
			if len(s.body) > s.limit {
				s.reset()
			}
		default:
			if p, ok := s.stepClose(chunk[i]); ok {
				out = append(out, p)
			}
			i++
		}
	}
	return out
}

// stepOpen advances the match of the opening tag by one byte.
func (s *PrintScanner) stepOpen(c byte) {
	switch {
	case s.matched < len(printOpen) && c == printOpen[s.matched]:
		s.matched++
	case s.matched == len(printOpen) && isSpace(c):
	case s.matched == len(printOpen) && c == '>':
		s.inside, s.matched = true, 0
	case c == '<':
		s.matched = 1
	default:
		s.matched = 0
	}
}

// stepClose adds one byte to the body and advances the match of the closing
// tag; it returns the payload when the byte completes the closing tag.
func (s *PrintScanner) stepClose(c byte) (string, bool) {
	s.body = append(s.body, c)
	switch {
	case s.matched < len(printClose) && c == printClose[s.matched]:
		if s.matched == 0 {
			s.closeAt = len(s.body) - 1
		}
		s.matched++
	case s.matched == len(printClose) && isSpace(c):
	case s.matched == len(printClose) && c == '>':
		payload := strings.TrimSpace(string(s.body[:s.closeAt]))
		s.reset()
		return payload, true
	case c == '<':
		s.closeAt, s.matched = len(s.body)-1, 1
	default:
		s.matched = 0
	}
	if len(s.body) > s.limit {
		s.reset()
	}
	return "", false
}

// reset returns to scanning for an opening tag, after a payload or when a
// <print> grew past the limit. A large buffer is released rather than kept.
func (s *PrintScanner) reset() {
	s.inside, s.matched, s.closeAt = false, 0, 0
	if cap(s.body) > 64<<10 {
		s.body = nil
	} else {
		s.body = s.body[:0]
	}
}
