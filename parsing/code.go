package parsing

import "strings"

// span is the byte range [start, end) of a text.
type span struct{ start, end int }

// codeSpans returns, in order, the parts of text that markdown shows as code:
// fenced code blocks, fence lines included, and inline code spans, backticks
// included. Tags found there are quoted.
//
// It follows CommonMark closely enough for model output, with two
// simplifications: a fence may be indented by any amount (models indent them
// inside list items), and a backslash does not escape a backtick. An
// unclosed fence runs to the end of the text; an inline span never crosses a
// blank line or a fence.
func codeSpans(text string) []span {
	var (
		out       []span
		para      = -1 // start of the current paragraph, or -1
		fence     byte // the fence character while inside a fenced block
		fenceLen  int
		fenceFrom int
	)
	for pos := 0; pos < len(text); {
		end := len(text)
		if i := strings.IndexByte(text[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		line := strings.TrimRight(text[pos:end], "\r\n")
		switch {
		case fence != 0:
			if closesFence(line, fence, fenceLen) {
				out = append(out, span{fenceFrom, end})
				fence = 0
			}
		case strings.TrimSpace(line) == "":
			out = inlineSpans(text, para, pos, out)
			para = -1
		default:
			if c, n := opensFence(line); c != 0 {
				out = inlineSpans(text, para, pos, out)
				para = -1
				fence, fenceLen, fenceFrom = c, n, pos
			} else if para < 0 {
				para = pos
			}
		}
		pos = end
	}
	if fence != 0 {
		return append(out, span{fenceFrom, len(text)})
	}
	return inlineSpans(text, para, len(text), out)
}

// opensFence returns the fence character and length if line opens a fenced
// code block: three or more backticks or tildes after optional indentation,
// and for backticks an info string without backticks.
func opensFence(line string) (byte, int) {
	line = strings.TrimLeft(line, " \t")
	if line == "" || (line[0] != '`' && line[0] != '~') {
		return 0, 0
	}
	c := line[0]
	n := fenceRun(line, c)
	if n < 3 || (c == '`' && strings.IndexByte(line[n:], '`') >= 0) {
		return 0, 0
	}
	return c, n
}

// closesFence reports whether line closes a fence of n characters c.
func closesFence(line string, c byte, n int) bool {
	line = strings.TrimLeft(line, " \t")
	m := fenceRun(line, c)
	return m >= n && strings.TrimSpace(line[m:]) == ""
}

// fenceRun returns how many times c repeats at the start of line.
func fenceRun(line string, c byte) int {
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	return n
}

// inlineSpans appends the inline code spans of the paragraph text[from:to]
// to out; from < 0 means there is no paragraph. An opening run of n
// backticks is closed by the next run of exactly n backticks; a run with no
// partner is literal text.
//
// Runs are indexed by length and each length keeps a cursor that only moves
// forward, so the paragraph is paired up in linear time.
func inlineSpans(text string, from, to int, out []span) []span {
	if from < 0 {
		return out
	}
	type run struct{ pos, n int }
	var runs []run
	for i := from; i < to; {
		j := strings.IndexByte(text[i:to], '`')
		if j < 0 {
			break
		}
		s := i + j
		e := s
		for e < to && text[e] == '`' {
			e++
		}
		runs = append(runs, run{s, e - s})
		i = e
	}
	if len(runs) < 2 {
		return out
	}
	byLen := make(map[int][]int)
	for k, r := range runs {
		byLen[r.n] = append(byLen[r.n], k)
	}
	cursor := make(map[int]int)
	for k := 0; k < len(runs); {
		r := runs[k]
		same, c := byLen[r.n], cursor[r.n]
		for c < len(same) && same[c] <= k {
			c++
		}
		cursor[r.n] = c
		if c == len(same) {
			k++
			continue
		}
		m := runs[same[c]]
		out = append(out, span{r.pos, m.pos + m.n})
		k = same[c] + 1
	}
	return out
}
