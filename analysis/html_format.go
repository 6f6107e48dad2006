package analysis

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The formatting of numbers in the HTML report. The names carry an html
// prefix so that they cannot clash with the text report's helpers.

// htmlMoney formats a cost in US dollars: four decimals below $1, where
// single steps live, two from $1.
func htmlMoney(usd float64) string {
	if usd >= 1 || usd <= -1 {
		return "$" + htmlThousands(fmt.Sprintf("%.2f", usd))
	}
	return fmt.Sprintf("$%.4f", usd)
}

// htmlDuration formats milliseconds for a person: "304 ms", "12.3 s",
// "4m12s", "2h05m".
func htmlDuration(ms int64) string {
	switch {
	case ms < 0:
		return "-" + htmlDuration(-ms)
	case ms < 1000:
		return fmt.Sprintf("%d ms", ms)
	case ms < 10_000:
		return fmt.Sprintf("%.2f s", float64(ms)/1000)
	case ms < 60_000:
		return fmt.Sprintf("%.1f s", float64(ms)/1000)
	case ms < 3_600_000:
		s := (ms + 500) / 1000
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	default:
		m := (ms + 30_000) / 60_000
		return fmt.Sprintf("%dh%02dm", m/60, m%60)
	}
}

// htmlCount formats an integer with thousands separators.
func htmlCount[T int | int64](n T) string {
	return htmlThousands(strconv.FormatInt(int64(n), 10))
}

// htmlThousands puts commas into the integer part of a decimal number.
func htmlThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		return sign + b.String() + "." + frac
	}
	return sign + b.String()
}

// htmlWhen formats an instant in UTC to the second, or "—" for none.
func htmlWhen(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// htmlClock formats an instant in UTC as a time of day with
// milliseconds, for tooltips where the date is known.
func htmlClock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("15:04:05.000")
}

// htmlOffset formats a time-axis label: an offset from the run's start.
func htmlOffset(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
	case d < time.Hour:
		m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
		if s == 0 {
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%02ds", m, s)
	default:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%02dm", h, m)
	}
}

// htmlTokens formats a token count compactly: 950, 12.3k, 4.56M.
func htmlTokens(n int64) string {
	switch {
	case n < 10_000:
		return htmlCount(n)
	case n < 1_000_000:
		return strconv.FormatFloat(float64(n)/1e3, 'f', 1, 64) + "k"
	default:
		return strconv.FormatFloat(float64(n)/1e6, 'f', 2, 64) + "M"
	}
}

// htmlPlural is "1 step", "3 steps".
func htmlPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return htmlCount(n) + " " + many
}

// htmlClip shortens s to at most n runes, ending in "…" when cut.
func htmlClip(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
