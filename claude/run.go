package claude

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"time"

	"raymond/internal/proc"
)

// ErrNotFound means the claude executable could not be found. The error Run
// returns wraps it with a message saying how to install Claude Code.
var ErrNotFound = errors.New("claude executable not found")

// Handler receives what happens while a step runs. Any func may be nil.
//
// OnLine and OnEvent are called in stream order from the goroutine that
// called Run; OnStderr is called from another goroutine, concurrently with
// them. Callbacks should be quick: the child blocks while they run.
type Handler struct {
	// OnEvent receives each event decoded from stdout.
	OnEvent func(Event)
	// OnLine receives every stdout line as read, without its newline, for
	// the transcript. raw is only valid during the call. Lines longer than
	// 64 MiB are counted but not passed on.
	OnLine func(raw []byte)
	// OnStderr receives every stderr line, without its newline.
	OnStderr func(line string)
}

// The cancellation causes of the timeouts.
var (
	errIdle = errors.New("idle timeout")
	errStep = errors.New("step timeout")
	errKey  = errors.New("api key refused")
	errLoop = errors.New("tool call loop")
)

// Run runs one step and waits for the process to end.
//
// The process runs in its own process group with the prompt on a stdin
// pipe (never on its command line, which every local user can read) and
// without CLAUDECODE in its
// environment. When ctx is canceled, r.IdleTimeout passes without a line on
// stdout or stderr while no tool call is outstanding, the step has run for
// r.StepTimeout, or the CLI starts to retry an authentication failure of an
// API key no retry can change (an AuthError at once, rather than after its
// ten retries over minutes), the whole group gets SIGTERM, then SIGKILL
// after r.KillGrace.
//
// Every way the process ends is a Result whose Outcome says how. Run returns
// an error only when the process cannot be started: an invalid request, an
// executable that is not there (wrapping [ErrNotFound]), a missing working
// directory.
func Run(ctx context.Context, r Request, h Handler) (*Result, error) {
	if err := r.validate(); err != nil {
		return nil, fmt.Errorf("run claude: %w", err)
	}
	path, err := lookExecutable(r.Executable)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return canceledBeforeStart(), nil
	}

	argv, stdin := Args(r)
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	res := &Result{Started: time.Now()}
	p, err := startProcess(runCtx, path, argv, r)
	if err != nil {
		if ctx.Err() != nil {
			return canceledBeforeStart(), nil
		}
		return nil, err
	}
	cmd := p.cmd
	idle := proc.NewWatchdog(r.IdleTimeout, func() { cancel(errIdle) })
	if r.StepTimeout > 0 {
		wall := time.AfterFunc(r.StepTimeout, func() { cancel(errStep) })
		defer wall.Stop()
	}

	// The prompt goes in while the output comes out. A child that exits
	// without reading it makes the write fail with EPIPE (Go ignores SIGPIPE
	// for pipes other than its own stdout and stderr): the stream says how
	// the step ended, so the write error itself is of no interest.
	var writer sync.WaitGroup
	writer.Go(func() {
		_, _ = io.WriteString(p.stdin, stdin)
		_ = p.stdin.Close()
	})

	tailBuf := proc.NewTail(stderrTail)
	var readers sync.WaitGroup
	readers.Go(func() { readStderr(p.stderr, tailBuf, idle, h.OnStderr) })

	st := newStream(res, h.OnEvent)
	st.loops = loops{warn: r.LoopWarn, stop: r.LoopStop}
	lr := newLineReader(p.stdout, maxLine)
	for {
		line, truncated, err := lr.next()
		if err != nil {
			break
		}
		res.Lines++
		if truncated && res.LongLine == nil {
			res.LongLine = &LongLine{Bytes: lr.size, Type: lineType(line)}
		}
		if !truncated {
			if h.OnLine != nil {
				h.OnLine(line)
			}
			st.decode(line)
			if res.KeyRefused && context.Cause(runCtx) == nil {
				// The CLI would retry a key that cannot change for minutes.
				cancel(errKey)
			}
			if res.Loop != nil && context.Cause(runCtx) == nil {
				// The same call loop_stop times: stopped as a step
				// timeout stops a step.
				cancel(errLoop)
			}
		}
		// While a tool runs, claude is silent and the idle timer waits.
		idle.Hold(st.busy())
		idle.Kick()
	}
	lr.release()
	readers.Wait()
	waitErr := cmd.Wait()
	idle.Stop()
	killed := p.kill.Finish()
	writer.Wait()
	if killed {
		// The group is gone; what left it goes too.
		_, _ = Sweep(r.Marker, p.kill.Grace())
	}

	res.Ended = time.Now()
	res.Stderr = tailBuf.String()
	res.ExitCode, res.Signal = proc.ExitStatus(cmd.ProcessState)
	if cmd.ProcessState == nil && waitErr != nil {
		res.Stderr += fmt.Sprintf("\nraymond: wait for claude: %v", waitErr)
	}
	e := ending{tool: st.running()}
	switch cause := context.Cause(runCtx); {
	case !killed, errors.Is(cause, errKey):
	case errors.Is(cause, errIdle):
		e.timedOut, e.limit = true, r.IdleTimeout
		res.LimitFrom = r.IdleTimeoutFrom
	case errors.Is(cause, errStep):
		e.stepTimedOut, e.limit = true, r.StepTimeout
		res.LimitFrom = r.StepTimeoutFrom
	case errors.Is(cause, errLoop):
		e.looped = true
	default:
		e.canceled = true
	}
	res.settle(e, st.resetAt)
	return res, nil
}

