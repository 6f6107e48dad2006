package claude

import (
	"io"
	"sync"
	"syscall"
	"time"
)

// killer stops a child's whole process group: SIGTERM, then SIGKILL after
// the grace period. As a last resort, a grace period after SIGKILL, it closes
// our ends of the child's output pipes, so that a descendant that left the
// group while holding them cannot keep Run waiting for EOF forever.
type killer struct {
	grace time.Duration
	pipes []io.Closer // our ends of the child's stdout and stderr

	mu      sync.Mutex
	pid     int         // the group, once terminate was called
	killed  bool        // terminate was called
	done    bool        // finish was called
	hard    *time.Timer // SIGKILL
	release *time.Timer // close the pipes
}

// terminate sends SIGTERM to the group led by pid and arms SIGKILL. It is
// what cmd.Cancel does.
func (k *killer) terminate(pid int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed || k.done {
		return
	}
	k.pid, k.killed = pid, true
	_ = syscall.Kill(-k.pid, syscall.SIGTERM)
	k.hard = time.AfterFunc(k.grace, k.kill)
}

func (k *killer) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	_ = syscall.Kill(-k.pid, syscall.SIGKILL)
	k.release = time.AfterFunc(k.grace, k.closePipes)
}

func (k *killer) closePipes() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	for _, p := range k.pipes {
		_ = p.Close()
	}
}

// finish disarms the timers once the child has been waited for and reports
// whether the group was killed. If it was, stragglers that ignored SIGTERM
// get SIGKILL now rather than outliving the step.
func (k *killer) finish() (killed bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.done = true
	for _, t := range []*time.Timer{k.hard, k.release} {
		if t != nil {
			t.Stop()
		}
	}
	if k.killed {
		_ = syscall.Kill(-k.pid, syscall.SIGKILL)
	}
	return k.killed
}

// watchdog calls fire when kick has not been called for d, except while it
// is held: a held watchdog does not run, and kicks leave it stopped. A nil
// watchdog (no timeout) does nothing.
type watchdog struct {
	mu   sync.Mutex
	d    time.Duration
	t    *time.Timer
	held bool
}

func newWatchdog(d time.Duration, fire func()) *watchdog {
	if d <= 0 {
		return nil
	}
	return &watchdog{d: d, t: time.AfterFunc(d, fire)}
}

func (w *watchdog) kick() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.held {
		w.t.Reset(w.d)
	}
}

// hold stops the watchdog while on is true; releasing it restarts the full
// period.
func (w *watchdog) hold(on bool) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if on == w.held {
		return
	}
	w.held = on
	if on {
		w.t.Stop()
	} else {
		w.t.Reset(w.d)
	}
}

func (w *watchdog) stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Stop()
}
