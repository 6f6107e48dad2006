package claude

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

func TestWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fired atomic.Int32
		w := newWatchdog(time.Second, func() { fired.Add(1) })
		for range 5 {
			time.Sleep(900 * time.Millisecond)
			w.kick()
		}
		synctest.Wait()
		eq(t, "fired while kicked", fired.Load(), int32(0))
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		eq(t, "fired before the timeout", fired.Load(), int32(0))
		time.Sleep(time.Millisecond)
		synctest.Wait()
		eq(t, "fired after the timeout", fired.Load(), int32(1))
		w.stop()
	})
	var none *watchdog = newWatchdog(0, func() { t.Error("a zero timeout fired") })
	none.kick()
	none.stop()
}
