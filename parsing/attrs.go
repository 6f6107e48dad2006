package parsing

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// openTag is an opening tag read by lexOpen.
type openTag struct {
	attrs []Attr
	// end is the index just past the tag's '>'.
	end int
	// selfClosing is set for <name … />, which transition tags may not use.
	selfClosing bool
}

// lexError says where an opening tag stopped making sense and why. It is
// built for every candidate that turns out to be prose, so the message is
// only formatted when a malformed tag is reported.
type lexError struct {
	pos     int
	problem lexProblem
	key     string // the attribute concerned, if any
	r       rune   // the unexpected character, for badChar
	quote   byte   // the quote left open, for unterminated
}

// lexProblem is what lexOpen found wrong with an opening tag.
type lexProblem int

const (
	noEnd lexProblem = iota
	badChar
	notSeparated
	noValue
	unquoted
	unterminated
	duplicated
)

// msg is the problem as a clause for an error message.
func (e *lexError) msg() string {
	switch e.problem {
	case badChar:
		return fmt.Sprintf("%q cannot appear there in an opening tag", e.r)
	case notSeparated:
		return "attributes must be separated by whitespace"
	case noValue:
		return fmt.Sprintf("attribute %s has no value (write %s=\"…\")", e.key, e.key)
	case unquoted:
		return fmt.Sprintf("the value of %s is not in quotes", e.key)
	case unterminated:
		return fmt.Sprintf("the value of %s has no closing %c", e.key, e.quote)
	case duplicated:
		return fmt.Sprintf("attribute %s appears twice", e.key)
	}
	return "the opening tag has no closing >"
}

// lexOpen reads the attributes and the final '>' of an opening tag whose name
// ends at i. The caller cuts text at the end of the region the tag must fit in.
//
// Each step moves forward, and a quoted value is found with one IndexByte, so
// the cost is the length of the opening tag.
func lexOpen(text string, i int) (openTag, *lexError) {
	var (
		attrs []Attr
		seen  map[string]bool // only for tags with many attributes
	)
	for {
		start := i
		i = skipSpace(text, i)
		if i >= len(text) {
			return openTag{}, &lexError{pos: i, problem: noEnd}
		}
		c := text[i]
		switch {
		case c == '>':
			return openTag{attrs: attrs, end: i + 1}, nil
		case c == '/' && i+1 < len(text) && text[i+1] == '>':
			return openTag{attrs: attrs, end: i + 2, selfClosing: true}, nil
		case !isKeyByte(c):
			r, _ := utf8.DecodeRuneInString(text[i:])
			return openTag{}, &lexError{pos: i, problem: badChar, r: r}
		case i == start:
			return openTag{}, &lexError{pos: i, problem: notSeparated}
		}

		k := i
		for i < len(text) && isKeyByte(text[i]) {
			i++
		}
		key := text[k:i]
		i = skipSpace(text, i)
		if i >= len(text) || text[i] != '=' {
			return openTag{}, &lexError{pos: i, problem: noValue, key: key}
		}
		i = skipSpace(text, i+1)
		if i >= len(text) || (text[i] != '"' && text[i] != '\'') {
			return openTag{}, &lexError{pos: i, problem: unquoted, key: key}
		}
		q := text[i]
		n := strings.IndexByte(text[i+1:], q)
		if n < 0 {
			return openTag{}, &lexError{pos: i, problem: unterminated, key: key, quote: q}
		}
		if duplicate(attrs, seen, key) {
			return openTag{}, &lexError{pos: k, problem: duplicated, key: key}
		}
		if len(attrs) == 8 {
			seen = make(map[string]bool)
			for _, a := range attrs {
				seen[a.Key] = true
			}
		}
		if seen != nil {
			seen[key] = true
		}
		attrs = append(attrs, Attr{Key: key, Value: decodeEntities(text[i+1 : i+1+n])})
		i += n + 2
	}
}

// duplicate reports whether key is already among attrs. Past a few
// attributes the lookup goes through seen, so that a tag with thousands of
// attributes stays linear.
func duplicate(attrs []Attr, seen map[string]bool, key string) bool {
	if seen != nil {
		return seen[key]
	}
	for _, a := range attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

// isKeyByte reports whether c may appear in an attribute key: [A-Za-z0-9_-].
func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// isSpace reports whether c is whitespace inside a tag.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(text string, i int) int {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	return i
}

// maxEntity bounds the length of an entity reference, '&' and ';' included,
// so that a stray '&' never makes the decoder look far ahead.
const maxEntity = 32

// decodeEntities replaces the XML entities &quot; &amp; &lt; &gt; &apos; and
// the numeric references &#NN; and &#xHH; in an attribute value. Anything
// else that starts with '&' is left as written.
func decodeEntities(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		if r, n := entity(s); n > 0 {
			b.WriteString(r)
			s = s[n:]
		} else {
			b.WriteByte('&')
			s = s[1:]
		}
		i = strings.IndexByte(s, '&')
	}
	b.WriteString(s)
	return b.String()
}

// entity decodes the entity reference at the start of s (which begins with
// '&') and returns its text and length, or a length of 0 if there is none.
func entity(s string) (string, int) {
	end := strings.IndexByte(s[:min(len(s), maxEntity)], ';')
	if end < 0 {
		return "", 0
	}
	name := s[1:end]
	switch name {
	case "quot":
		return `"`, end + 1
	case "amp":
		return "&", end + 1
	case "lt":
		return "<", end + 1
	case "gt":
		return ">", end + 1
	case "apos":
		return "'", end + 1
	}
	digits, ok := strings.CutPrefix(name, "#")
	if !ok {
		return "", 0
	}
	base := 10
	if len(digits) > 0 && (digits[0] == 'x' || digits[0] == 'X') {
		digits, base = digits[1:], 16
	}
	n, err := strconv.ParseUint(digits, base, 32)
	if err != nil || n == 0 || !utf8.ValidRune(rune(n)) {
		return "", 0
	}
	return string(rune(n)), end + 1
}
