package lint

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// placeRE matches an error that starts with a place: FILE:LINE[:COL]: .
var placeRE = regexp.MustCompile(`^(.*?):(\d+)(?::(\d+))?: (.*)$`)

// placed makes a finding of err, taking its place from its start when it
// names one, else file.
func placed(err error, file string) Finding {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "list states: ")
	f := Finding{File: file, Message: msg}
	if m := placeRE.FindStringSubmatch(msg); m != nil && !strings.Contains(m[1], " ") {
		f.Line, _ = strconv.Atoi(m[2])
		f.Column, _ = strconv.Atoi(m[3])
		f.Message = m[4]
		if filepath.IsAbs(m[1]) {
			f.File = m[1]
		}
	} else {
		f.Message = stripPrefix(msg, file)
	}
	return f
}

// stripPrefix drops "FILE: " or "NAME: " from the start of msg.
func stripPrefix(msg, file string) string {
	msg = strings.TrimPrefix(msg, file+": ")
	return strings.TrimPrefix(msg, filepath.Base(file)+": ")
}

// report adds the finding check of severity sev at pl.
func (c *checker) report(check string, sev Severity, pl place, msg, fix string) {
	c.add(Finding{Check: check, Severity: sev, File: pl.file, Line: pl.line, Column: pl.col, Message: msg, Fix: fix})
}

// at returns the place of needle in the frontmatter of n (or, in a YAML
// workflow, after the line of its state), or of the state when needle is
// not found.
func (c *checker) at(n *node, needle string) place {
	pl := place{file: n.file, line: n.line()}
	if needle == "" || len(n.raw) == 0 || n.st == nil {
		return pl
	}
	text := string(n.raw)
	from, to := 0, len(text)
	if strings.HasSuffix(n.file, n.name) {
		to = offsetOfLine(text, n.st.BodyLine)
	} else {
		from = offsetOfLine(text, n.st.BodyLine)
	}
	i := strings.Index(text[from:to], needle)
	if i < 0 {
		return pl
	}
	pl = lineCol(text, from+i, 1)
	pl.file = n.file
	return pl
}

// inBody returns the place of the byte at off in the prompt of n.
func (c *checker) inBody(n *node, off int) place {
	if off < 0 || n.st == nil {
		return place{file: n.file, line: n.st.BodyLine}
	}
	if !strings.HasSuffix(n.file, n.name) {
		// A YAML workflow's prompt is a block: name the state's line.
		return place{file: n.file, line: n.st.BodyLine}
	}
	pl := lineCol(n.st.Body, off, n.st.BodyLine)
	pl.file = n.file
	return pl
}

// offsetOfLine returns the byte offset where the 1-based line starts.
func offsetOfLine(text string, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

// lineCol returns the line and the column (in characters, from 1) of the
// byte at off in text, whose first line is line first.
func lineCol(text string, off, first int) place {
	before := text[:off]
	nl := strings.LastIndexByte(before, '\n')
	return place{line: first + strings.Count(before, "\n"), col: utf8.RuneCountInString(before[nl+1:]) + 1}
}
