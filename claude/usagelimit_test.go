package claude

import (
	"testing"
	"time"
)

func TestIsUsageLimit(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Claude AI usage limit reached|1763700000", true},
		{"5-hour limit reached ∙ resets 3pm", true},
		{"You've hit your session limit · resets 3pm (America/Chicago)", true},
		{"You've hit your usage limit · resets 12:50am", true},
		{"You've hit your weekly limit · resets Nov 28, 3pm · progress saved", true},
		{"You've hit your Opus limit · resets 9pm", true},
		{"You’ve hit your limit · resets 3pm", true},
		{"YOU'VE HIT YOUR SESSION LIMIT", true},
		{"Opus limit reached ∙ resets 11am", true},
		{"API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit", false},
		{"Reached maximum number of turns (2)", false},
		{"Reached maximum budget ($0.001)", false},
		{"API Error: 500 Internal server error", false},
		{"Credit balance is too low", false},
		{"", false},
	}
	for _, tc := range tests {
		eq(t, "IsUsageLimit("+tc.text+")", IsUsageLimit(tc.text), tc.want)
	}
}

func TestParseResetTime(t *testing.T) {
	chicago, err := time.LoadLocation("America/Chicago")
	must(t, err)
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	must(t, err)
	// 13:00 in UTC; 07:00 in Chicago (CST, UTC−6); 22:00 in Tokyo.
	now := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	late := time.Date(2026, 11, 21, 23, 30, 0, 0, time.UTC)
	newYearsEve := time.Date(2026, 12, 31, 20, 0, 0, 0, time.UTC)

	tests := []struct {
		name string
		text string
		now  time.Time
		want time.Time // zero: ok must be false
	}{
		{"epoch", "Claude AI usage limit reached|1763700000", now, time.Unix(1763700000, 0)},
		{"epoch in milliseconds", "Claude AI usage limit reached|1763700000000", now, time.Unix(1763700000, 0)},
		{"clock time later today", "5-hour limit reached ∙ resets 3pm", now, time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)},
		{"clock time already past: tomorrow", "5-hour limit reached ∙ resets 9am", now, time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)},
		{"minutes", "You've hit your usage limit · resets 12:50am", now, time.Date(2026, 11, 22, 0, 50, 0, 0, time.UTC)},
		{"rollover past midnight", "You've hit your limit · resets 1am", late, time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)},
		{"noon", "You've hit your limit · resets 12pm", now, time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)},
		{"just past, within the skew: today", "You've hit your limit · resets 12:55pm", now, time.Date(2026, 11, 21, 12, 55, 0, 0, time.UTC)},
		{"24-hour clock", "You've hit your limit · resets 15:30", now, time.Date(2026, 11, 21, 15, 30, 0, 0, time.UTC)},
		{"named zone", "You've hit your session limit · resets 3pm (America/Chicago)", now, time.Date(2026, 11, 21, 15, 0, 0, 0, chicago)},
		{"named zone, already past there", "You've hit your session limit · resets 6am (America/Chicago)", now, time.Date(2026, 11, 22, 6, 0, 0, 0, chicago)},
		{"named zone, date differs from UTC", "You've hit your session limit · resets 1am (Asia/Tokyo)", now, time.Date(2026, 11, 22, 1, 0, 0, 0, tokyo)},
		{"unknown zone falls back to now's", "You've hit your limit · resets 3pm (Mars/Olympus)", now, time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)},
		{"progress saved", "You've hit your session limit · resets 3pm (America/Chicago) · progress saved", now, time.Date(2026, 11, 21, 15, 0, 0, 0, chicago)},
		{"date", "You've hit your weekly limit · resets Nov 28, 3pm", now, time.Date(2026, 11, 28, 15, 0, 0, 0, time.UTC)},
		{"date with zone", "You've hit your weekly limit · resets Nov 28, 3pm (America/Chicago) · progress saved", now, time.Date(2026, 11, 28, 15, 0, 0, 0, chicago)},
		{"date with minutes, full month", "You've hit your Opus limit · resets December 2, 10:15am", now, time.Date(2026, 12, 2, 10, 15, 0, 0, time.UTC)},
		{"date next year", "You've hit your weekly limit · resets Jan 3, 9am", newYearsEve, time.Date(2027, 1, 3, 9, 0, 0, 0, time.UTC)},
		{"case-insensitive", "YOU'VE HIT YOUR SESSION LIMIT · RESETS 3PM", now, time.Date(2026, 11, 21, 15, 0, 0, 0, time.UTC)},
		{"no time", "You've hit your weekly limit", now, time.Time{}},
		{"garbage", "resets whenever", now, time.Time{}},
		{"hour out of range", "limit reached ∙ resets 13pm", now, time.Time{}},
		{"24-hour out of range", "limit reached ∙ resets 24:00", now, time.Time{}},
		{"minutes out of range", "limit reached ∙ resets 3:75pm", now, time.Time{}},
		{"impossible date", "limit reached ∙ resets Feb 30, 3pm", now, time.Time{}},
		{"unknown month", "limit reached ∙ resets Foo 3, 3pm", now, time.Time{}},
		{"empty", "", now, time.Time{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseResetTime(tc.text, tc.now)
			if tc.want.IsZero() {
				if ok {
					t.Errorf("ParseResetTime(%q) = %v, want no time", tc.text, got)
				}
				return
			}
			if !ok || !got.Equal(tc.want) {
				t.Errorf("ParseResetTime(%q) = %v, %v; want %v", tc.text, got, ok, tc.want)
			}
		})
	}
}

