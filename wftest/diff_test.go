package wftest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// render shows a diff of a and b as formatDiff writes it.
func render(a, b []string) string {
	return formatDiff(diff(a, b), func(e edit) string {
		if e.kind == '+' {
			return b[e.i]
		}
		return a[e.i]
	}, "states")
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		a, b string // space-separated
		want string
	}{
		{"added", "A C", "A B C", "  A\n+ B\n  C"},
		{"removed", "A B C", "A C", "  A\n- B\n  C"},
		{"replaced", "A B C", "A X C", "  A\n- B\n+ X\n  C"},
		{"from nothing", "", "A B", "+ A\n+ B"},
		{"to nothing", "A B", "", "- A\n- B"},
		{"loop once more", "S F F E", "S F F F E", "  S\n  F\n  F\n+ F\n  E"},
		{"interleaved", "A B C D", "B A D C", "- A\n  B\n- C\n+ A\n  D\n+ C"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, render(strings.Fields(tt.a), strings.Fields(tt.b)))
		})
	}
}

func TestDiffFoldsLongRuns(t *testing.T) {
	var a []string
	for i := range 20 {
		a = append(a, fmt.Sprint("S", i))
	}
	b := append(append([]string{}, a[:10]...), append([]string{"NEW"}, a[10:]...)...)
	assert.Equal(t, `  … 7 states the same …
  S7
  S8
  S9
+ NEW
  S10
  S11
  S12
  … 7 states the same …`, render(a, b))

	b = append(append([]string{"X"}, a[:10]...), append([]string{"Y"}, a[10:]...)...)
	assert.Equal(t, `+ X
  S0
  S1
  S2
  … 4 states the same …
  S7
  S8
  S9
+ Y
  S10
  S11
  S12
  … 7 states the same …`, render(a, b), "between two changes, context on both sides")
}

func TestDiffHuge(t *testing.T) {
	// Past maxCells the middle is shown removed then added: still a diff.
	n := 3000
	a, b := make([]string, n), make([]string, n)
	for i := range n {
		a[i], b[i] = fmt.Sprint("a", i), fmt.Sprint("b", i)
	}
	edits := diff(a, b)
	assert.Len(t, edits, 2*n)
	assert.Equal(t, byte('-'), edits[0].kind)
	assert.Equal(t, byte('+'), edits[n].kind)
}

func BenchmarkDiff(b *testing.B) {
	x, y := make([]string, 1000), make([]string, 1000)
	for i := range x {
		x[i], y[i] = fmt.Sprint("S", i%7), fmt.Sprint("S", i%5)
	}
	for b.Loop() {
		diff(x, y)
	}
}
