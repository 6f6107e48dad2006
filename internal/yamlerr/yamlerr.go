// Package yamlerr finds where in a YAML text a syntax error of
// go.yaml.in/yaml/v3 is.
//
// yaml.v3 words its syntax errors "yaml: line N: problem", but for an error
// found while parsing a block or a flow collection N is the line where the
// collection starts, not where the problem is, and for an error on the first
// line N is left out. Locate finds the line of the problem itself with the
// parser alone: the first prefix of whole lines that fails with the same
// problem ends on that line.
package yamlerr

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// EndOfStream is the problem of a text that ends inside a quoted scalar or
// a collection; Locate places it after the last line.
const EndOfStream = "found unexpected end of stream"

// Locate returns the line (from 1) of the syntax error err found in data,
// and the problem without its "yaml: line N: " prefix. The line is 0 when
// err says nothing about a place in the text (a decoding error); for
// EndOfStream it is the line after the last; an unknown anchor is placed
// at the first alias of that name. A problem on a line indented with a
// tab says so: yaml.v3's "found character that cannot start any token"
// does not tell a person what is wrong.
func Locate(data []byte, err error) (int, string) {
	line, msg := locate(data, err)
	if line > 0 && !strings.Contains(msg, "tab") && tabIndented(data, line) {
		msg += "; the line is indented with a tab, and YAML indents with spaces only"
	}
	return line, msg
}

// unknownAnchorRE matches yaml.v3's problem for an alias of no anchor.
var unknownAnchorRE = regexp.MustCompile(`^unknown anchor '([^']*)' referenced$`)

// locate is Locate without the word on tabs.
func locate(data []byte, err error) (int, string) {
	line, msg := split(err)
	if m := unknownAnchorRE.FindStringSubmatch(msg); m != nil && line == 0 {
		for k, text := range strings.Split(string(data), "\n") {
			if aliasRE(m[1]).MatchString(text) {
				return k + 1, msg
			}
		}
	}
	if line == 0 && !syntax(msg) {
		return 0, msg
	}
	if msg == EndOfStream {
		return 1 + bytes.Count(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) + 1, msg
	}
	end := 0
	for k := 1; end < len(data); k++ {
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(data)
		}
		var n yaml.Node
		if e := yaml.Unmarshal(data[:end], &n); e != nil {
			if _, m := split(e); m == msg {
				return k, msg
			}
		}
	}
	return max(line, 1), msg
}

// split takes the line and the problem out of a yaml.v3 error message.
func split(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := lineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, msg
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// syntax reports whether a message comes from the scanner or the parser,
// which point at a place in the text, rather than from the reader or the
// decoder, which do not.
func syntax(msg string) bool {
	for _, p := range []string{"found ", "did not find ", "could not find ", "mapping values are not allowed", "block sequence entries are not allowed"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// aliasRE matches an alias *name as a whole word.
func aliasRE(name string) *regexp.Regexp {
	return regexp.MustCompile(`\*` + regexp.QuoteMeta(name) + `(?:[\s,\]}]|$)`)
}

// tabIndented reports whether line (from 1) of data has a tab in its
// indentation.
func tabIndented(data []byte, line int) bool {
	lines := strings.Split(string(data), "\n")
	if line > len(lines) {
		return false
	}
	text := lines[line-1]
	indent := text[:len(text)-len(strings.TrimLeft(text, " \t"))]
	return strings.Contains(indent, "\t")
}
