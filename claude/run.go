package claude

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
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
// OnLine, OnEvent and OnStderr are called in stream order from the
// goroutine that called Run. Callbacks should be quick: the step's output is
// read while they run.
type Handler struct {
	// OnEvent receives each event decoded from stdout.
	OnEvent func(Event)
	// OnLine receives every stdout line as read, without its newline. raw
	// is only valid during the call. Lines longer than 64 MiB are counted
	// but not passed on.
	OnLine func(raw []byte)
	// OnStderr receives every stderr line, without its newline.
	OnStderr func(line string)
	// OnStart receives what identifies the process once it has started.
	OnStart func(proc.Identity)
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
// The process runs detached, in a session and process group of its own,
// with the prompt on stdin (a memory file: never on its command line, which
// every local user can read), without CLAUDECODE in its environment, and
// its stdout and stderr going to r.Spool, which Run reads as it grows: a
// line that is not a JSON object is stderr. When ctx is canceled,
// r.IdleTimeout passes without a line while no tool call is outstanding,
// the step has run for r.StepTimeout, or the CLI starts to retry an
// authentication failure of an API key no retry can change (an AuthError
// at once, rather than after its ten retries over minutes), the whole group
// gets SIGTERM, then SIGKILL after r.KillGrace. Should raymond die, the
// process goes on; [Adopt] follows it to its end.
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
	p, err := startProcess(runCtx, path, argv, stdin, r)
	if err != nil {
		if ctx.Err() != nil {
			return canceledBeforeStart(), nil
		}
		return nil, err
	}
	defer p.close()
	if h.OnStart != nil {
		h.OnStart(p.id)
	}
	// The end of the process ends the reading, once Wait has reaped it.
	// The end is watched through a pidfd in the runtime's poller, as a
	// pipe's end would be, so that Wait is called only once it returns at
	// once: a thread blocked in wait for each step in flight costs the
	// steps' own CPU.
	var waitErr error
	var waiter sync.WaitGroup
	watch, unwatch, _ := proc.WatchExit(p.id.PID)
	exited := make(chan struct{})
	waiter.Go(func() {
		if watch != nil {
			<-watch
		}
		waitErr = p.cmd.Wait()
		close(exited)
	})
	f := follow(runCtx, cancel, r, h, res, p.spool, exited, res.Started, res.Started)
	waiter.Wait()
	if unwatch != nil {
		unwatch()
	}
	killed := p.kill.Finish()
	if killed {
		// The group is gone; what left it goes too.
		_, _ = Sweep(r.Marker, p.kill.Grace())
	}
	res.Ended = time.Now()
	res.ExitCode, res.Signal = proc.ExitStatus(p.cmd.ProcessState)
	if p.cmd.ProcessState == nil && waitErr != nil {
		res.Stderr += fmt.Sprintf("\nraymond: wait for claude: %v", waitErr)
	}
	f.settle(runCtx, r, res, killed)
	return res, nil
}

// following is a step's output being read to its end.
type following struct {
	st *stream
}

// follow reads the output of a step's process from spool, from its start,
// until exited is closed and what the process wrote is read: stream lines
// are decoded into res and passed on, other lines are stderr. The idle
// timeout counts from lastOutput, the step timeout from started (both the
// step's start, unless the step is adopted).
func follow(runCtx context.Context, cancel context.CancelCauseFunc, r Request, h Handler, res *Result,
	spool io.ReaderAt, exited <-chan struct{}, started, lastOutput time.Time) following {
	idle := proc.NewWatchdogFrom(r.IdleTimeout, lastOutput, func() { cancel(errIdle) })
	if r.StepTimeout > 0 {
		wall := time.AfterFunc(r.StepTimeout-time.Since(started), func() { cancel(errStep) })
		defer wall.Stop()
	}
	tailBuf := proc.NewTail(stderrTail)
	st := newStream(res, h.OnEvent)
	st.loops = loops{warn: r.LoopWarn, stop: r.LoopStop}
	lr := newLineReader(proc.NewFollower(spool, 0, exited), maxLine)
	for {
		line, truncated, err := lr.next()
		if err != nil {
			break
		}
		if !truncated && !streamLine(line) {
			if len(bytes.TrimSpace(line)) > 0 {
				idle.Kick()
				_, _ = tailBuf.Write(line)
				_, _ = tailBuf.Write([]byte{'\n'})
				if h.OnStderr != nil {
					h.OnStderr(string(line))
				}
			}
			continue
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
	idle.Stop()
	res.Stderr = tailBuf.String()
	return following{st: st}
}

// streamLine reports whether line is one of the stream's: a JSON object.
// Claude's stderr goes to the same file as its stdout; its lines are not.
func streamLine(line []byte) bool {
	line = bytes.TrimLeft(line, " \t\r")
	return len(line) > 0 && line[0] == '{'
}

// settle says how the step ended, from why it was stopped, if it was.
func (f following) settle(runCtx context.Context, r Request, res *Result, killed bool) {
	e := ending{tool: f.st.running()}
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
	res.settle(e, f.st.resetAt)
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

// process is a started claude with the file its output goes to.
type process struct {
	cmd   *exec.Cmd
	spool *os.File // its stdout and stderr; read at offsets of our own
	temp  bool     // spool is a temporary file, removed after the step
	id    proc.Identity
	kill  *proc.Killer
}

// close closes our copy of the spool, removing a temporary one.
func (p *process) close() {
	_ = p.spool.Close()
	if p.temp {
		_ = os.Remove(p.spool.Name())
	}
}

// startProcess starts path detached (see [Run]), its output going to
// r.Spool. Canceling ctx sends SIGTERM to the group, SIGKILL after
// r.KillGrace.
func startProcess(ctx context.Context, path string, argv []string, stdin string, r Request) (*process, error) {
	cmd := exec.CommandContext(ctx, path, argv...)
	cmd.Dir = r.Cwd
	cmd.Env = r.childEnv()
	cmd.SysProcAttr = proc.DetachedAttr()
	p := &process{cmd: cmd}
	var err error
	if r.Spool == "" {
		p.spool, err = os.CreateTemp("", "raymond-claude-*.jsonl")
		p.temp = true
	} else {
		p.spool, err = proc.OpenSpool(r.Spool)
	}
	if err != nil {
		return nil, fmt.Errorf("run claude: output file: %w", err)
	}
	in, err := proc.MemFile("prompt", []byte(stdin))
	if err != nil {
		p.close()
		return nil, fmt.Errorf("run claude: %w", err)
	}
	defer in.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, p.spool, p.spool
	p.kill = proc.NewKiller(r.KillGrace)
	// exec calls Cancel only after a successful Start, so Process is set.
	cmd.Cancel = func() error {
		p.kill.Terminate(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = p.kill.Grace()
	if err := cmd.Start(); err != nil {
		p.close()
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	p.id.PID = cmd.Process.Pid
	// Read while the process runs: it cannot have been reaped yet, since
	// only Wait reaps it.
	p.id.Start, _ = proc.StartTime(p.id.PID)
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
