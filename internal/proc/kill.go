package proc

import (
	"io"
	"sync"
	"syscall"
	"time"
)

// DefaultKillGrace is the time between SIGTERM and SIGKILL when a step's
// process group is stopped, unless a runner is told otherwise.
const DefaultKillGrace = 5 * time.Second

// Killer stops a child's whole process group: SIGTERM, then SIGKILL after
// the grace period. As a last resort, a grace period after SIGKILL, it closes
// our ends of the child's output pipes, so that a descendant that left the
// group while holding them cannot keep the runner waiting for EOF forever.
type Killer struct {
	grace time.Duration
	pipes []io.Closer // our ends of the child's stdout and stderr

	mu      sync.Mutex
	pid     int         // the group, once Terminate was called
	killed  bool        // Terminate was called
	done    bool        // Finish was called
	hard    *time.Timer // SIGKILL
	release *time.Timer // close the pipes
}

// NewKiller returns the killer of a child whose output pipes (our ends) are
// pipes; a grace of 0 or less means DefaultKillGrace.
func NewKiller(grace time.Duration, pipes ...io.Closer) *Killer {
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	return &Killer{grace: grace, pipes: pipes}
}

// Grace is the killer's grace period.
func (k *Killer) Grace() time.Duration { return k.grace }

// Terminate sends SIGTERM to the group led by pid and arms SIGKILL. It is
// what cmd.Cancel does.
func (k *Killer) Terminate(pid int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.killed || k.done {
		return
	}
	k.pid, k.killed = pid, true
	_ = syscall.Kill(-k.pid, syscall.SIGTERM)
	k.hard = time.AfterFunc(k.grace, k.kill)
}

func (k *Killer) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	_ = syscall.Kill(-k.pid, syscall.SIGKILL)
	k.release = time.AfterFunc(k.grace, k.closePipes)
}

func (k *Killer) closePipes() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.done {
		return
	}
	for _, p := range k.pipes {
		_ = p.Close()
	}
}

// Finish disarms the timers once the child has been waited for and reports
// whether the group was killed. If it was, stragglers that ignored SIGTERM
// get SIGKILL now rather than outliving the step.
func (k *Killer) Finish() (killed bool) {
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

// Watchdog calls fire when Kick has not been called for d, except while it
// is held: a held watchdog does not run, and kicks leave it stopped. A nil
// Watchdog (no timeout) does nothing.
type Watchdog struct {
	mu   sync.Mutex
	d    time.Duration
	t    *time.Timer
	held bool
}

// NewWatchdog starts a watchdog that calls fire after d without a kick; a d
// of 0 or less gives the nil Watchdog, which never fires.
func NewWatchdog(d time.Duration, fire func()) *Watchdog {
	if d <= 0 {
		return nil
	}
	return &Watchdog{d: d, t: time.AfterFunc(d, fire)}
}

// Kick restarts the period, unless the watchdog is held.
func (w *Watchdog) Kick() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.held {
		w.t.Reset(w.d)
	}
}

// Hold stops the watchdog while on is true; releasing it restarts the full
// period.
func (w *Watchdog) Hold(on bool) {
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

// Stop stops the watchdog for good.
func (w *Watchdog) Stop() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.t.Stop()
}

// NewWatchdogFrom is [NewWatchdog] for a period that began at last rather
// than now: it fires at last+d, at once when that has passed.
func NewWatchdogFrom(d time.Duration, last time.Time, fire func()) *Watchdog {
	w := NewWatchdog(d, fire)
	if w != nil {
		w.t.Reset(max(d-time.Since(last), 0))
	}
	return w
}
