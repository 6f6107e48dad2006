package workflow

import (
	"path/filepath"
	"testing"
)

func TestReachedReadsLiteralScriptTags(t *testing.T) {
	dir := writeScope(t, map[string]string{
		"plan/START.sh": "# <reset-workflow>../commented/</reset-workflow>\n" +
			"printf '<reset-workflow input=\"%s\">../impl/</reset-workflow>\\n' \"$dir\"\n" +
			"echo \"<reset-workflow>../$next/</reset-workflow>\"\n",
		"plan/ASK.md":        "Answer <call-workflow return=\"ASK\">../lib/</call-workflow>",
		"impl/START.md":      "go",
		"lib/START.md":       "go",
		"commented/START.md": "never",
	})
	ss := NewScopes(nil)
	defer ss.Close()
	s, _, err := ss.Start(filepath.Join(dir, "plan"))
	must(t, err)
	var got []string
	for _, r := range ss.Reached(s) {
		got = append(got, filepath.Base(r.Dir()))
	}
	want := []string{"plan", "lib", "impl"}
	if len(got) != len(want) {
		t.Fatalf("reached %v, want %v: a script's literal tag counts, one the shell fills in or a comment does not", got, want)
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("reached %v, want %v", got, want)
		}
	}
}

// A malformed tag in a prompt does not hide the workflows the tags beside
// it reach.
func TestReachedPastAMalformedTag(t *testing.T) {
	dir := writeScope(t, map[string]string{
		"main/START.md": "If stuck, <ask next=START>why</ask>. Else <call-workflow return=\"START\">../lib/</call-workflow>",
		"lib/START.md":  "go",
	})
	ss := NewScopes(nil)
	defer ss.Close()
	s, _, err := ss.Start(filepath.Join(dir, "main"))
	must(t, err)
	var got []string
	for _, r := range ss.Reached(s) {
		got = append(got, filepath.Base(r.Dir()))
	}
	if len(got) != 2 || got[1] != "lib" {
		t.Errorf("reached %v, want [main lib]", got)
	}
}
