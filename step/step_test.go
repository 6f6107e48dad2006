package step

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestName(t *testing.T) {
	if got, want := Name("main_review1", "REVIEW.md", 2), "main_review1_REVIEW_002"; got != want {
		t.Errorf("Name = %q, want %q", got, want)
	}
	// An agent 40 forks deep, at a state with a long name: the name stays
	// far below the 255 bytes of a file name, its suffixes included.
	deep := "main" + strings.Repeat("_worker40", 40)
	long := strings.Repeat("É", 100) + ".md"
	name := Name(deep, long, 123)
	if len(name)+len(".prompt.md") > 200 || !utf8.ValidString(name) {
		t.Errorf("Name of a deep agent = %q (%d bytes)", name, len(name))
	}
	if !strings.HasPrefix(name, deep[:MaxAgentPart-13]+"~") || !strings.HasSuffix(name, "_123") {
		t.Errorf("Name of a deep agent = %q: want the agent id's first bytes and the seq", name)
	}
	// Ids that differ only past the cut get different names.
	if Name(deep+"1", "S.md", 1) == Name(deep+"2", "S.md", 1) {
		t.Error("two long agent ids share a step name")
	}
}

func TestNamePart(t *testing.T) {
	for _, s := range []string{"", "main", strings.Repeat("x", 96)} {
		if got := NamePart(s, 96); got != s {
			t.Errorf("NamePart(%q) = %q, want it unchanged", s, got)
		}
	}
	for _, s := range []string{strings.Repeat("x", 97), strings.Repeat("é", 200)} {
		got := NamePart(s, 96)
		if len(got) > 96 || !utf8.ValidString(got) || got != NamePart(s, 96) {
			t.Errorf("NamePart(%d bytes) = %q", len(s), got)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute: "10m", 100 * time.Millisecond: "100ms", time.Hour: "1h",
		90 * time.Minute: "1h30m", 90 * time.Second: "1m30s", 0: "0s",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}

// TestMarkerKeepsProjectsApart: two projects' runs of the same id (tests
// and --id give their own) have steps of different markers, so a sweep of
// one never ends the other's processes; a marker without a project keeps
// the old form.
func TestMarkerKeepsProjectsApart(t *testing.T) {
	a, b := Marker("/p", "r1", "main", 3), Marker("/q", "r1", "main", 3)
	if a == b {
		t.Fatalf("the steps of r1 in /p and /q have the same marker %q", a)
	}
	if got := Marker("", "r1", "main", 3); got != "r1/main/3" {
		t.Fatalf("Marker without a project = %q, want r1/main/3", got)
	}
	r := Request{RunID: "r1", Agent: "main", Seq: 3}
	r.Options.ProjectDir = "/p"
	if r.Marker() != a {
		t.Fatalf("Request.Marker = %q, want %q", r.Marker(), a)
	}
}
