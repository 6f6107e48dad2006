package workflow

import (
	"slices"
	"strings"
)

// NULPlaceholder returns the name of the first placeholder of text whose
// value in vars holds a NUL byte: rendered, the prompt could not be sent,
// since no process argument can hold one. Tags are refused with such values
// (parsing), so only a run saved with one by an older raymond, or a state
// file edited by hand, can have it.
func NULPlaceholder(text string, vars map[string]string) (string, bool) {
	found := ""
	scan(text, func(_, _ int, name string) {
		if found == "" && strings.IndexByte(vars[name], 0) >= 0 {
			found = name
		}
	})
	return found, found != ""
}

// Render replaces every {{name}} placeholder in text whose name is in vars
// (§7). Spaces inside the braces are allowed ({{ name }}); a name starts with
// a letter or _ and goes on with letters, digits, _ and -. A placeholder with
// no value is left exactly as written. Substitution is a single pass: text
// inserted for a placeholder is never scanned again.
func Render(text string, vars map[string]string) string {
	var b strings.Builder
	last := 0
	scan(text, func(start, end int, name string) {
		value, ok := vars[name]
		if !ok {
			return
		}
		if b.Cap() == 0 {
			b.Grow(len(text))
		}
		b.WriteString(text[last:start])
		b.WriteString(value)
		last = end
	})
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

// Placeholders returns the names of the placeholders used in text, sorted,
// each once.
func Placeholders(text string) []string {
	var names []string
	scan(text, func(_, _ int, name string) { names = append(names, name) })
	slices.Sort(names)
	return slices.Compact(names)
}

// scan calls fn for each placeholder in text, in order, with its byte range
// and its name. It runs in time linear in len(text).
func scan(text string, fn func(start, end int, name string)) {
	for i := 0; ; {
		j := strings.Index(text[i:], "{{")
		if j < 0 {
			return
		}
		start := i + j
		if end, name, ok := placeholderAt(text, start); ok {
			fn(start, end, name)
			i = end
		} else {
			// Nothing scanned past the first brace can start a placeholder
			// except the second brace itself ("{{{x}}").
			i = start + 1
		}
	}
}

// placeholderAt parses the placeholder that starts with "{{" at text[start:]
// and returns where it ends and its name.
func placeholderAt(text string, start int) (end int, name string, ok bool) {
	i := skipSpaces(text, start+2)
	n := i
	for n < len(text) && isNameByte(text[n], n == i) {
		n++
	}
	if n == i {
		return 0, "", false
	}
	name = text[i:n]
	i = skipSpaces(text, n)
	if !strings.HasPrefix(text[i:], "}}") {
		return 0, "", false
	}
	return i + 2, name, true
}

func skipSpaces(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

func isNameByte(c byte, first bool) bool {
	switch {
	case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		return true
	case '0' <= c && c <= '9', c == '-':
		return !first
	}
	return false
}
