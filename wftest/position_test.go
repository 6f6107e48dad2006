package wftest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOutlineLines(t *testing.T) {
	doc := `# a comment
workflow: .
cases:
  - name: first            # line 4
    input: "x: y"
    replies:
      START.md:
        - "a: b"           # line 8
        - text: |
            key: not a key
            - not an item
          cost: 1          # line 12
      "main_w1/WORKER": [a,
        b]
      'it''s': [c]         # line 15
    expect:
      path:
        main: [START]      # line 18
- name: second
cases2:
- name: third              # line 21
-
  name: fourth             # line 23
`
	root := outline([]byte(doc))
	tests := []struct {
		path []any
		want int
	}{
		{[]any{"workflow"}, 2},
		{[]any{"cases"}, 3},
		{[]any{"cases", 0}, 4},
		{[]any{"cases", 0, "name"}, 4},
		{[]any{"cases", 0, "input"}, 5},
		{[]any{"cases", 0, "replies", "START.md", 0}, 8},
		{[]any{"cases", 0, "replies", "START.md", 1}, 9},
		{[]any{"cases", 0, "replies", "START.md", 1, "cost"}, 12},
		{[]any{"cases", 0, "replies", "START.md", 1, "key"}, 9}, // inside a block scalar: not a key
		{[]any{"cases", 0, "replies", "main_w1/WORKER"}, 13},
		{[]any{"cases", 0, "replies", "main_w1/WORKER", 1}, 13}, // flow style: the key's line
		{[]any{"cases", 0, "replies", "it's"}, 15},
		{[]any{"cases", 0, "expect", "path", "main"}, 18},
		{[]any{"cases", 1}, 19}, // an item at the column of its parent's key
		{[]any{"cases", 2}, 3},  // no such item: the list's key
		{[]any{"cases2", 0, "name"}, 21},
		{[]any{"cases2", 1, "name"}, 23},
		{[]any{"missing"}, 0},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, root.lineOf(tt.path...), "%v", tt.path)
	}
}

func TestSplitKey(t *testing.T) {
	tests := []struct {
		body, key, value string
		ok               bool
	}{
		{"name: x ", "name", "x", true},
		{"name:", "name", "", true},
		{"a:b", "", "", false},
		{`"a: b": c`, "a: b", "c", true},
		{`"a\"b": c`, `a"b`, "c", true},
		{`'it''s': c`, "it's", "c", true},
		{`"open: x`, "", "", false},
		{"[a, b]", "", "", false},
		{"{a: b}", "", "", false},
		{"plain text", "", "", false},
		{"# x: y", "", "", false},
	}
	for _, tt := range tests {
		k, v, ok := splitKey(tt.body)
		assert.Equal(t, tt.ok, ok, tt.body)
		if tt.ok {
			assert.Equal(t, tt.key, k, tt.body)
			assert.Equal(t, tt.value, v, tt.body)
		}
	}
}
