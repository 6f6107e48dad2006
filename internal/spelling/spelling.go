// Package spelling finds the word a person most likely meant: the "did you
// mean" of a misspelt command, flag, config key, frontmatter key or state.
package spelling

import "strings"

// Suggest returns the candidate closest to word, ignoring case, when it is
// close enough to be a typo of it (at most two edits, and few for a short
// word), else "". A candidate equal to word is never suggested.
func Suggest(word string, candidates []string) string {
	best, bestD := "", -1
	for _, c := range candidates {
		if c == word {
			continue
		}
		d := Distance(strings.ToLower(word), strings.ToLower(c))
		if bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > 2 || bestD*3 > len([]rune(word))+1 {
		return ""
	}
	return best
}

// Distance is the edit distance between a and b (in runes), a swap of two
// neighbours counting as one edit.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
