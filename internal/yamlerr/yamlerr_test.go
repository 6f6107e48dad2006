package yamlerr

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestLocate(t *testing.T) {
	tests := []struct {
		text    string
		line    int
		problem string
	}{
		{"cases:\n  - name: a\n   input: b\n", 3, "did not find expected '-' indicator"},
		{"model: a\n- b\n", 2, "did not find expected key"},
		{"model: sonnet\n  bad: x\n", 2, "mapping values are not allowed in this context"},
		{"\tmodel: a\n", 1, "found character that cannot start any token; the line is indented with a tab, and YAML indents with spaces only"},
		{"states:\n  START:\n\tprompt: x\n", 3, "found character that cannot start any token; the line is indented with a tab, and YAML indents with spaces only"},
		{"a:\n  - b\n\t  c: d\n", 3, "found a tab character that violates indentation"},
		{"model: a\neffort: 'x\n", 3, EndOfStream},
		{"cases: [", 1, "did not find expected node content"},
		{"model: *a\n", 1, "unknown anchor 'a' referenced"},
		{"x: &ab 1\nmodel: sonnet\ny: [*ab, *a]\n", 3, "unknown anchor 'a' referenced"},
	}
	for _, tt := range tests {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(tt.text), &n)
		if err == nil {
			t.Fatalf("%q: no error", tt.text)
		}
		line, problem := Locate([]byte(tt.text), err)
		if line != tt.line || problem != tt.problem {
			t.Errorf("Locate(%q) = %d, %q; want %d, %q", tt.text, line, problem, tt.line, tt.problem)
		}
	}
}
