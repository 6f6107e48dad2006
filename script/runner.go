package script

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"raymond/internal/proc"
	"raymond/step"
)

// ErrNoBash means bash could not be found; script states cannot run.
var ErrNoBash = errors.New("bash not found")

// Limits on what is kept of a script's output.
const (
	// MaxStdout is the most of its stdout a script may print: it is kept
	// whole, to be read for the transition. A script that prints more is
	// stopped and fails.
	MaxStdout = 64 << 20
	// stderrTail is how much of the end of stderr a Result keeps.
	stderrTail = 4 << 10
)

// Runner runs script steps as `bash PATH`. It implements step.Runner,
// step.Named, step.Describer and step.Sweeper, and is safe for concurrent
// use. The zero Runner is ready: it finds bash on PATH at its first step.
type Runner struct {
	// Env is the environment scripts start from; nil means raymond's own.
	Env []string
	// KillGrace is the time between SIGTERM and SIGKILL when a script's
	// process group is stopped; 0 means proc.DefaultKillGrace.
	KillGrace time.Duration
	// Bash is the bash to run, a name looked up on PATH or a path; ""
	// means "bash".
	Bash string

	once    sync.Once
	bash    string // the absolute path of bash, once looked up
	bashErr error
}

var (
	_ step.Runner    = (*Runner)(nil)
	_ step.Named     = (*Runner)(nil)
	_ step.Describer = (*Runner)(nil)
	_ step.Sweeper   = (*Runner)(nil)
)

// Name implements step.Named.
func (*Runner) Name() string { return "script" }

// Sweep implements step.Sweeper: it ends what a script step left running
// that still carries its marker (see proc.Sweep).
func (r *Runner) Sweep(marker string) ([]int, error) {
	return proc.Sweep(marker, r.grace())
}

func (r *Runner) grace() time.Duration {
	if r.KillGrace > 0 {
		return r.KillGrace
	}
	return proc.DefaultKillGrace
}

// Argv implements step.Describer: `bash PATH`. For a script without a path
// of its own (from a zip or YAML scope) PATH is the state's name, as the
// copy the step runs has a new name at each run.
func (r *Runner) Argv(req step.Request) []string {
	bash, err := r.lookBash()
	if err != nil {
		bash = "bash"
	}
	path := req.Step.State
	if req.Script != nil && req.Script.Path != "" {
		path = req.Script.Path
	}
	return []string{bash, path}
}

// lookBash finds bash once for the runner's life.
func (r *Runner) lookBash() (string, error) {
	r.once.Do(func() {
		name := r.Bash
		if name == "" {
			name = "bash"
		}
		path, err := exec.LookPath(name)
		switch {
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
			r.bashErr = fmt.Errorf("%w (looked for %q): script states (.sh) run with bash; install bash, or put it on PATH, then resume the run", ErrNoBash, name)
			return
		case err != nil:
			r.bashErr = fmt.Errorf("bash %q: %w", name, err)
			return
		}
		if r.bash, err = filepath.Abs(path); err != nil {
			r.bashErr = fmt.Errorf("bash %q: %w", name, err)
		}
	})
	return r.bash, r.bashErr
}

// scriptFile returns the path of the script req runs: its own, or a copy of
// its body in a new private folder, which cleanup removes.
func scriptFile(req step.Request) (path string, cleanup func(), err error) {
	if req.Script == nil {
		return "", nil, fmt.Errorf("step %s of %s is not a script step", req.Name(), req.Step.State)
	}
	if req.Script.Path != "" {
		return req.Script.Path, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "raymond-script-")
	if err != nil {
		return "", nil, fmt.Errorf("copy %s to run it: %w", req.Step.State, err)
	}
	cleanup = func() { _ = os.RemoveAll(dir) }
	name := filepath.Base(req.Step.State)
	if name == "." || name == string(filepath.Separator) {
		name = "script.sh"
	}
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, req.Script.Body, 0o600); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("copy %s to run it: %w", req.Step.State, err)
	}
	return path, cleanup, nil
}

// spiller returns a function that writes a value to a new file, 0600, in a
// private folder made on first use, and one that removes that folder.
func spiller() (spill func(value string) (string, error), remove func()) {
	var dir string
	spill = func(value string) (string, error) {
		if dir == "" {
			d, err := os.MkdirTemp("", "raymond-input-")
			if err != nil {
				return "", err
			}
			dir = d
		}
		f, err := os.CreateTemp(dir, "input-*")
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(value)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return f.Name(), err
	}
	remove = func() {
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	return spill, remove
}
