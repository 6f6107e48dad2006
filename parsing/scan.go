package parsing

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Tags returns every transition tag of text, in order: the grammar alone,
// without the exactly-one rule or the attribute rules of each tag. Quoted
// tags (in code) are left out when the text has an unquoted one; see the
// package comment. A tag whose opening tag cannot be read (a duplicated
// attribute, an unquoted value, a self-closing tag) is an *Error of kind
// Malformed.
func Tags(text string) ([]Tag, error) {
	return scanText(text).tags()
}

// AllTags returns the well-formed transition tags of text, as Tags does,
// and the error of each malformed one, instead of nothing but the first
// error: a reader of a prompt (the linter, a diagram) goes on past a
// malformed tag to the tags beside it, which the model still sees.
func AllTags(text string) ([]Tag, []*Error) {
	sc := scanText(text)
	tags := make([]Tag, 0, len(sc.items))
	var errs []*Error
	for _, it := range sc.items {
		if it.err != nil {
			errs = append(errs, it.err)
			continue
		}
		tags = append(tags, it.tag)
	}
	return tags, errs
}

// item is one tag the scanner found: well formed, or malformed with err set.
type item struct {
	tag Tag
	err *Error
}

// scanned is what the scanner found in a text.
type scanned struct {
	// items are the tags, quoted ones already dropped when an unquoted one
	// exists.
	items []item
	// unclosed is the first unquoted opening tag that has no closing tag;
	// Raw holds only the opening tag. Only the first is ever reported.
	unclosed *Tag
}

// tags returns the well-formed tags, or the error of the first malformed one.
func (sc scanned) tags() ([]Tag, error) {
	tags := make([]Tag, 0, len(sc.items))
	for _, it := range sc.items {
		if it.err != nil {
			return nil, it.err
		}
		tags = append(tags, it.tag)
	}
	return tags, nil
}

// closePrefixes holds "</name" for each of scanNames, in the same order.
var closePrefixes = func() []string {
	p := make([]string, len(scanNames))
	for k, name := range scanNames {
		p[k] = "</" + name
	}
	return p
}()

// scanner finds the transition tags of one text in a single forward pass.
//
// It visits each '<' once. Code spans are computed on the first candidate
// only, so a text with no tag never pays for them. The search for a closing
// tag is remembered per name (closeMemo), so that many opening tags without
// a closing tag do not make the scan quadratic.
type scanner struct {
	text      string
	code      []span
	codeReady bool
	cursor    int // index into code of the first span that may hold the next candidate
	closers   []closeMemo
}

// closeMemo remembers one search for a closing tag: the first one that starts
// at or after from is [start, end), or there is none when start < 0.
type closeMemo struct {
	valid      bool
	from       int
	start, end int
}

// scanText finds the transition tags of text and applies the quoting rule.
func scanText(text string) scanned {
	s := scanner{text: text, closers: make([]closeMemo, len(scanNames))}
	var sc scanned
	for i := 0; i < len(text); {
		j := strings.IndexByte(text[i:], '<')
		if j < 0 {
			break
		}
		p := i + j
		k := nameAt(text, p)
		if k < 0 {
			i = p + 1
			continue
		}
		next, it, ok := s.candidate(k, p, &sc)
		if ok {
			sc.items = append(sc.items, it)
		}
		i = next
	}
	sc.items = dropQuoted(sc.items, sc.unclosed != nil)
	return sc
}

// candidate reads the transition tag whose '<' is at p and whose name is
// scanNames[k]. It returns where scanning goes on, and the tag found if any.
// A tag written with an old name or attribute (compat.go) gets raymond's.
func (s *scanner) candidate(k, p int, sc *scanned) (int, item, bool) {
	written := scanNames[k]
	name := canonical(written)
	limit, quoted := s.region(p)
	open, lerr := lexOpen(s.text[:limit], p+1+len(written))
	if lerr != nil {
		return s.malformed(k, p, limit, quoted, lerr)
	}
	if open.selfClosing {
		raw := s.text[p:open.end]
		return open.end, item{
			tag: Tag{Name: name, Offset: p, Raw: raw, Quoted: quoted},
			err: &Error{Kind: Malformed, Tag: raw,
				Msg: fmt.Sprintf("%s has no body, but a transition tag needs one, as in <%s>NAME</%s>", short(raw), written, written)},
		}, true
	}
	c, e := s.closing(k, open.end, limit)
	if c < 0 {
		if !quoted && sc.unclosed == nil {
			sc.unclosed = &Tag{Name: name, Attrs: open.attrs, Offset: p, Raw: s.text[p:open.end]}
		}
		return open.end, item{}, false
	}
	t := Tag{Name: name, Attrs: open.attrs, Offset: p, Raw: s.text[p:e], Quoted: quoted}
	if msg := renameOldAttrs(name, t.Attrs); msg != "" {
		return e, item{tag: t, err: &Error{Kind: Malformed, Tag: t.Raw, Msg: msg}}, true
	}
	body := strings.TrimSpace(s.text[open.end:c])
	if HasPayload(name) {
		t.Payload = body
	} else {
		t.Target = body
	}
	return e, item{tag: t}, true
}

