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
	return diffFunc(len(a), len(b), func(i, j int) bool { return a[i] == b[j] })
}

// diffFunc is diff for sequences of n and m items, where eq(i, j) reports
// whether the i-th of the first is the j-th of the second.
func diffFunc(n, m int, eq func(i, j int) bool) []edit {
	pre := 0
	for pre < n && pre < m && eq(pre, pre) {
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && eq(n-1-suf, m-1-suf) {
		suf++
	}
	var out []edit
	for k := range pre {
		out = append(out, edit{' ', k, k})
	}
	out = append(out, middle(n-pre-suf, m-pre-suf, pre, eq)...)
	for k := range suf {
		out = append(out, edit{' ', n - suf + k, m - suf + k})
	}
	return out
}

// middle diffs the n and m items that start at index off in both.
func middle(n, m, off int, eq func(i, j int) bool) []edit {
	var out []edit
	if n*m > maxCells {
		for k := range n {
			out = append(out, edit{kind: '-', i: off + k})
		}
		for k := range m {
			out = append(out, edit{kind: '+', i: off + k})
		}
		return out
	}
	same := func(i, j int) bool { return eq(off+i, off+j) }
	// lcs[i][j] is the length of the longest common subsequence of the
	// items from i and from j.
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if same(i, j) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && same(i, j):
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
