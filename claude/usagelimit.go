package claude

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// usageLimitPattern matches the usage-limit messages of every CLI version
// seen so far:
//
//	Claude AI usage limit reached|1763700000
//	5-hour limit reached ∙ resets 3pm
//	You've hit your session limit · resets 3pm (America/Chicago)
//
// The limit word varies (limit, usage limit, session limit, weekly limit,
// Opus limit). A per-minute rate limit ("exceeded your per-minute rate
// limit") is not a usage limit: it is a transient API error.
var usageLimitPattern = regexp.MustCompile(`(?i)usage limit reached|\blimit reached\b.*\bresets\b|\bhit your [\w' -]*\blimit\b`)

// IsUsageLimit reports whether text is a usage-limit message.
func IsUsageLimit(text string) bool {
	return usageLimitPattern.MatchString(text)
}

var (
	// epochPattern: "usage limit reached|1763700000".
	epochPattern = regexp.MustCompile(`(?i)limit reached\s*\|\s*(\d{9,13})\b`)
	// resetPattern: "resets 3pm", "resets 12:50am", "resets Nov 28, 3pm",
	// "resets 15:00", each optionally followed by "(Zone/Name)".
	resetPattern = regexp.MustCompile(`(?i)\bresets?\s+(?:at\s+)?` +
		`(?:([a-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(?:at\s+)?)?` +
		`(\d{1,2})(?::(\d{2}))?\s*([ap])?\.?m?\.?(?:\s*\(([^)]+)\))?`)
)

// resetSkew is how far in the past an announced reset may lie and still be
// taken as meant: the message was written an instant before "3pm" and read
// an instant after. Without it, "resets 3pm" read at 3:00:01 would mean
// tomorrow.
const resetSkew = 10 * time.Minute

// ParseResetTime extracts from a usage-limit message the time the limit
// resets. It understands an epoch after "|" (old CLIs), a clock time
// ("resets 3pm", "resets 12:50am", "resets 15:00") and a date with a time
// ("resets Nov 28, 3pm"), each optionally followed by an IANA zone in
// parentheses. A time without a date is its next occurrence after now in
// that zone; a date without a year is its next occurrence. An unknown or
// missing zone falls back to now's location. ok is false when text holds no
// reset time.
func ParseResetTime(text string, now time.Time) (time.Time, bool) {
	if m := epochPattern.FindStringSubmatch(text); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			return EpochTime(v)
		}
	}
	m := resetPattern.FindStringSubmatch(text)
	if m == nil {
		return time.Time{}, false
	}
	monthName, dayText, hourText, minuteText, ampm, zone := m[1], m[2], m[3], m[4], strings.ToLower(m[5]), m[6]

	hour, _ := strconv.Atoi(hourText)
	minute := 0
	if minuteText != "" {
		minute, _ = strconv.Atoi(minuteText)
	}
	switch {
	case minute > 59:
		return time.Time{}, false
	case ampm == "":
		if hour > 23 {
			return time.Time{}, false
		}
	case hour < 1 || hour > 12:
		return time.Time{}, false
	default:
		hour %= 12
		if ampm == "p" {
			hour += 12
		}
	}

	loc := now.Location()
	if zone = strings.TrimSpace(zone); zone != "" {
		if l, err := time.LoadLocation(zone); err == nil {
			loc = l
		}
	}
	local := now.In(loc)
	earliest := now.Add(-resetSkew)

	if monthName == "" {
		t := time.Date(local.Year(), local.Month(), local.Day(), hour, minute, 0, 0, loc)
		if t.Before(earliest) {
			t = time.Date(local.Year(), local.Month(), local.Day()+1, hour, minute, 0, 0, loc)
		}
		return t, true
	}
	month, ok := parseMonth(monthName)
	if !ok {
		return time.Time{}, false
	}
	day, _ := strconv.Atoi(dayText)
	for year := local.Year(); year <= local.Year()+4; year++ {
		t := time.Date(year, month, day, hour, minute, 0, 0, loc)
		if t.Day() != day { // Feb 30, or Feb 29 in a common year
			continue
		}
		if !t.Before(earliest) {
			return t, true
		}
	}
	return time.Time{}, false
}

var monthNames = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

// parseMonth accepts an English month name or its abbreviation ("Sept" too).
func parseMonth(s string) (time.Month, bool) {
	s = strings.ToLower(s)
	for i, abbr := range monthNames {
		full := strings.ToLower(time.Month(i + 1).String())
		if s == full || s == abbr || (len(s) >= 3 && strings.HasPrefix(full, s)) {
			return time.Month(i + 1), true
		}
	}
	return 0, false
}
