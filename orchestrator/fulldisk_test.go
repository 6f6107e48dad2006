package orchestrator

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
	"raymond/step"
)

// A disk that fills while a step runs: the save after it fails, the run
// ends paused saying which disk and what to do (the drive does not hang on
// the Done its last save would have carried), and it goes on once space
// returns.
func TestDriveFullDiskPausesTheRun(t *testing.T) {
	w := newWorld(t, map[string]string{"START.md": "Go.", "END.md": "End."})
	w.create(t, "r1", state.Options{}, 0)
	var full atomic.Bool
	t.Cleanup(state.SimulateFullDisk(full.Load))
	r := replies(t, `
replies:
  START: ["<goto>END</goto>", "<goto>END</goto>"]
  END: ["<result>ok</result>"]
`)
	d := w.driver(stepHook{Runner: r, before: func(req step.Request) {
		if req.Step.State == "START.md" {
			full.Store(true)
		}
	}})
	type result struct {
		run *state.Run
		err error
	}
	ended := make(chan result, 1)
	go func() {
		run, err := d.Drive(context.Background(), "r1", nil)
		ended <- result{run, err}
	}()
	var got result
	select {
	case got = <-ended:
	case <-time.After(time.Minute): // a hang, not a speed: the drive never ends without the fix
		t.Fatal("the drive did not end after its saves failed")
	}
	require.ErrorIs(t, got.err, syscall.ENOSPC)
	assert.Contains(t, got.err.Error(), "no space left on device at "+w.store.Dir+"; free space, then raymond resume r1")
	assert.Equal(t, state.StatusPaused, got.run.Status)
	assert.Contains(t, w.out.String(), "free space, then raymond resume r1")

	full.Store(false)
	d.Runner = r
	run, err := d.Drive(context.Background(), "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, state.StatusCompleted, run.Status)
}
