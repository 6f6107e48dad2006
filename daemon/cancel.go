package daemon

import (
	"errors"
	"fmt"

	"raymond/project"
	"raymond/state"
)

// Cancelled is the error a cancelled run and its unfinished agents are
// left with.
const Cancelled = "cancelled from the daemon"

// Cancel stops run id for good: the steps in flight are killed (their
// cost so far is kept), and the run is saved failed, each agent that had
// not ended failed with the error "cancelled from the daemon", its
// pending asks withdrawn. Nothing resumes it by itself: not the daemon's
// recovery, not a restart. A run that has ended, or that another process
// drives, is refused.
func (d *Daemon) Cancel(id string) error {
	d.mu.Lock()
	rd, driving := d.runs[id]
	if driving {
		rd.cancelled = true
	}
	d.mu.Unlock()
	if driving {
		// The drive ends paused; it marks the run cancelled as it goes.
		rd.pause()
		rd.kill()
		return nil
	}
	r, err := d.Detail(id)
	if err != nil {
		return err
	}
	switch {
	case r.DrivenBy != nil:
		return errorf(ErrConflict, "run %s is driven by another process (pid %d), not by this daemon: stop it there", id, *r.DrivenBy)
	case project.Ended(r.Status):
		return errorf(ErrConflict, "run %s has ended (status %s): there is nothing to cancel", id, r.Status)
	}
	return d.markCancelled(id)
}

// markCancelled saves run id failed as Cancel says, unless it ended
// meanwhile (a run that completed as it was cancelled stays completed).
func (d *Daemon) markCancelled(id string) error {
	lock, err := d.store.Lock(id)
	var le *state.LockedError
	if errors.As(err, &le) {
		return errorf(ErrConflict, "%s", le.Error())
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	r, err := d.store.Read(id)
	if err != nil {
		return err
	}
	if r.Status.Terminal() {
		return nil
	}
	for i := range r.Agents {
		a := &r.Agents[i]
		if a.Status.Ended() {
			continue
		}
		a.Status, a.LastError = state.AgentFailed, Cancelled
		if a.Ask.Pending() {
			a.Ask = nil
		}
	}
	r.Status, r.Error, r.Wait = state.StatusFailed, Cancelled, nil
	if err := d.store.Write(r); err != nil {
		return fmt.Errorf("cancel run %s: %w", id, err)
	}
	return nil
}
