package wftest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"raymond/state"
	"raymond/step"
)

// A case with interrupt_after: N is run in two drives. The first is
// stopped as kill -9 would stop it the moment the run starts its step
// N+1, that is once N steps have ended and the run has saved what they
// did and that step N+1 is under way. A process cannot kill itself and
// go on, so the crash is made in three moves:
//
//  1. crashRunner holds step N+1 before it runs (it gives no answer and
//     takes no reply; a script state does not run) and every step after
//     it, which freezes the run: nothing more happens to its state;
//  2. the run's state folder and transcript are copied as they are, the
//     driver is stopped (which writes "paused" and closes the steps), and
//     the copy is put back: what is on disk is then what the dead process
//     would have left, a run whose state says running with step N+1 in
//     flight and a transcript that stops after that step's start;
//  3. a second drive resumes the run as raymond resume does: the same
//     orchestrator code finds the interrupted step and runs it again.
//
// Files outside the state folder and transcript (the working folder, task
// folders) are not copied back: a crash leaves them as they were.

// crashRunner runs steps with next until the run starts its step after+1,
// and from then on holds every step until its context ends.
type crashRunner struct {
	next  step.Runner
	after int
	// crashed is closed when the run starts its step after+1.
	crashed chan struct{}
	mu      sync.Mutex
	started int
}

func newCrashRunner(next step.Runner, after int) *crashRunner {
	return &crashRunner{next: next, after: after, crashed: make(chan struct{})}
}

// Run implements step.Runner.
func (c *crashRunner) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	c.mu.Lock()
	c.started++
	if c.started == c.after+1 {
		close(c.crashed)
	}
	c.mu.Unlock()
	select {
	case <-c.crashed:
		<-ctx.Done()
		return step.NotStarted(step.Canceled, ctx.Err())
	default:
	}
	return c.next.Run(ctx, req, h)
}

// Name implements step.Named: the transcript names the runner underneath.
func (c *crashRunner) Name() string { return step.RunnerName(c.next) }

// snapshot is a copy of some folders' files.
type snapshot struct {
	dirs  []string
	files map[string][]byte
}

// takeSnapshot copies every file under dirs; a folder that does not exist
// is recorded as absent.
func takeSnapshot(dirs ...string) (*snapshot, error) {
	s := &snapshot{dirs: dirs, files: make(map[string][]byte)}
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil
			case err != nil:
				return err
			case d.IsDir() || strings.HasSuffix(path, ".lock"):
				// A lock belongs to a live process; a dead one holds none.
				return nil
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a temp file renamed away meanwhile
			}
			s.files[path] = data
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

// restore makes the folders hold exactly the files of the snapshot again
// (lock files aside, which are kept).
func (s *snapshot) restore() error {
	for _, dir := range s.dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return nil
			case err != nil:
				return err
			case d.IsDir() || strings.HasSuffix(path, ".lock"):
				return nil
			}
			if _, kept := s.files[path]; !kept {
				return os.Remove(path)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for path, data := range s.files {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}

// crashThenResume drives run id with the first driver until the crash
// runner crashes it, or to its end when it never does (then the case fails
// saying so); restores what the crash left on disk, and resumes it with
// the second driver. dirs are the folders a crash leaves as they were at
// that moment (the state folder, the run's transcript).
func crashThenResume(ctx context.Context, first, resume func(context.Context) (*state.Run, error), cr *crashRunner, after int, dirs ...string) (*state.Run, error) {
	driveCtx, stop := context.WithCancel(ctx)
	defer stop()
	type ended struct {
		r   *state.Run
		err error
	}
	done := make(chan ended, 1)
	var wg sync.WaitGroup
	wg.Go(func() {
		r, err := first(driveCtx)
		done <- ended{r, err}
	})
	defer wg.Wait()
	var snap *snapshot
	select {
	case e := <-done:
		if e.err != nil {
			return e.r, fmt.Errorf("run: %w", e.err)
		}
		if ctx.Err() != nil {
			return e.r, nil
		}
		return e.r, fmt.Errorf("interrupt_after: %d: the run ended (%s) before it started step %d, so nothing was interrupted; give a smaller number",
			after, e.r.Status, after+1)
	case <-cr.crashed:
		var err error
		snap, err = takeSnapshot(dirs...)
		stop()
		e := <-done
		if err != nil {
			return nil, fmt.Errorf("interrupt_after: copy the run's files at the crash: %w", err)
		}
		if e.err != nil && !errors.Is(e.err, context.Canceled) {
			return e.r, fmt.Errorf("run: %w", e.err)
		}
	}
	if err := snap.restore(); err != nil {
		return nil, fmt.Errorf("interrupt_after: put back the run's files as the crash left them: %w", err)
	}
	r, err := resumeWhenFree(ctx, resume)
	if err != nil {
		return r, fmt.Errorf("resume after the crash: %w", err)
	}
	return r, nil
}

// resumeWhenFree calls resume until the run's lock is free, for up to
// about two seconds. The first driver let its lock go, but a child process
// that another case's script forked while the lock file was open keeps a
// copy of the lock's open file description until it execs, which can be
// an instant later: the lock is an OFD lock, which goes with the last copy.
func resumeWhenFree(ctx context.Context, resume func(context.Context) (*state.Run, error)) (*state.Run, error) {
	for wait := time.Millisecond; ; wait *= 2 {
		r, err := resume(ctx)
		if _, held := errors.AsType[*state.LockedError](err); !held || wait > time.Second {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, err
		case <-time.After(wait):
		}
	}
}
