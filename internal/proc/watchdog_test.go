package proc

import (
	"reflect"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fired atomic.Int32
		w := NewWatchdog(time.Second, func() { fired.Add(1) })
		for range 5 {
			time.Sleep(900 * time.Millisecond)
			w.Kick()
		}
		synctest.Wait()
		eq(t, "fired while kicked", fired.Load(), int32(0))
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		eq(t, "fired before the timeout", fired.Load(), int32(0))
		time.Sleep(time.Millisecond)
		synctest.Wait()
		eq(t, "fired after the timeout", fired.Load(), int32(1))
		w.Stop()
	})
	var none *Watchdog = NewWatchdog(0, func() { t.Error("a zero timeout fired") })
	none.Kick()
	none.Stop()
}

// TestWatchdogHold: a held watchdog does not fire however long it waits,
// kicks leave it stopped, and releasing it starts a full period.
func TestWatchdogHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fired atomic.Int32
		w := NewWatchdog(time.Second, func() { fired.Add(1) })
		time.Sleep(900 * time.Millisecond)
		w.Hold(true)
		time.Sleep(time.Hour)
		w.Kick()
		time.Sleep(time.Hour)
		synctest.Wait()
		eq(t, "fired while held", fired.Load(), int32(0))
		w.Hold(false)
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		eq(t, "fired before a full period after the release", fired.Load(), int32(0))
		time.Sleep(time.Millisecond)
		synctest.Wait()
		eq(t, "fired a period after the release", fired.Load(), int32(1))
		w.Stop()
	})
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}