func FuzzParseResetTime(f *testing.F) {
	for _, s := range []string{
		"Claude AI usage limit reached|1763700000",
		"You've hit your session limit · resets 3pm (America/Chicago)",
		"You've hit your weekly limit · resets Nov 28, 3pm · progress saved",
		"resets 12:50am",
	} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text string) {
		got, ok := ParseResetTime(text, now)
		// An epoch is absolute; every other form is at most resetSkew ago.
		if ok && !epochPattern.MatchString(text) && got.Before(now.Add(-resetSkew)) {
			t.Errorf("ParseResetTime(%q) = %v, before now", text, got)
		}
	})
}

// TestParseResetTimeDST: a clock time is a wall-clock time in its zone, so
// the next occurrence is found on the calendar, not by adding 24 hours, and
// a message read in another zone names the same instant.
func TestParseResetTimeDST(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	must(t, err)
	london, err := time.LoadLocation("Europe/London")
	must(t, err)
	tests := []struct {
		name string
		text string
		now  time.Time
		want time.Time
	}{
		// 2026-03-08: New York springs forward at 2am; that day has 23 hours.
		{"tomorrow across spring forward", "You've hit your limit · resets 9pm (America/New_York)",
			time.Date(2026, 3, 7, 22, 0, 0, 0, newYork), time.Date(2026, 3, 8, 21, 0, 0, 0, newYork)},
		// 2026-11-01: New York falls back at 2am; that day has 25 hours.
		{"tomorrow across fall back", "You've hit your limit · resets 9pm (America/New_York)",
			time.Date(2026, 10, 31, 22, 0, 0, 0, newYork), time.Date(2026, 11, 1, 21, 0, 0, 0, newYork)},
		{"later today after fall back", "You've hit your limit · resets 11pm (America/New_York)",
			time.Date(2026, 11, 1, 0, 30, 0, 0, newYork), time.Date(2026, 11, 1, 23, 0, 0, 0, newYork)},
		// Read in UTC while London is on summer time (UTC+1): "resets 12:30am"
		// in London at 23:10 UTC is 20 minutes away, not tomorrow.
		{"zone ahead of now's, date already tomorrow there", "You've hit your limit · resets 12:30am (Europe/London)",
			time.Date(2026, 7, 1, 23, 10, 0, 0, time.UTC), time.Date(2026, 7, 2, 0, 30, 0, 0, london)},
		{"date across the change", "You've hit your weekly limit · resets Mar 30, 9am (Europe/London)",
			time.Date(2026, 3, 25, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 30, 8, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ParseResetTime(tc.text, tc.now)
			if !ok || !got.Equal(tc.want) {
				t.Errorf("ParseResetTime(%q) at %v = %v, %v; want %v", tc.text, tc.now, got, ok, tc.want)
			}
		})
	}
}
