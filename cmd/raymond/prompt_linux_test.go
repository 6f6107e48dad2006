//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude/fakeclaude"
	"raymond/state"
)

// openPTY opens a pseudo-terminal with the standard library alone: the
// master side (/dev/ptmx), unlocked, and its slave (/dev/pts/N).
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(arg)); errno != 0 {
			return errno
		}
		return nil
	}
	var unlock int32
	require.NoError(t, ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)), "unlock the pty")
	var n uint32
	require.NoError(t, ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)), "pty number")
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	require.NoError(t, err)
	t.Cleanup(func() { master.Close(); slave.Close() })
	return master, slave
}

// terminal is raymond running with stdin and stderr on a pseudo-terminal
// and stdout on a pipe: what a person at the terminal sees, and the
// product apart.
type terminal struct {
	t      *testing.T
	cmd    *exec.Cmd
	master *os.File
	stdout bytes.Buffer

	mu     sync.Mutex
	screen bytes.Buffer
	wg     sync.WaitGroup
}

// startOnTerminal runs raymond with args in a project made of files (path
// → content) whose fake claude answers with script.
func startOnTerminal(t *testing.T, files map[string]string, args ...string) (*terminal, string) {
	t.Helper()
	bin, err := exec.LookPath("raymond") // testscript.Main put it on PATH
	require.NoError(t, err)
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(content, "$DIR", dir)), 0o644))
	}
	return onTerminal(t, bin, dir, args...), dir
}

// onTerminal runs the raymond binary bin with args in dir, stdin and
// stderr on a pseudo-terminal.
func onTerminal(t *testing.T, bin, dir string, args ...string) *terminal {
	t.Helper()
	fake := filepath.Join(dir, ".fake-claude")
	require.NoError(t, os.MkdirAll(fake, 0o755))
	master, slave := openPTY(t)
	tm := &terminal{t: t, master: master}
	tm.cmd = exec.Command(bin, args...)
	tm.cmd.Dir = dir
	tm.cmd.Env = append(os.Environ(), "FAKE_CLAUDE_DIR="+fake, "FAKE_CLAUDE_SCRIPT="+filepath.Join(dir, "script.yaml"),
		"NO_COLOR=1", "GORACE=atexit_sleep_ms=0")
	tm.cmd.Stdin, tm.cmd.Stderr, tm.cmd.Stdout = slave, slave, &tm.stdout
	require.NoError(t, tm.cmd.Start())
	slave.Close() // the child has it; the master reads EIO once the child is gone
	tm.wg.Go(func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			tm.mu.Lock()
			tm.screen.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	})
	return tm
}

