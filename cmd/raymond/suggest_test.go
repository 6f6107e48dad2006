package main

import "testing"

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
		if got := suggest(word, cmds); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}
