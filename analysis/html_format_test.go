package analysis

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestHTMLFormats(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{htmlMoney(0), "$0.0000"},
		{htmlMoney(0.0042), "$0.0042"},
		{htmlMoney(0.99995), "$1.0000"}, // rounds, below the switch
		{htmlMoney(1.2406), "$1.24"},
		{htmlMoney(12345.678), "$12,345.68"},
		{htmlDuration(0), "0 ms"},
		{htmlDuration(304), "304 ms"},
		{htmlDuration(5900), "5.90 s"},
		{htmlDuration(27_800), "27.8 s"},
		{htmlDuration(60_000), "1m00s"},
		{htmlDuration(560_000), "9m20s"},
		{htmlDuration(3_599_600), "60m00s"},
		{htmlDuration(3_600_000), "1h00m"},
		{htmlDuration(7_530_000), "2h06m"},
		{htmlDuration(-1500), "-1.50 s"},
		{htmlOffset(0), "0"},
		{htmlOffset(200 * time.Millisecond), "200ms"},
		{htmlOffset(1500 * time.Millisecond), "1.5s"},
		{htmlOffset(90 * time.Second), "1m30s"},
		{htmlOffset(2 * time.Minute), "2m"},
		{htmlOffset(90 * time.Minute), "1h30m"},
		{htmlOffset(3 * time.Hour), "3h"},
		{htmlTokens(950), "950"},
		{htmlTokens(9999), "9,999"},
		{htmlTokens(12_345), "12.3k"},
		{htmlTokens(4_560_000), "4.56M"},
		{htmlCount(1234567), "1,234,567"},
		{htmlCount(-1000), "-1,000"},
		{htmlPlural(1, "step", "steps"), "1 step"},
		{htmlPlural(1000, "step", "steps"), "1,000 steps"},
		{htmlClip("main_worker", 20), "main_worker"},
		{htmlClip("ünïcödé-names", 5), "ünïc…"},
		{htmlClip("x", 0), ""},
		{htmlWhen(time.Time{}), "—"},
		{htmlWhen(htmlAt(1.5)), "2026-11-21 10:00:01 UTC"},
		{htmlClock(htmlAt(1.5)), "10:00:01.500"},
	} {
		assert.Equal(t, tc.want, tc.got)
	}
}
