package claude

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"raymond/claude/fakeclaude"
)

// The test binary doubles as a stand-in for claude, in the manner of the
// os/exec tests: Run starts os.Args[0] with helperEnv set to a mode.
// With fakeEnv set to 1 it is the project's fake claude instead.
const (
	helperEnv = "RAYMOND_CLAUDE_TEST_HELPER"
	fakeEnv   = "RAYMOND_TEST_FAKE_CLAUDE"
)

// Settings of the helper modes, passed through the environment.
const (
	helperFixture    = "HELPER_FIXTURE"     // replay: file to copy to stdout
	helperStderr     = "HELPER_STDERR"      // replay: text for stderr
	helperExit       = "HELPER_EXIT"        // replay, noread: exit status
	helperPidFile    = "HELPER_PIDFILE"     // hang: where to write the grandchild's pid
	helperIgnoreTerm = "HELPER_IGNORE_TERM" // hang: ignore SIGTERM
	helperLeave      = "HELPER_LEAVE"       // hang: print a result and exit, leaving the grandchild
	helperEscape     = "HELPER_ESCAPE"      // hang: start the grandchild outside our process group
	helperRecord     = "HELPER_RECORD"      // record: where to write argv, env and stdin
	helperBigLine    = "HELPER_BIGLINE"     // bigline: size of the text block
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeEnv) == "1" {
		os.Exit(fakeclaude.Main())
	}
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

func helperMain(mode string) int {
	exit, _ := strconv.Atoi(os.Getenv(helperExit))
	switch mode {
	case "replay":
		if name := os.Getenv(helperFixture); name != "" {
			f, err := os.Open(name)
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 99
			}
			_, _ = io.Copy(os.Stdout, f)
		}
		if s := os.Getenv(helperStderr); s != "" {
			fmt.Fprint(os.Stderr, s)
		}
		return exit
	case "noread":
		return exit
	case "record":
		stdin, _ := io.ReadAll(os.Stdin)
		rec, _ := json.Marshal(record{Argv: os.Args[1:], Env: os.Environ(), Stdin: string(stdin)})
		if err := os.WriteFile(os.Getenv(helperRecord), rec, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 99
		}
		fmt.Println(`{"type":"system","subtype":"init","session_id":"rec"}`)
		fmt.Println(`{"type":"result","subtype":"success","is_error":false,"result":"recorded","session_id":"rec"}`)
		return 0
	case "hang":
		if os.Getenv(helperIgnoreTerm) != "" {
			signal.Ignore(syscall.SIGTERM)
		}
		// The grandchild shares our stdout: Run sees EOF only once it is gone.
		sleep := exec.Command("sleep", "300")
		sleep.Stdout = os.Stdout
		if os.Getenv(helperEscape) != "" {
			sleep.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		if err := sleep.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 99
		}
		if err := os.WriteFile(os.Getenv(helperPidFile), []byte(strconv.Itoa(sleep.Process.Pid)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 99
		}
		fmt.Println(`{"type":"system","subtype":"init","session_id":"hang"}`)
		if os.Getenv(helperLeave) != "" {
			fmt.Println(`{"type":"result","subtype":"success","is_error":false,"result":"left","session_id":"hang"}`)
			return 0
		}
		_ = sleep.Wait() // until a signal ends us both
		// The group's signal may end the grandchild before the runtime
		// has acted on ours: wait for it rather than exit by ourselves.
		time.Sleep(time.Minute)
		return 98
	case "bigline":
		size, _ := strconv.Atoi(os.Getenv(helperBigLine))
		text := strings.Repeat("x", size)
		fmt.Println(`{"type":"system","subtype":"init","session_id":"big"}`)
		fmt.Printf(`{"type":"assistant","message":{"model":"m","content":[{"type":"text","text":%q}]}}`+"\n", text)
		fmt.Println(`{"type":"result","subtype":"success","is_error":false,"result":"big","session_id":"big"}`)
		return 0
	}
	fmt.Fprintf(os.Stderr, "unknown helper mode %q\n", mode)
	return 99
}

// record is what the record mode saw.
type record struct {
	Argv  []string
	Env   []string
	Stdin string
}

// helperRequest returns a request that runs the test binary in mode, with
// settings given as KEY=value.
func helperRequest(t *testing.T, mode string, settings ...string) Request {
	t.Helper()
	env := append(childTestEnv(), helperEnv+"="+mode)
	return Request{
		Executable: os.Args[0],
		Prompt:     "hello",
		Cwd:        t.TempDir(),
		Env:        append(env, settings...),
	}
}

// childTestEnv is the environment for a re-executed test binary. Under the
// race detector a process sleeps a second before exiting unless told not to.
func childTestEnv() []string {
	return append(os.Environ(), "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
}

// fixturesDir holds the captured outputs of the real CLI.
var fixturesDir = filepath.Join("..", "testdata", "claude")

func fixture(t testing.TB, name string) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(fixturesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return path
}
