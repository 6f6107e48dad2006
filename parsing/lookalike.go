package parsing

import (
	"regexp"
	"slices"
	"strings"
)

// Lookalike is a piece of text outside code that is shaped like a
// transition tag but has a name that is none: an element such as
// <gotoo>X</gotoo>, or an opening tag with attributes such as
// <retrun to="A">. A model told to emit it emits it, and the orchestrator,
// which reads only transition tags, sees no tag at all.
type Lookalike struct {
	// Name is the name as written.
	Name string
	// Body is the text between the opening and the closing tag, "" when
	// none closes it.
	Body string
	// Keys are the attribute names of the opening tag.
	Keys []string
	// Offset is the byte offset of the opening '<' in the text.
	Offset int
}

// lookalikeOpen matches an opening tag: a name, then attributes written
// key=value (quoted or not).
var lookalikeOpen = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9_-]*)((?:\s+[A-Za-z_][A-Za-z0-9_-]*\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))*)\s*>`)

// lookalikeKey finds the attribute names of an opening tag.
var lookalikeKey = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_-]*)\s*=`)

// Lookalikes returns, in order, the tag-shaped pieces of text outside code
// whose name is no transition tag (nor an old spelling of one): those with
// attributes, and those closed by </name> on the same or a later line. A
// caller judges which are typos (lint compares the names with Names).
func Lookalikes(text string) []Lookalike {
	if !strings.Contains(text, "<") {
		return nil
	}
	code := codeSpans(text)
	var out []Lookalike
	for _, m := range lookalikeOpen.FindAllStringSubmatchIndex(text, -1) {
		name := text[m[2]:m[3]]
		if slices.Contains(scanNames, strings.ToLower(name)) || inSpans(code, m[0]) {
			continue
		}
		l := Lookalike{Name: name, Offset: m[0]}
		for _, k := range lookalikeKey.FindAllStringSubmatch(text[m[4]:m[5]], -1) {
			l.Keys = append(l.Keys, k[1])
		}
		closed := false
		if end := strings.Index(text[m[1]:], "</"+name+">"); end >= 0 {
			l.Body, closed = text[m[1]:m[1]+end], true
		}
		if closed || len(l.Keys) > 0 {
			out = append(out, l)
		}
	}
	return out
}

// inSpans reports whether offset lies in one of spans.
func inSpans(spans []span, offset int) bool {
	for _, s := range spans {
		if offset >= s.start && offset < s.end {
			return true
		}
	}
	return false
}
