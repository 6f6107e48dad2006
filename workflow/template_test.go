package workflow

import (
	"slices"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	vars := map[string]string{
		"input":  "the {{state}} text",
		"state":  "REVIEW.md",
		"item-1": "one",
		"_x":     "X",
		"empty":  "",
	}
	tests := []struct{ in, want string }{
		{"", ""},
		{"no placeholders", "no placeholders"},
		{"{{state}}", "REVIEW.md"},
		{"at {{ state }} and {{state\t}}.", "at REVIEW.md and REVIEW.md."},
		{"single pass: {{input}}", "single pass: the {{state}} text"},
		{"unknown {{ other }} kept", "unknown {{ other }} kept"},
		{"{{item-1}}{{_x}}", "oneX"},
		{"[{{empty}}]", "[]"},
		{"{{{state}}}", "{REVIEW.md}"},
		{"{{state}}}}", "REVIEW.md}}"},
		{"{{{{state}}", "{{REVIEW.md"},
		{"{{1state}} {{-x}} {{st ate}} {{}} {{ }}", "{{1state}} {{-x}} {{st ate}} {{}} {{ }}"},
		{"{{state} } {state}} { {state}}", "{{state} } {state}} { {state}}"},
		{"{{state\n}}", "{{state\n}}"},
		{"unterminated {{state", "unterminated {{state"},
		{"é{{state}}é", "éREVIEW.mdé"},
	}
	for _, tt := range tests {
		if got := Render(tt.in, vars); got != tt.want {
			t.Errorf("Render(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Render("{{state}}", nil); got != "{{state}}" {
		t.Errorf("Render with no vars = %q", got)
	}
}

func TestPlaceholders(t *testing.T) {
	got := Placeholders("{{b}} {{ a }} {{b}} {{{c}}} {{1x}} {{d-e}} {{ f")
	if want := []string{"a", "b", "c", "d-e"}; !slices.Equal(got, want) {
		t.Errorf("Placeholders = %q, want %q", got, want)
	}
	if got := Placeholders("none"); len(got) != 0 {
		t.Errorf("Placeholders(none) = %q", got)
	}
}

// A prompt of 64 KiB with a placeholder every 200 bytes or so.
func BenchmarkRender64K(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 64<<10 {
		sb.WriteString("Read the files under {{ input }} and write a summary for {{agent_id}}; ")
		sb.WriteString("keep {{unknown}} as is. Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do.\n")
	}
	text := sb.String()
	vars := map[string]string{"input": "/work/src", "agent_id": "main_worker1", "state": "X.md"}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Render(text, vars)
	}
}

// Braces that never close must not make rendering quadratic.
func BenchmarkRenderPathological64K(b *testing.B) {
	text := strings.Repeat("{{ aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa ", 64<<10/34)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		Render(text, map[string]string{"a": "x"})
	}
}
