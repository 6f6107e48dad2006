package workflow

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v2"
)

// The decoder's messages point into the state file. yaml.v2 gives no
// positions for decoded values, so the lines of keys and list items are found
// in the text itself, and only when the layout leaves no doubt.

// errorf returns an error naming the file and, when yamlLine is known (> 0),
// the line in the file.
func (d *policyDecoder) errorf(yamlLine int, format string, args ...any) error {
	if yamlLine > 0 {
		return fmt.Errorf("%s:%d: %s", d.name, d.openLine+yamlLine, fmt.Sprintf(format, args...))
	}
	return fmt.Errorf("%s: %s", d.name, fmt.Sprintf(format, args...))
}

// keyLine returns the frontmatter line (1-based) of the top-level key, or 0
// when it cannot be found.
func (d *policyDecoder) keyLine(key string) int {
	if lines := d.keyLines(key); len(lines) > 0 {
		return lines[0]
	}
	return 0
}

// keyLines returns the frontmatter lines (1-based) where the top-level key
// is written: a line at column 0 of the form key: or "key":.
func (d *policyDecoder) keyLines(key string) []int {
	var lines []int
	for i, l := range d.lines {
		if l == "" || l[0] == ' ' || l[0] == '\t' {
			continue
		}
		k, _, ok := strings.Cut(l, ":")
		if ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// itemLines returns the frontmatter lines of the n items of the block
// sequence under the key on keyLine, or nil when the layout is not the
// plain one (flow style, or a count that does not add up): line numbers are
// a help, never a guess.
func (d *policyDecoder) itemLines(keyLine, n int) []int {
	if keyLine == 0 {
		return nil
	}
	if _, after, _ := strings.Cut(d.lines[keyLine-1], ":"); !isBlankYAML(after) {
		return nil
	}
	var lines []int
	indent := -1
	for i := keyLine; i < len(d.lines); i++ {
		l := d.lines[i]
		if isBlankYAML(l) {
			continue
		}
		body := strings.TrimLeft(l, " ")
		in := len(l) - len(body)
		item := body == "-" || strings.HasPrefix(body, "- ")
		if indent < 0 {
			if !item {
				return nil
			}
			indent = in
		}
		if in < indent || (in == indent && !item) {
			break
		}
		if in == indent {
			lines = append(lines, i+1)
		}
	}
	if len(lines) != n {
		return nil
	}
	return lines
}

// isBlankYAML reports whether s holds nothing but spaces and a comment.
func isBlankYAML(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || s[0] == '#'
}

// yamlError rewrites a YAML error so that it names the file and the line in
// the file rather than in the frontmatter.
func (d *policyDecoder) yamlError(err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		line := 1
		if len(te.Errors) > 0 {
			if m := typeErrorLineRE.FindStringSubmatch(te.Errors[0]); m != nil {
				line, _ = strconv.Atoi(m[1])
			}
		}
		return d.errorf(line, "frontmatter must be a mapping of keys to values, like \"model: sonnet\"")
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		// yaml.v2 reports a parser error at the line before the token it
		// stopped at (its mark is 0-based there, unlike a scanner's).
		if slices.Contains(parserProblems, msg) {
			line++
		}
	} else if isSyntaxProblem(msg) {
		// yaml.v2 leaves the line out when it is the first one.
		line = 1
	}
	return d.errorf(line, "invalid frontmatter: %s", msg)
}

var (
	yamlLineRE      = regexp.MustCompile(`^line (\d+): (.*)$`)
	typeErrorLineRE = regexp.MustCompile(`^line (\d+): `)
)

// parserProblems are the messages of yaml.v2's parser (as opposed to its
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

// isSyntaxProblem reports whether a yaml.v2 message comes from its scanner or
// parser, which point at a place in the text, rather than from its reader or
// decoder, which do not.
func isSyntaxProblem(msg string) bool {
	for _, p := range []string{"found ", "did not find ", "could not find ", "mapping values are not allowed", "block sequence entries are not allowed"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}
