package report

import (
	"fmt"
	"strings"
	"time"
)

// Money writes a cost in USD as every report does: $0.0123.
func Money(usd float64) string { return fmt.Sprintf("$%.4f", usd) }

// Duration writes a duration briefly: 0s, 420µs, 1.9ms, 850ms, 2.41s,
// 12.4s, 1m05s, 2h10m, 3d4h. Sums are made on full durations, and only the
// result is rounded, here.
func Duration(d time.Duration) string {
	const ms = time.Millisecond
	switch {
	case d < time.Microsecond/2:
		return "0s"
	case d < ms-time.Microsecond/2:
		return fmt.Sprintf("%dµs", d.Round(time.Microsecond)/time.Microsecond)
	case d < 10*ms-50*time.Microsecond:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(d)/float64(ms)), ".0") + "ms"
	case d < time.Second-ms/2:
		return fmt.Sprintf("%dms", d.Round(ms)/ms)
	case d < 10*time.Second-5*ms:
		return fmt.Sprintf("%.2fs", d.Seconds())
	case d < time.Minute-50*ms:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%dh", int(d.Hours())/24, int(d.Hours())%24)
}

// left rounds a remaining duration for people: to the minute when more
// than a minute is left, else to the second.
func left(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Minute)
	}
	return d.Round(time.Second)
}

// cut shortens s to n runes with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// count writes n things: "1 step", "3 steps".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
