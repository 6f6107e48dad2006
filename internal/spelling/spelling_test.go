package spelling

import "testing"

func TestSuggest(t *testing.T) {
	cmds := []string{"run", "start", "resume", "status", "transcript", "list"}
	for word, want := range map[string]string{
		"runn":       "run",
		"stauts":     "status",
		"trnascript": "transcript",
		"lsit":       "list",
		"RUNN":       "run",
		"x":          "",
		"deploy":     "",
		"run":        "",
	} {
		if got := Suggest(word, cmds); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"abc", "abc", 0}, {"abc", "acb", 1}, {"kitten", "sitting", 3}, {"é", "e", 1}} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
