package script

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"raymond/internal/proc"
	"raymond/parsing"
	"raymond/step"
)

// The causes a script is stopped for, besides its step's context.
var (
	errIdle    = errors.New("idle timeout")
	errTooMuch = errors.New("stdout over the limit")
)

// Run implements step.Runner: it runs the script of req (req.Script) with
// bash and waits for it and everything that holds its output to end.
//
// The script's stdin is the null device, its working directory
// req.Step.Cwd, its environment raymond's own without CLAUDECODE plus the
// step's variables (see the package doc). When ctx is canceled, the idle
// timeout passes without output on either stream, or stdout goes over
// [MaxStdout], the whole process group gets SIGTERM, then SIGKILL after the
// grace period, and what left the group but carries the step's marker is
// swept.
func (r *Runner) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	bash, err := r.lookBash()
	if err != nil {
		return step.NotStarted(step.Unusable, err)
	}
	if ctx.Err() != nil {
		return canceledBeforeStart()
	}
	path, cleanup, err := scriptFile(req)
	if err != nil {
		return step.StartFailed(err)
	}
	defer cleanup()

	spill, removeSpill := spiller()
	defer removeSpill()
	env, added, warnings, err := environ(step.WithEnv(r.baseEnv(), req.Env()), req, spill)
	if err != nil {
		return step.StartFailed(err)
	}
	timeout, fromState := req.IdleTimeout()
	from := "--timeout"
	if fromState {
		from = "the state's timeout"
	}
	res := step.Result{
		Runner: r.Name(), Argv: []string{bash, path}, Env: added,
		Timeout: timeout, TimeoutFrom: from, Warnings: warnings,
	}

	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	cmd := exec.CommandContext(runCtx, bash, path)
	cmd.Dir = req.Step.Cwd
	cmd.Env = env
	cmd.SysProcAttr = proc.Attr()
	// Pipes of our own rather than cmd's: Wait then waits for bash alone,
	// and the streams can be read on until bash has exited and a little
	// after, but not for as long as a background process it started holds
	// them open (a server started with "&").
	stdout, outW, err := os.Pipe()
	if err != nil {
		return notStarted(res, err)
	}
	stderr, errW, err := os.Pipe()
	if err != nil {
		stdout.Close()
		outW.Close()
		return notStarted(res, err)
	}
	defer stdout.Close()
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	kill := proc.NewKiller(r.KillGrace, stdout, stderr)
	// exec calls Cancel only after a successful Start, so Process is set.
	cmd.Cancel = func() error {
		kill.Terminate(cmd.Process.Pid)
		return nil
	}
	res.Started = time.Now()
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		if ctx.Err() != nil {
			return canceledBeforeStart()
		}
		return notStarted(res, fmt.Errorf("start %s: %w", req.Step.State, err))
	}

	idle := proc.NewWatchdog(timeout, func() { cancel(errIdle) })
	out := &output{h: h, idle: idle, stopTooMuch: func() { cancel(errTooMuch) }}
	tail := proc.NewTail(stderrTail)
	var waitErr error
	exited := make(chan struct{})
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	var readers sync.WaitGroup
	readers.Go(func() { out.read(stderr, true, tail) })
	readers.Go(func() { out.read(stdout, false, nil) })
	read := make(chan struct{})
	go func() {
		readers.Wait()
		close(read)
	}()
	held := false
	select {
	case <-read:
		<-exited
	case <-exited:
		idle.Stop()
		select {
		case <-read:
		case <-time.After(drainAfterExit):
			// What bash wrote before it exited has been read by now;
			// a process it left running holds the pipes.
			held = true
			_ = stdout.SetReadDeadline(time.Now())
			_ = stderr.SetReadDeadline(time.Now())
			<-read
		}
	}
	idle.Stop()
	killed := kill.Finish()
	if killed && req.RunID != "" {
		// The group is gone; what left it goes too.
		_, _ = proc.Sweep(req.Marker(), kill.Grace())
	}
	if held && !killed {
		res.Warnings = append(res.Warnings, fmt.Sprintf(
			"%s exited, but a process it started in the background still holds its output; raymond stopped reading it %s after the script ended. "+
				"Send a background process's output elsewhere (cmd >/dev/null 2>&1 &)", req.Step.State, step.Duration(drainAfterExit)))
	}

	res.Ended = time.Now()
	res.Stderr = tail.String()
	res.ExitCode, res.Signal = proc.ExitStatus(cmd.ProcessState)
	if cmd.ProcessState == nil && waitErr != nil {
		res.Stderr += fmt.Sprintf("\nraymond: wait for %s: %v", req.Step.State, waitErr)
	}
	var cause error
	if killed {
		cause = context.Cause(runCtx)
	}
	settle(&res, req.Step.State, out, cause)
	return res
}

