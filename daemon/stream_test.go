package daemon

import (
	"runtime"
	"testing"
)

func TestSubscriptionsAreSmall(t *testing.T) {
	// A daemon followed by a hundred pages holds a hundred subscriptions:
	// each must cost kilobytes, not the megabytes of a buffer of whole
	// events.
	s := newStream("r1", "")
	const n = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	subs := make([]*Subscription, n)
	for i := range subs {
		sub, err := s.subscribe("")
		if err != nil {
			t.Fatal(err)
		}
		subs[i] = sub
	}
	runtime.ReadMemStats(&after)
	per := (after.TotalAlloc - before.TotalAlloc) / n
	if per > 64<<10 {
		t.Errorf("a subscription allocates %d KiB; want at most 64 KiB", per>>10)
	}
	for _, sub := range subs {
		sub.Close()
	}
}
