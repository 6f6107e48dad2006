package main

import (
	"testing"

	"raymond/internal/spelling"
)

func TestSuggest(t *testing.T) {
	cmds := []string{"run", "start", "resume", "status", "transcript", "list"}
	for word, want := range map[string]string{
		"runn":       "run",
		"stauts":     "status",
		"trnascript": "transcript",
		"lsit":       "list",
		"x":          "",
		"deploy":     "",
	} {
		if got := spelling.Suggest(word, cmds); got != want {
			t.Errorf("spelling.Suggest(%q) = %q, want %q", word, got, want)
		}
	}
}
