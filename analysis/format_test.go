package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDur(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{-time.Second, "0s"},
		{300 * time.Nanosecond, "0s"},
		{420 * time.Microsecond, "420µs"},
		{999*time.Microsecond + 600*time.Nanosecond, "1ms"},
		{1900 * time.Microsecond, "1.9ms"},
		{5 * time.Millisecond, "5ms"},
		{9970 * time.Microsecond, "10ms"},
		{850 * time.Millisecond, "850ms"},
		{999700 * time.Microsecond, "1.00s"},
		{2410 * time.Millisecond, "2.41s"},
		{12400 * time.Millisecond, "12.4s"},
		{65 * time.Second, "1m05s"},
		{2*time.Hour + 10*time.Minute, "2h10m"},
		{76 * time.Hour, "3d4h"},
	} {
		assert.Equal(t, tc.want, dur(tc.d), "%v", tc.d)
	}
}

func TestScreenWidth(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"ünï", 3},
		{"u\u0308", 1},    // u and a combining diaeresis
		{"日本語", 6},        // CJK ideographs
		{"データ", 6},        // katakana
		{"한국어", 6},        // hangul
		{"ＡＢ", 4},         // full-width forms
		{"👍🏽", 4},         // an emoji and its skin tone
		{"a\u200bb", 2},   // a zero-width space
		{"→ … ✓", 5},      // narrow symbols
		{"\U00020000", 2}, // CJK extension B
	} {
		assert.Equal(t, tc.want, width(tc.s), "%q", tc.s)
	}
}

func TestCutColumns(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 4, "abc…"},
		{"日本語日本語", 12, "日本語日本語"},
		{"日本語日本語", 7, "日本語…"},
		{"日本語日本語", 6, "日本…"}, // a wide rune does not fit in the last column
		{"abc", 0, ""},
	} {
		got := cut(tc.s, tc.n)
		assert.Equal(t, tc.want, got, "cut(%q, %d)", tc.s, tc.n)
		assert.LessOrEqual(t, width(got), tc.n)
	}
	assert.Equal(t, "main_re…iewer12", cutMiddle("main_reviewer_reviewer12", 15))
	assert.Equal(t, "日本…本語", cutMiddle("日本語日本語日本語", 9))
	assert.LessOrEqual(t, width(cutMiddle("日本語日本語日本語", 10)), 10)
	assert.Equal(t, "日本  ", pad("日本", 6))
	assert.Equal(t, "  日本", padLeft("日本", 6))
}

func TestWrapText(t *testing.T) {
	for _, tc := range []struct {
		name, lead, indent, text string
		n                        int
		want                     []string
	}{
		{"fits", "- ", "  ", "a short line", 20, []string{"- a short line"}},
		{"words", "- ", "  ", "one two three four five", 12, []string{"- one two", "  three four", "  five"}},
		{"empty", "x ", "  ", "", 10, []string{"x "}},
		{"long word", "- ", "  ", "see /a/very/long/path/to/somewhere", 12,
			[]string{"- see /a/ver", "  y/long/pat", "  h/to/somew", "  here"}},
		{"cjk", "", "", strings.Repeat("日本語", 4), 10, []string{"日本語日本", "語日本語日", "本語"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := wrapText(tc.lead, tc.indent, tc.text, tc.n)
			assert.Equal(t, tc.want, got)
			for _, l := range got {
				assert.LessOrEqual(t, width(l), tc.n, "%q", l)
			}
		})
	}
}