// typeField finds a stream-json line's type near its start.
var typeField = regexp.MustCompile(`^\s*\{\s*"type"\s*:\s*"([a-z_]{1,40})"`)

// lineType returns the "type" of a stream-json line from its start, "" when
// the start does not say.
func lineType(line []byte) string {
	if m := typeField.FindSubmatch(line[:min(len(line), 200)]); m != nil {
		return string(m[1])
	}
	return ""
}

// canceledBeforeStart is the result of a step whose context was done before
// its process started.
func canceledBeforeStart() *Result {
	now := time.Now()
	return &Result{Outcome: Canceled, NotStarted: true, ExitCode: -1, Started: now, Ended: now}
}

// process is a started claude with our ends of its pipes.
type process struct {
	cmd    *exec.Cmd
	stdout io.ReadCloser
	stderr io.ReadCloser
	stdin  io.WriteCloser // carries the prompt
	kill   *proc.Killer
}

// startProcess starts path in its own process group. Canceling ctx sends
// SIGTERM to the group, SIGKILL after r.KillGrace.
func startProcess(ctx context.Context, path string, argv []string, r Request) (*process, error) {
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Dir = r.Cwd
	cmd.Env = r.childEnv()
	cmd.SysProcAttr = proc.Attr()
	p := &process{cmd: cmd}
	var err error
	if p.stdout, err = cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("run claude: %w", err)
	}
	if p.stderr, err = cmd.StderrPipe(); err != nil {
		return nil, fmt.Errorf("run claude: %w", err)
	}
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("run claude: %w", err)
	}
	p.kill = proc.NewKiller(r.KillGrace, p.stdout, p.stderr)
	// exec calls Cancel only after a successful Start, so Process is set.
	cmd.Cancel = func() error {
		p.kill.Terminate(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = p.kill.Grace()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	return p, nil
}

// SignalName names sig as people write it ("SIGTERM"); a signal without a
// common name is given by number and Go's description.
func SignalName(sig syscall.Signal) string { return proc.SignalName(sig) }

// lookExecutable resolves the claude executable to an absolute path (a
// relative one would otherwise be taken relative to the child's Cwd).
func lookExecutable(name string) (string, error) {
	if name == "" {
		name = "claude"
	}
	path, err := exec.LookPath(name)
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %q: install Claude Code with `npm install -g @anthropic-ai/claude-code`, "+
			"or name the executable with --claude PATH or RAYMOND_CLAUDE", ErrNotFound, name)
	case err != nil:
		return "", fmt.Errorf("claude executable %q: %w", name, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("claude executable %q: %w", name, err)
	}
	return abs, nil
}

// readStderr passes stderr on line by line and keeps its tail.
func readStderr(r io.Reader, t *proc.Tail, idle *proc.Watchdog, on func(string)) {
	lr := newLineReader(r, maxStderrLine)
	defer lr.release()
	for {
		line, _, err := lr.next()
		if err != nil {
			return
		}
		idle.Kick()
		_, _ = t.Write(line)
		_, _ = t.Write([]byte{'\n'})
		if on != nil {
			on(string(line))
		}
	}
}
