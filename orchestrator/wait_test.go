package orchestrator

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/machine"
	"raymond/state"
)

// TestWaitsOnTheRealClock runs a usage-limit wait and a retry back-off on the
// real clock inside a synctest bubble: the hours pass in no time, and the
// test checks how long raymond waited, as its user would live it.
func TestWaitsOnTheRealClock(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	r := replies(t, `
replies:
  START: [{outcome: usage_limit, reset: 2h}, {outcome: crash}, "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	synctest.Test(t, func(t *testing.T) {
		d := w.driver(r)
		d.Clock = RealClock{}
		start := time.Now()
		run, err := d.Drive(context.Background(), "r1", nil)
		require.NoError(t, err)
		took := time.Since(start)
		assert.Equal(t, state.StatusCompleted, run.Status)
		// The reset (2 h, rounded up to the second), the 30 s margin, then
		// the crash's first back-off of 5 s.
		assert.GreaterOrEqual(t, took, 2*time.Hour+30*time.Second+machine.RetryDelay(1))
		assert.Less(t, took, 2*time.Hour+30*time.Second+machine.RetryDelay(1)+2*time.Second)
		out := w.out.String()
		assert.Contains(t, out, "usage limit reached")
		// A countdown: every 30 minutes while more than 2 hours are left,
		// then every 10, then every minute.
		assert.GreaterOrEqual(t, strings.Count(out, "waiting for the usage limit to reset"), 10)
		assert.Contains(t, out, "retry 1 of 3 in 5s")
	})
}