// malformed decides what an opening tag that lexOpen rejected is. If a '>'
// follows the trouble before any other '<', and a closing tag follows that,
// it is a malformed tag; otherwise it is prose that happens to start like a
// tag ("a <goto tag"), and scanning goes on right after its '<'.
func (s *scanner) malformed(k, p, limit int, quoted bool, lerr *lexError) (int, item, bool) {
	text := s.text[:limit]
	stop := len(text)
	if j := strings.IndexByte(text[lerr.pos:], '<'); j >= 0 {
		stop = lerr.pos + j
	}
	g := strings.IndexByte(text[lerr.pos:stop], '>')
	if g < 0 {
		return p + 1, item{}, false
	}
	openEnd := lerr.pos + g + 1
	c, e := s.closing(k, openEnd, limit)
	if c < 0 {
		return p + 1, item{}, false
	}
	raw := text[p:e]
	return e, item{
		tag: Tag{Name: canonical(scanNames[k]), Offset: p, Raw: raw, Quoted: quoted},
		err: &Error{Kind: Malformed, Tag: raw,
			Msg: fmt.Sprintf("malformed tag %s: %s", short(text[p:openEnd]), lerr.msg())},
	}, true
}

// region reports whether p lies in code, and the end of the region a tag
// starting at p must fit in: the end of its code span, or of the text.
// Candidates arrive in increasing order, so a cursor walks the spans once.
func (s *scanner) region(p int) (limit int, quoted bool) {
	if !s.codeReady {
		s.code, s.codeReady = codeSpans(s.text), true
	}
	for s.cursor < len(s.code) && s.code[s.cursor].end <= p {
		s.cursor++
	}
	if s.cursor < len(s.code) && s.code[s.cursor].start <= p {
		return s.code[s.cursor].end, true
	}
	return len(s.text), false
}

// closing returns the first closing tag of scanNames[k] that starts at or after
// from and ends by limit, or -1, -1.
func (s *scanner) closing(k, from, limit int) (int, int) {
	m := &s.closers[k]
	switch {
	case m.valid && from >= m.from && (m.start < 0 || from <= m.start):
		// Known: nothing between m.from and m.start.
	case m.valid && from < m.from:
		// Only the stretch before m.from is new.
		start, end := findClosing(s.text, closePrefixes[k], from, m.from)
		if start >= 0 {
			m.start, m.end = start, end
		}
		m.from = from
	default:
		start, end := findClosing(s.text, closePrefixes[k], from, len(s.text))
		*m = closeMemo{valid: true, from: from, start: start, end: end}
	}
	if m.start < 0 || m.end > limit {
		return -1, -1
	}
	return m.start, m.end
}

// findClosing returns the first closing tag — prefix ("</goto"), optional
// whitespace, '>' — that starts in [from, before), or -1, -1.
func findClosing(text, prefix string, from, before int) (int, int) {
	for from < before {
		hi := min(len(text), before+len(prefix)-1)
		j := strings.Index(text[from:hi], prefix)
		if j < 0 {
			break
		}
		c := from + j
		e := skipSpace(text, c+len(prefix))
		if e < len(text) && text[e] == '>' {
			return c, e + 1
		}
		from = c + 1
	}
	return -1, -1
}

// nameAt returns the index in scanNames of the transition tag name that follows
// the '<' at p, or -1. The name must be followed by whitespace, '>' or "/>":
// "<call-workflow>" is not a <call>, and "<call-workflows>" is nothing.
func nameAt(text string, p int) int {
	rest := text[p+1:]
	if rest == "" {
		return -1
	}
	switch rest[0] {
	case 'g', 'r', 'c', 'f', 'a':
	default:
		return -1
	}
	for k, name := range scanNames {
		if !strings.HasPrefix(rest, name) || len(rest) == len(name) {
			continue
		}
		switch c := rest[len(name)]; {
		case isSpace(c), c == '>':
			return k
		case c == '/' && len(rest) > len(name)+1 && rest[len(name)+1] == '>':
			return k
		}
	}
	return -1
}

// dropQuoted applies the quoting rule: when any tag is unquoted, the quoted
// ones are examples and do not count. An unquoted opening tag that is never
// closed (unclosedOutside) counts as unquoted here: the model meant to answer
// outside code and got it wrong, so a quoted example must not be taken for
// its answer; it gets a reminder about the unclosed tag instead.
func dropQuoted(items []item, unclosedOutside bool) []item {
	unquoted := 0
	for _, it := range items {
		if !it.tag.Quoted {
			unquoted++
		}
	}
	if (unquoted == 0 && !unclosedOutside) || unquoted == len(items) {
		return items
	}
	kept := make([]item, 0, unquoted)
	for _, it := range items {
		if !it.tag.Quoted {
			kept = append(kept, it)
		}
	}
	return kept
}

// maxShort is how many bytes of a tag an error message quotes.
const maxShort = 80

// shortener puts a tag on one line for a message, and writes a NUL byte as
// \x00: a message may become a reminder, which is a process's argument.
var shortener = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ", "\x00", `\x00`)

// short returns s for an error message: on one line, and cut with "…" when it
// is long.
func short(s string) string {
	if len(s) > maxShort {
		cut := maxShort
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return shortener.Replace(s)
}
