package analysis

import (
	"fmt"
	"raymond/report"
	"strings"
	"time"
)

// money writes a cost in USD as the progress lines do.
func money(usd float64) string { return report.Money(usd) }

// dur writes a duration briefly (report.Duration).
func dur(d time.Duration) string { return report.Duration(d) }

// millis rounds a duration to whole milliseconds, for the JSON.
func millis(d time.Duration) int64 {
	return int64(d.Round(time.Millisecond) / time.Millisecond)
}

// offset writes t as a time into the run: +0s, +1.25s, +3m10s.
func offset(r *Run, t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return "+" + dur(t.Sub(r.Started))
}

// count writes n things: "1 step", "3 steps".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// compact writes a count briefly: 950, 12.3k, 4.1M.
func compact(n int64) string {
	switch {
	case n < 10_000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1fG", float64(n)/1e9)
}

// grouped writes n with thousands separators: 1,234,567.
func grouped(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// width is the number of screen columns s takes: two for a wide rune
// (CJK, full-width forms, most emoji), none for a combining mark, one for
// the others.
func width(s string) int {
	n := 0
	for _, c := range s {
		n += runeWidth(c)
	}
	return n
}

// cut shortens s to at most n columns, ending it with "…" when cut.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if width(s) <= n {
		return s
	}
	k := 0
	for i, c := range s {
		if k+runeWidth(c) > n-1 {
			return s[:i] + "…"
		}
		k += runeWidth(c)
	}
	return s
}

// cutMiddle shortens s to at most n columns by taking out its middle,
// which keeps both the parent's prefix and the fork's number of an agent
// id in sight: main_revi…ewer12.
func cutMiddle(s string, n int) string {
	if width(s) <= n || n < 5 {
		return cut(s, n)
	}
	runes := []rune(s)
	head, tail := (n-1)/2, n-1-(n-1)/2
	i, w := 0, 0
	for ; i < len(runes) && w+runeWidth(runes[i]) <= head; i++ {
		w += runeWidth(runes[i])
	}
	j, w := len(runes), 0
	for ; j > i && w+runeWidth(runes[j-1]) <= tail; j-- {
		w += runeWidth(runes[j-1])
	}
	return string(runes[:i]) + "…" + string(runes[j:])
}

// pad fills s with spaces to n columns (left-aligned).
func pad(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// padLeft fills s with spaces to n columns (right-aligned).
func padLeft(s string, n int) string {
	if w := width(s); w < n {
		return strings.Repeat(" ", n-w) + s
	}
	return s
}

// firstLine returns the first non-blank line of s, trimmed, and how many
// lines follow it.
func firstLine(s string) (line string, more int) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[0]), len(lines) - 1
}
