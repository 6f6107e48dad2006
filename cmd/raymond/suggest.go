package main

import (
	"fmt"
	"strings"
)

// suggest returns the candidate closest to word when it is close enough to
// be a typo of it (an edit distance of at most a third of its length, and
// at least 1), else "".
func suggest(word string, candidates []string) string {
	best, bestDist := "", max(1, len(word)/3)+1
	for _, c := range candidates {
		if d := editDistance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// didYouMean returns " (did you mean X?)" for the candidate suggest finds,
// written with prefix (e.g. "--"), or "".
func didYouMean(word, prefix string, candidates []string) string {
	if s := suggest(word, candidates); s != "" {
		return fmt.Sprintf("; did you mean %s%s?", prefix, s)
	}
	return ""
}

// editDistance is the Levenshtein distance between a and b, counting a
// swap of two neighbours as one edit.
func editDistance(a, b string) int {
	a, b = strings.ToLower(a), strings.ToLower(b)
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
