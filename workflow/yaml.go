package workflow

import (
	"bytes"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Frontmatter is read as yaml.v2 read it before (YAML 1.1): a plain yes,
// no, on, off, y or n is a boolean, so "payload: yes" is refused rather
// than taken as the text "yes".

// bools11 are the plain scalars YAML 1.1 reads as booleans, with their
// value.
var bools11 = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true,
	"on": true, "On": true, "ON": true, "true": true, "True": true, "TRUE": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false,
	"off": false, "Off": false, "OFF": false, "false": false, "False": false, "FALSE": false,
}

// resolved follows an alias to the node it names.
func resolved(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// kind names what the node holds, for decisions and error messages:
// "empty", "a boolean", "a number", "a list", "a mapping" or "a text".
func kind(n *yaml.Node) string {
	n = resolved(n)
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if _, ok := bools11[n.Value]; ok && n.Kind == yaml.ScalarNode && n.Style == 0 {
		return "a boolean"
	}
	switch n.ShortTag() {
	case "!!null":
		return "empty"
	case "!!bool":
		return "a boolean"
	case "!!int", "!!float":
		return "a number"
	}
	return "a text"
}

// truth is the value of a node kind calls a boolean.
func truth(n *yaml.Node) bool { return bools11[resolved(n).Value] }

// yamlError rewrites a YAML error so that it names the file and the line in
// the file rather than in the frontmatter.
func (d *policyDecoder) yamlError(data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		// The YAML parser reports its errors at the line before the token
		// it stopped at (its mark is 0-based there, unlike the scanner's).
		if slices.Contains(parserProblems, msg) {
			line++
		}
		// The end of the stream is after the last line: where the closing
		// --- is, not where the unclosed quote or bracket opened.
		if msg == endOfStream {
			line = 1 + bytes.Count(data, []byte("\n"))
		}
	} else if isSyntaxProblem(msg) {
		// The line is left out when it is the first one.
		line = 1
	}
	return d.errorf(line, "invalid frontmatter: %s", msg)
}

const endOfStream = "found unexpected end of stream"

var yamlLineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// parserProblems are the messages of the YAML parser (as opposed to its
// scanner) that carry a line.
var parserProblems = []string{
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found undefined tag handle",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
}

// isSyntaxProblem reports whether a YAML message comes from the scanner or
// the parser, which point at a place in the text, rather than from the
// reader or the decoder, which do not.
func isSyntaxProblem(msg string) bool {
	for _, p := range []string{"found ", "did not find ", "could not find ", "mapping values are not allowed", "block sequence entries are not allowed"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
