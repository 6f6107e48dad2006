package parsing

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseTimeout reads how long an ask waits (§15): a number of days ("7d"),
// a Go duration ("90m", "48h", "1h30m") or a bare number of seconds
// ("3600"). Whitespace around it is ignored. The duration must be longer
// than zero.
func ParseTimeout(s string) (time.Duration, error) {
	v := strings.TrimSpace(s)
	d, ok := parseUnit(v, "d", 24*time.Hour)
	if !ok {
		d, ok = parseUnit(v, "", time.Second)
	}
	if !ok {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, fmt.Errorf("%q is not a duration; write one like 90m, 48h or 7d, or a number of seconds", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q must be longer than zero", s)
	}
	return d, nil
}

// parseUnit reads v as a plain decimal number followed by suffix, counted
// in unit, and reports whether it is one. A number too large for a
// time.Duration is not one either.
func parseUnit(v, suffix string, unit time.Duration) (time.Duration, bool) {
	num, ok := strings.CutSuffix(v, suffix)
	if !ok || num == "" || strings.Trim(num, "0123456789.") != "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, false
	}
	d := f * float64(unit)
	if d >= math.MaxInt64 {
		return 0, false
	}
	return time.Duration(d), true
}