// settle says how the step ended, from how the process ended and, when it
// was stopped, why (cause; nil when it ended by itself).
func settle(res *step.Result, name string, out *output, cause error) {
	switch {
	case errors.Is(cause, errIdle):
		res.Outcome, res.Class = step.Failed, "timeout"
		res.Reason = fmt.Sprintf("no output for %s (from %s)", step.Duration(res.Timeout), res.TimeoutFrom)
	case out.tooMuch:
		res.Outcome, res.Class = step.Failed, "output too large"
		res.Reason = fmt.Sprintf("%s printed more than %d MiB on stdout and was stopped; have it write large output to a file", name, MaxStdout>>20)
	case cause != nil:
		res.Outcome, res.Class = step.Canceled, "canceled"
		res.Reason = name + " was stopped: the run was interrupted"
	case res.Signal != "":
		res.Outcome, res.Class = step.Failed, "signal"
		res.Reason = fmt.Sprintf("%s was killed by signal %s", name, strings.TrimPrefix(res.Signal, "SIG")) + stderrLines(res.Stderr)
	case res.ExitCode != 0:
		res.Outcome, res.Class = step.Failed, "exit status"
		res.Reason = fmt.Sprintf("%s exited with status %d", name, res.ExitCode) + stderrLines(res.Stderr)
	default:
		res.Outcome, res.Class = step.Succeeded, "success"
		res.Text = string(out.stdout)
	}
}

// drainAfterExit is how long a script's streams are read on after bash
// exited, for what it wrote last; then they are let go, though a process
// it started in the background may still hold them.
const drainAfterExit = time.Second

// reasonLines is how many of the last lines of stderr a failure's reason
// shows, and maxReasonLine how long each may be.
const (
	reasonLines   = 5
	maxReasonLine = 200
)

// stderrLines returns the last non-blank lines of stderr, each on a line of
// its own after a newline, indented; "" when stderr has none.
func stderrLines(stderr string) string {
	var lines []string
	for line := range strings.Lines(stderr) {
		line = strings.TrimRight(line, " \t\r\n")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(line) > maxReasonLine {
			line = strings.ToValidUTF8(line[:maxReasonLine], "") + "…"
		}
		lines = append(lines, line)
	}
	lines = lines[max(0, len(lines)-reasonLines):]
	if len(lines) == 0 {
		return ""
	}
	return "\n  " + strings.Join(lines, "\n  ")
}

// notStarted is the result of a script that could not start, with what res
// already says of the step (its argv, environment, timeout): transient when
// the machine was short of descriptors or processes, else failed.
func notStarted(res step.Result, err error) step.Result {
	ns := step.StartFailed(err)
	ns.Runner, ns.Argv, ns.Env = res.Runner, res.Argv, res.Env
	ns.Timeout, ns.TimeoutFrom, ns.Warnings = res.Timeout, res.TimeoutFrom, res.Warnings
	ns.ExitCode = -1
	return ns
}

// canceledBeforeStart is the result of a step whose context was done before
// its script started.
func canceledBeforeStart() step.Result {
	now := time.Now()
	return step.Result{Outcome: step.Canceled, Class: "canceled", NotStarted: true, Runner: "script", ExitCode: -1, Started: now, Ended: now}
}

// output reads a script's two streams.
type output struct {
	h           step.Handler
	idle        *proc.Watchdog
	stopTooMuch func()

	events sync.Mutex // one OnEvent call at a time, from either stream
	// stdout is what the script printed on stdout, up to MaxStdout;
	// tooMuch says it printed more. Only the stdout reader touches them
	// until both readers are done.
	stdout  []byte
	tooMuch bool
}

// readChunk is the size of the reads from a script's streams.
const readChunk = 32 << 10

// read reads one stream to its end: each chunk restarts the idle timer,
// goes to the handler and through a <print> scanner; stdout is kept, and
// stderr's end goes to tail.
func (o *output) read(r io.Reader, stderr bool, tail *proc.Tail) {
	buf := make([]byte, readChunk)
	prints := parsing.NewPrintScanner()
	for {
		n, err := r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			o.idle.Kick()
			if o.h.OnOutput != nil {
				o.h.OnOutput(stderr, chunk)
			}
			if stderr {
				_, _ = tail.Write(chunk)
			} else {
				o.keep(chunk)
			}
			o.print(prints.Feed(string(chunk)))
		}
		if err != nil {
			return
		}
	}
}

// keep adds chunk to the stdout kept, or stops the script when that would
// go over MaxStdout.
func (o *output) keep(chunk []byte) {
	if o.tooMuch {
		return
	}
	if len(o.stdout)+len(chunk) > MaxStdout {
		o.tooMuch = true
		o.stdout = nil
		o.stopTooMuch()
		return
	}
	o.stdout = append(o.stdout, chunk...)
}

// print sends the <print> payloads found as live events.
func (o *output) print(payloads []string) {
	if len(payloads) == 0 || o.h.OnEvent == nil {
		return
	}
	o.events.Lock()
	defer o.events.Unlock()
	for _, p := range payloads {
		o.h.OnEvent(step.Event{Kind: step.EventPrint, Text: p})
	}
}
