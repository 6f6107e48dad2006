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

// TestWatchdogHold: a held watchdog does not fire however long it waits,
// kicks leave it stopped, and releasing it starts a full period.
func TestWatchdogHold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fired atomic.Int32
		w := newWatchdog(time.Second, func() { fired.Add(1) })
		time.Sleep(900 * time.Millisecond)
		w.hold(true)
		time.Sleep(time.Hour)
		w.kick()
		time.Sleep(time.Hour)
		synctest.Wait()
		eq(t, "fired while held", fired.Load(), int32(0))
		w.hold(false)
		time.Sleep(999 * time.Millisecond)
		synctest.Wait()
		eq(t, "fired before a full period after the release", fired.Load(), int32(0))
		time.Sleep(time.Millisecond)
		synctest.Wait()
		eq(t, "fired a period after the release", fired.Load(), int32(1))
		w.stop()
	})
}

// TestStreamOpenTools: a tool call is outstanding from its tool_use to its
// tool_result, matched by id; the latest outstanding one is named.
func TestStreamOpenTools(t *testing.T) {
	st := newStream(&Result{}, nil)
	feed := func(line string) { st.decode([]byte(line)) }
	feed(`{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]}}`)
	eq(t, "busy after a tool_use", st.busy(), true)
	eq(t, "running", st.running(), "Bash (npm test)")
	feed(`{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.go"}}]}}`)
	eq(t, "running, two open", st.running(), "Read (a.go)")
	feed(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"x"}]}}`)
	eq(t, "running after the second answered", st.running(), "Bash (npm test)")
	feed(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nope","content":"x"}]}}`)
	eq(t, "busy after an unknown tool_result", st.busy(), true)
	feed(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`)
	eq(t, "busy after every result", st.busy(), false)
	eq(t, "running after every result", st.running(), "")
}
