package fakeclaude

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// running is a fake started in-process whose stdout the test reads line by line and
// to which it delivers signals.
type running struct {
	*lineReader
	signals chan os.Signal
	done    chan int
}

// start runs the fake in a goroutine; the test's cleanup stops it if still running and
// waits for it.
func (f *fake) start(args []string, more ...string) *running {
	f.t.Helper()
	pr, pw := io.Pipe()
	r := &running{lineReader: newLineReader(f.t, pr), signals: make(chan os.Signal, 1), done: make(chan int, 1)}
	inv := &invocation{args: args, cwd: f.cwd, env: slices.Concat(f.env, more), stdout: pw,
		stderr: io.Discard, signals: r.signals}
	var wg sync.WaitGroup
	wg.Go(func() {
		code := run(inv)
		pw.Close()
		r.done <- code
	})
	f.t.Cleanup(func() {
		select {
		case r.signals <- syscall.SIGTERM:
		default:
		}
		pr.Close()
		wg.Wait()
	})
	return r
}

func (r *running) signal(sig os.Signal) { r.signals <- sig }

func (r *running) wait() int { return <-r.done }

func TestHangInProcess(t *testing.T) {
	tests := []struct {
		sig  os.Signal
		code int
		tail []string // kinds after the say line
	}{
		{syscall.SIGTERM, 143, nil},
		{syscall.SIGINT, 0, []string{"user"}},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			f := newFake(t, "replies: [{hang: true, say: [thinking]}]")
			r := f.start(slices.Concat(streamArgs, []string{"--", "hi"}))
			check(t, "first", kindOf(r.next()), "system/init")
			check(t, "second", kindOf(r.next()), "assistant")
			r.signal(tt.sig)
			rest := r.rest()
			check(t, "exit", r.wait(), tt.code)
			var kinds []string
			for _, l := range rest {
				kinds = append(kinds, kindOf(l))
			}
			check(t, "lines after the signal", kinds, tt.tail)
			check(t, "logged exit", f.calls()[0].Exit, tt.code)
		})
	}
}

// TestHangProcess delivers real signals to a real fake process.
func TestHangProcess(t *testing.T) {
	fixture := readFixture(t, "sigint-midturn.stream.jsonl")
	tests := []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGTERM, 143},
		{syscall.SIGINT, 0},
	}
	for _, tt := range tests {
		t.Run(tt.sig.String(), func(t *testing.T) {
			t.Parallel()
			f := newFake(t, "replies: [{hang: true}]")
			cmd := f.command(slices.Concat(streamArgs, []string{"--", "hi"})...)
			stdout, err := cmd.StdoutPipe()
			must(t, err)
			must(t, cmd.Start())
			r := newLineReader(t, stdout)
			check(t, "first", kindOf(r.next()), "system/init")
			must(t, cmd.Process.Signal(tt.sig))
			rest := r.rest()
			err = cmd.Wait()
			check(t, "exit", cmd.ProcessState.ExitCode(), tt.code)
			if tt.sig == syscall.SIGTERM {
				check(t, "lines after SIGTERM", len(rest), 0)
				return
			}
			must(t, err)
			if len(rest) != 1 {
				t.Fatalf("want only the interrupt line after SIGINT, got %v", rest)
			}
			check(t, "interrupt line keys", keys(rest[0]), keys(fixture[1]))
			check(t, "interrupt message", rest[0]["message"], fixture[1]["message"])
		})
	}
}

// TestDelay: the lines before the delay are out while it runs, and a signal during it
// leaves no result line.
func TestDelay(t *testing.T) {
	f := newFake(t, "replies: [{say: [working], text: done, delay: 1h}]")
	r := f.start(slices.Concat(streamArgs, []string{"--", "hi"}))
	check(t, "first", kindOf(r.next()), "system/init")
	check(t, "second", kindOf(r.next()), "assistant")
	r.signal(syscall.SIGTERM)
	check(t, "rest", len(r.rest()), 0)
	check(t, "exit", r.wait(), 143)
}

func TestWaitFor(t *testing.T) {
	f := newFake(t, "replies: [{wait_for: $GATE/open, text: done}, {wait_for: gate, text: y}, {wait_for: never, text: x}]")
	gate := t.TempDir()
	r := f.start(slices.Concat(streamArgs, []string{"--", "hi"}), "GATE="+gate)
	check(t, "first", kindOf(r.next()), "system/init")
	opened := time.Now()
	must(t, os.WriteFile(filepath.Join(gate, "open"), nil, 0o644))
	rest := r.rest()
	check(t, "exit", r.wait(), 0)
	if len(rest) != 2 || kindOf(rest[1]) != "result/success" {
		t.Fatalf("want the reply after the gate opened, got %v", rest)
	}
	if ended := f.calls()[0].Ended; ended.Before(opened) {
		t.Errorf("the call ended at %v, before the gate opened at %v", ended, opened)
	}

	// A relative wait_for is taken from FAKE_CLAUDE_DIR.
	r = f.start(slices.Concat(streamArgs, []string{"--", "hi"}))
	check(t, "first", kindOf(r.next()), "system/init")
	must(t, os.WriteFile(filepath.Join(f.dir, "gate"), nil, 0o644))
	check(t, "result", r.rest()[1]["result"], "y")
	check(t, "exit", r.wait(), 0)

	// A signal ends the wait.
	r = f.start(slices.Concat(streamArgs, []string{"--", "hi"}))
	check(t, "first", kindOf(r.next()), "system/init")
	r.signal(syscall.SIGINT)
	rest = r.rest()
	check(t, "exit", r.wait(), 0)
	if len(rest) != 1 || rest[0]["type"] != "user" {
		t.Errorf("want only the interrupt line, got %v", rest)
	}
}
