package analysis

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// money writes a cost in USD as the progress lines do.
func money(usd float64) string { return fmt.Sprintf("$%.4f", usd) }

// dur writes a duration in milliseconds briefly: 0s, 850ms, 2.4s, 1m05s,
// 2h10m, 3d4h.
func dur(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case ms <= 0:
		return "0s"
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 10_000:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case ms < 60_000:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// offset writes t as a time into the run: +0s, +1.25s, +3m10s.
func offset(r *Run, t time.Time) string {
	if t.IsZero() {
		return "?"
	}
	return "+" + dur(t.Sub(r.Started).Milliseconds())
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

// width is the number of columns s takes (one per rune).
func width(s string) int { return utf8.RuneCountInString(s) }

// cut shortens s to at most n columns, ending it with "…" when cut.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if width(s) <= n {
		return s
	}
	i, k := 0, 0
	for j := range s {
		if k == n-1 {
			i = j
			break
		}
		k++
	}
	return s[:i] + "…"
}

// cutMiddle shortens s to at most n columns by taking out its middle,
// which keeps both the parent's prefix and the fork's number of an agent
// id in sight: main_revi…ewer12.
func cutMiddle(s string, n int) string {
	w := width(s)
	if w <= n || n < 5 {
		return cut(s, n)
	}
	runes := []rune(s)
	head := (n - 1) / 2
	tail := n - 1 - head
	return string(runes[:head]) + "…" + string(runes[w-tail:])
}

// pad fills s with spaces to n columns (left-aligned).
func pad(s string, n int) string {
	if w := width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// firstLine returns the first non-blank line of s, trimmed, and how many
// lines follow it.
func firstLine(s string) (line string, more int) {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[0]), len(lines) - 1
}
