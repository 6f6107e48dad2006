package main

import (
	"fmt"

	"raymond/internal/spelling"
)

// didYouMean returns " (did you mean X?)" for the candidate suggest finds,
// written with prefix (e.g. "--"), or "".
func didYouMean(word, prefix string, candidates []string) string {
	if s := spelling.Suggest(word, candidates); s != "" {
		return fmt.Sprintf("; did you mean %s%s?", prefix, s)
	}
	return ""
}
