package wftest

import (
	"fmt"
	"strings"
)

// edit is one line of a diff: kind ' ' (in both), '-' (only in a) or '+'
// (only in b), with the index of the line in a or b.
type edit struct {
	kind byte
	i    int // index in a for ' ' and '-', in b for '+'
	j    int // index in b for ' '
}

// maxCells bounds the table of the longest common subsequence; beyond it,
// the differing middle is shown as removed then added, which is still a
// correct diff, only not the shortest.
const maxCells = 1 << 22

// diff returns the edits that turn a into b: a shortest one found through
// the longest common subsequence, after the common prefix and suffix are
// set aside.
func diff(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []edit
	for k := range pre {
		out = append(out, edit{' ', k, k})
	}
	out = append(out, middle(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for k := range suf {
		out = append(out, edit{' ', len(a) - suf + k, len(b) - suf + k})
	}
	return out
}

// middle diffs the parts of a and b that start at index off in both.
func middle(a, b []string, off int) []edit {
	n, m := len(a), len(b)
	var out []edit
	if n*m > maxCells {
		for k := range a {
			out = append(out, edit{kind: '-', i: off + k})
		}
		for k := range b {
			out = append(out, edit{kind: '+', i: off + k})
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, edit{' ', off + i, off + j})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] > lcs[i+1][j]):
			out = append(out, edit{kind: '+', i: off + j})
			j++
		default:
			out = append(out, edit{kind: '-', i: off + i})
			i++
		}
	}
	return out
}

// contextLines is how many unchanged lines a diff shows around a change.
const contextLines = 3

// formatDiff writes the edits as lines "  same", "- removed", "+ added",
// folding runs of unchanged lines longer than twice the context into one
// line that counts them, and showing at most maxDiffLines lines. show
// returns the text of a line.
func formatDiff(edits []edit, show func(e edit) string, noun string) string {
	var lines []string
	for k := 0; k < len(edits); {
		if edits[k].kind != ' ' {
			lines = append(lines, fmt.Sprintf("%c %s", edits[k].kind, show(edits[k])))
			k++
			continue
		}
		end := k
		for end < len(edits) && edits[end].kind == ' ' {
			end++
		}
		keepHead, keepTail := contextLines, contextLines
		if k == 0 {
			keepHead = 0
		}
		if end == len(edits) {
			keepTail = 0
		}
		if end-k > keepHead+keepTail+1 {
			for _, e := range edits[k : k+keepHead] {
				lines = append(lines, "  "+show(e))
			}
			lines = append(lines, fmt.Sprintf("  … %d %s the same …", end-k-keepHead-keepTail, noun))
			k = end - keepTail
		}
		for ; k < end; k++ {
			lines = append(lines, "  "+show(edits[k]))
		}
	}
	if len(lines) > maxDiffLines {
		more := len(lines) - maxDiffLines
		lines = append(lines[:maxDiffLines], fmt.Sprintf("  … %s of the diff not shown …", count(more, "more line", "more lines")))
	}
	return strings.Join(lines, "\n")
}
