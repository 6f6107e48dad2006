package wftest

import (
	"regexp"
	"strconv"
	"strings"
)

// yaml.v2 decodes without positions, so the lines that error messages
// point at are found in the text itself: outline reads the block structure
// of a YAML document (keys, list items, indentation) well enough to find
// the line of cases[2].replies.WORKER[1]. It never guesses: where the
// layout is not plain block style (a flow mapping, say) it stops at the
// deepest line it is sure of, the enclosing key or item.

// node is one key or list item of the outline.
type node struct {
	line   int    // 1-based
	indent int    // column of the key or of the "-"
	key    string // the key, quotes removed; "" for a list item
	item   bool
	// inline is set when the key or item has a value on its own line (a
	// scalar, a flow collection, a block scalar's indicator): deeper lines
	// then continue that value and hold no structure.
	inline   bool
	children []*node
}

// outline returns the root of the structure of a YAML document.
func outline(data []byte) *node {
	root := &node{indent: -1}
	stack := []*node{root}
	for i, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimRight(raw, " \t\r")
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		if body == "" || body[0] == '#' || (indent == 0 && (body == "---" || body == "...")) {
			continue
		}
		// The nearest enclosing node: a line deeper than a node with an
		// inline value is part of that value.
		parent := len(stack) - 1
		for stack[parent].indent >= indent {
			parent--
		}
		if stack[parent].inline {
			continue
		}
		n := parseLine(i+1, indent, body)
		if n == nil {
			continue // a plain scalar on its own line
		}
		// A list may sit at the same column as the key that holds it.
		for top := stack[len(stack)-1]; len(stack) > 1 && top.indent >= indent; top = stack[len(stack)-1] {
			if n.item && top.indent == indent && !top.item && !top.inline && top.key != "" {
				break
			}
			stack = stack[:len(stack)-1]
		}
		top := stack[len(stack)-1]
		top.children = append(top.children, n)
		stack = append(stack, n)
		if len(n.children) > 0 { // "- key: …" opens a mapping inside the item
			stack = append(stack, n.children[0])
		}
	}
	return root
}

// parseLine reads one line that starts a key or an item; nil when it
// starts neither.
func parseLine(line, indent int, body string) *node {
	if body == "-" || strings.HasPrefix(body, "- ") {
		n := &node{line: line, indent: indent, item: true}
		rest := strings.TrimLeft(strings.TrimPrefix(body, "-"), " ")
		if rest == "" || rest[0] == '#' {
			return n
		}
		inner := indent + len(body) - len(rest)
		if k := parseLine(line, inner, rest); k != nil && !k.item {
			n.children = []*node{k}
			return n
		}
		n.inline = true
		return n
	}
	key, value, ok := splitKey(body)
	if !ok {
		return nil
	}
	return &node{line: line, indent: indent, key: key, inline: value != "" && value[0] != '#'}
}

// splitKey splits "key: value" (the key may be quoted) and trims the
// value; ok is false when the line is not a key.
func splitKey(body string) (key, value string, ok bool) {
	if body[0] == '"' || body[0] == '\'' {
		end := closingQuote(body)
		if end < 0 {
			return "", "", false
		}
		after := body[end+1:]
		if !strings.HasPrefix(after, ":") || (len(after) > 1 && after[1] != ' ') {
			return "", "", false
		}
		k := body[:end+1]
		if body[0] == '"' {
			if uq, err := strconv.Unquote(k); err == nil {
				return uq, strings.TrimSpace(after[1:]), true
			}
		}
		return strings.ReplaceAll(k[1:len(k)-1], "''", "'"), strings.TrimSpace(after[1:]), true
	}
	if strings.ContainsAny(body[:1], "[{&*!|>%@`") {
		return "", "", false
	}
	m := plainKey.FindStringSubmatchIndex(body)
	if m == nil {
		return "", "", false
	}
	return strings.TrimSpace(body[:m[3]]), strings.TrimSpace(body[m[1]:]), true
}

// plainKey matches an unquoted key up to its colon, which is followed by a
// space or ends the line.
var plainKey = regexp.MustCompile(`^([^#]*?):(?: |$)`)

// closingQuote returns the index of the quote that closes the string
// starting at s[0], or -1.
func closingQuote(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i
		}
	}
	return -1
}

// lineOf returns the line of the value at path, a sequence of keys
// (string) and list positions (int, from 0), or of the deepest part of it
// that could be found; 0 when not even the first part could.
func (n *node) lineOf(path ...any) int {
	line := 0
	cur := n
	for _, p := range path {
		next := cur.child(p)
		if next == nil {
			break
		}
		line, cur = next.line, next
	}
	return line
}

// child returns the child of n that p names: the key p among n's keys, or
// the p-th item of the list n holds.
func (n *node) child(p any) *node {
	switch p := p.(type) {
	case string:
		for _, c := range n.children {
			if !c.item && c.key == p {
				return c
			}
		}
	case int:
		i := 0
		for _, c := range n.children {
			if !c.item {
				continue
			}
			if i == p {
				return c
			}
			i++
		}
	}
	return nil
}

// lineOfSecond returns the line of the second key key in the mapping at
// path, where a duplicate is; else the line of the mapping.
func (n *node) lineOfSecond(path []any, key string) int {
	cur := n
	for _, p := range path {
		if cur = cur.child(p); cur == nil {
			return n.lineOf(path...)
		}
	}
	seen := 0
	for _, c := range cur.children {
		if !c.item && c.key == key {
			if seen++; seen == 2 {
				return c.line
			}
		}
	}
	return n.lineOf(path...)
}