// waitFor waits until the terminal shows s count times, for at most a
// minute.
func (tm *terminal) waitFor(s string, count int) {
	tm.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		tm.mu.Lock()
		n := strings.Count(tm.screen.String(), s)
		tm.mu.Unlock()
		if n >= count {
			return
		}
		if time.Now().After(deadline) {
			_ = tm.cmd.Process.Kill()
			tm.t.Fatalf("the terminal never showed %q; it shows:\n%s", s, tm.screenText())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitFile waits for a file to exist, for at most a minute.
func waitFile(t *testing.T, path string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// typeText types s at the terminal.
func (tm *terminal) typeText(s string) {
	tm.t.Helper()
	_, err := tm.master.WriteString(s)
	require.NoError(tm.t, err)
}

// wait waits for raymond to exit and returns its exit status.
func (tm *terminal) wait() int {
	tm.t.Helper()
	err := tm.cmd.Wait()
	tm.master.Close()
	tm.wg.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(tm.t, err)
	return 0
}

func (tm *terminal) screenText() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.screen.String()
}

// askFiles is a workflow whose main forks a worker and asks; the worker's
// step ends only once main has asked, so its progress lines come while the
// question is open. The answer reaches the result through the prompt the
// fake matches.
func askFiles() map[string]string {
	return map[string]string{
		"wf/START.md":    "Start\n",
		"wf/ASK.md":      "Ask\n",
		"wf/DONE.md":     "Done {{input}} {{ask_id}}\n",
		"wf/WORKER.md":   "Work\n",
		".raymond/.keep": "",
		"script.yaml": `replies:
  - match: "^Start"
    text: '<fork next="ASK.md">WORKER.md</fork>'
  - match: "^Ask"
    text: '<ask next="DONE.md" timeout="48h">Approve Acme?</ask>'
  - match: "^Work"
    wait_for: $DIR/.raymond/debug/p1/main_ASK_002.meta.json
    text: '<result>worked</result>'
  - match: "^Done yes please ask_main_1"
    text: '<result>approved: yes please</result>'
`,
	}
}

// TestPromptOnTerminal answers an ask at a real terminal: --on-ask auto
// prompts when stdin and stderr are terminals; an empty line asks again;
// the answer becomes the next step's input.
func TestPromptOnTerminal(t *testing.T) {
	tm, dir := startOnTerminal(t, askFiles(), "run", "wf", "--id", "p1")
	tm.waitFor("answer> ", 1)
	waitFile(t, filepath.Join(dir, ".raymond/debug/p1/main_worker1_WORKER_001.meta.json"))
	tm.typeText("\n")
	tm.waitFor("answer (an empty line asks again)> ", 1)
	tm.typeText("yes please\n")
	code := tm.wait()
	screen := tm.screenText()
	t.Logf("the terminal:\n%s", screen)
	require.Equal(t, 0, code, "raymond's terminal:\n%s", screen)
	assert.Equal(t, "approved: yes please\n", tm.stdout.String())
	assert.Contains(t, screen, "[main] asks ask_main_1 at ASK.md (answer by ")
	assert.Contains(t, screen, "  Approve Acme?\r\n")
	// The worker's lines are held while the question is open: none comes
	// between the question and the answer typed.
	q := strings.Index(screen, "answer> ")
	a := strings.Index(screen, "yes please")
	require.True(t, q >= 0 && a > q)
	assert.NotContains(t, screen[q:a], "[main_worker1]")
	assert.Contains(t, screen[a:], "[main_worker1] WORKER.md -> done (result)")

	calls, err := fakeclaude.ReadCalls(filepath.Join(dir, ".fake-claude"))
	require.NoError(t, err)
	require.NotEmpty(t, calls)
	assert.Equal(t, "Done yes please ask_main_1", strings.TrimSpace(calls[len(calls)-1].Prompt))
}

// TestPromptEndOfInput: the end of the terminal's input leaves the ask
// pending and the run exits 4 with the asks on stdout, as in pause mode.
func TestPromptEndOfInput(t *testing.T) {
	tm, dir := startOnTerminal(t, askFiles(), "run", "wf", "--id", "p1")
	tm.waitFor("answer> ", 1)
	tm.typeText("\x04") // Ctrl-D
	code := tm.wait()
	require.Equal(t, 4, code, "raymond's terminal:\n%s", tm.screenText())
	assert.Contains(t, tm.screenText(), "no more input: ask_main_1 stays pending")
	assert.Contains(t, tm.stdout.String(), `"asking":{"ask_id":"ask_main_1","agent_id":"main","prompt":"Approve Acme?"}`)
	r, err := (&state.Store{Dir: filepath.Join(dir, ".raymond", "state")}).Read("p1")
	require.NoError(t, err)
	assert.Equal(t, state.StatusAsking, r.Status)
}

// TestPromptInterrupt: the first Ctrl-C withdraws the open question; the
// ask stays pending and the run is paused (exit 3).
func TestPromptInterrupt(t *testing.T) {
	tm, dir := startOnTerminal(t, askFiles(), "run", "wf", "--id", "p1")
	tm.waitFor("answer> ", 1)
	require.NoError(t, tm.cmd.Process.Signal(os.Interrupt))
	code := tm.wait()
	require.Equal(t, 3, code, "raymond's terminal:\n%s", tm.screenText())
	assert.Contains(t, tm.screenText(), "question withdrawn: ask_main_1 stays pending")
	r, err := (&state.Store{Dir: filepath.Join(dir, ".raymond", "state")}).Read("p1")
	require.NoError(t, err)
	assert.True(t, r.Agent("main").Ask.Pending())
}

func TestIsTerminal(t *testing.T) {
	_, slave := openPTY(t)
	assert.True(t, isTerminal(slave))
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	assert.False(t, isTerminal(null), "/dev/null is a character device, not a terminal")
	assert.False(t, isTerminal(strings.NewReader("")))
}
