package claude

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"raymond/internal/proc"
)

// adoptPoll is how often Adopt looks whether the process it follows, which
// is not its child and cannot be waited for, still runs.
const adoptPoll = 20 * time.Millisecond

// Adoption is the process of a step that a driver that died started.
type Adoption struct {
	// ID identifies the process; its zero value (the driver died before
	// it could save it) means the process has ended or was found by its
	// marker (see [Found]).
	ID proc.Identity
	// Started is when the step started.
	Started time.Time
}

// Found looks for the process of a step whose driver died: by id when it
// was saved, else by the step's marker (the session leader that carries
// it). ok is false when the step's own process no longer runs: a pid now
// used by another process (another start time, no marker) is not it.
func Found(id proc.Identity, marker string) (proc.Identity, bool) {
	if id.PID != 0 {
		return id, proc.Running(id, marker)
	}
	return proc.Leader(marker)
}

// Adopt follows to its end the step of r (its output in r.Spool, its
// process a.ID, which may have ended already) that a driver that died
// started: the same decoding, events, outcome and limits as [Run], the idle
// timeout counting from the last time the process wrote, the step timeout
// from a.Started. Canceling ctx, or a limit, stops its process group, once
// it is checked to be still the step's own. The exit status of a process
// that is not our child is not known: the result line decides the step, as
// it always does.
func Adopt(ctx context.Context, r Request, a Adoption, h Handler) *Result {
	res := &Result{Started: a.Started, Adopted: true, ExitCode: -1}
	if res.Started.IsZero() {
		res.Started = time.Now()
	}
	spool, err := os.Open(r.Spool)
	if err != nil {
		res.Ended = time.Now()
		res.Stderr = fmt.Sprintf("raymond: the output of the adopted step: %v", err)
		res.settle(ending{}, time.Time{})
		return res
	}
	defer spool.Close()
	last := res.Started
	if fi, err := spool.Stat(); err == nil {
		last = fi.ModTime()
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	kill := proc.NewKiller(r.KillGrace)
	exited := make(chan struct{})
	var watch sync.WaitGroup
	watch.Go(func() {
		defer close(exited)
		tick := time.NewTicker(adoptPoll)
		defer tick.Stop()
		done := runCtx.Done()
		for a.ID.PID != 0 && proc.Running(a.ID, r.Marker) {
			select {
			case <-done:
				done = nil
				if proc.Running(a.ID, r.Marker) {
					kill.Terminate(a.ID.PID)
				}
			case <-tick.C:
			}
		}
	})
	f := follow(runCtx, cancel, r, h, res, spool, exited, res.Started, last)
	watch.Wait()
	killed := kill.Finish()
	if killed {
		_, _ = Sweep(r.Marker, kill.Grace())
	}
	res.Ended = time.Now()
	f.settle(runCtx, r, res, killed)
	return res
}
