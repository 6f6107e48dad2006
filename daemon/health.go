package daemon

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"syscall"
)

// health is whether the daemon can write what it must: a run's state, its
// own files. A failed write marks it unhealthy until a write succeeds again
// (a drive that ends saved, or a probe of Health).
type health struct {
	mu  sync.Mutex
	err error // the last failed write, nil when healthy
}

// failed records a write that failed: what the daemon was doing, and why.
func (h *health) failed(what string, err error) {
	h.mu.Lock()
	h.err = fmt.Errorf("%s: %w", what, err)
	h.mu.Unlock()
}

// drive takes in how the drive of run id ended: one that saved its end
// shows the disk takes writes; one that could not save shows it does not.
func (h *health) drive(id string, err error) {
	switch {
	case err == nil:
		h.mu.Lock()
		h.err = nil
		h.mu.Unlock()
	case writeFailure(err):
		h.failed("save run "+id, err)
	}
}

// writeFailure says whether err is the file system refusing a write: a full
// disk or quota, a read-only or failing one.
func writeFailure(err error) bool {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return false
	}
	for _, e := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EROFS, syscall.EIO} {
		if errors.Is(pe.Err, e) {
			return true
		}
	}
	return false
}

// Health returns why the daemon cannot write its state, or nil. While it
// cannot, each call tries a write in the state folder, and the
// daemon is healthy again once that works: space came back.
func (d *Daemon) Health() error {
	h := &d.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err == nil {
		return nil
	}
	if err := d.store.Probe(); err != nil {
		return h.err
	}
	h.err = nil
	return nil
}

// Alive says whether the daemon's loops answer, until ctx ends: the watch
// loop of the state folder and its reader, the gate, the table of runs. A
// watchdog pings systemd only while it does, so a hang gets the daemon
// restarted rather than serving stale lists for good.
func (d *Daemon) Alive(ctx context.Context) error {
	if err := d.index.alive(ctx); err != nil {
		return fmt.Errorf("the state folder's watcher does not answer: %w", err)
	}
	// These block, rather than fail, when a lock is stuck: the watchdog
	// then stops pinging, which is what it is for.
	_ = d.gate.Status()
	_ = d.Active()
	return nil
}
