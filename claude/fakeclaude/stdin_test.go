package fakeclaude

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const noInput = "Error: Input must be provided either through stdin or as a prompt argument when using --print\n"

// TestStdin checks how the prompt argument and stdin combine. The cases that wait on a
// silent pipe shorten the 3 s wait; the others set it to an hour, so that a wrongful
// wait shows as a test timeout.
func TestStdin(t *testing.T) {
	tests := []struct {
		name   string
		arg    string
		stdin  func(t *testing.T) *os.File
		wait   time.Duration
		prompt string // "" when the call must be refused for want of input
		warn   bool
	}{
		{"argument only", "arg", noStdin, time.Hour, "arg", false},
		{"/dev/null", "arg", devNull, time.Hour, "arg", false},
		{"argument and piped data", "arg", pipeWith("line 1\nline 2\n"), time.Hour, "arg\nline 1\nline 2\n", false},
		{"piped data alone", "", pipeWith("from stdin"), time.Hour, "from stdin", false},
		{"argument and a file", "arg", fileWith("in a file"), time.Hour, "arg\nin a file", false},
		{"argument and an empty pipe", "arg", pipeWith(""), time.Hour, "arg", false},
		{"closed stdin", "arg", closedFile, time.Hour, "arg", false},
		{"nothing at all", "", pipeWith(""), time.Hour, "", false},
		{"silent pipe", "arg", silentPipe, 10 * time.Millisecond, "arg", true},
		{"silent pipe and no argument", "", silentPipe, 10 * time.Millisecond, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			saved := stdinWait
			stdinWait = tt.wait
			t.Cleanup(func() { stdinWait = saved })

			f := newFake(t, "replies: [{text: ok}]")
			args := []string{"-p"}
			if tt.arg != "" {
				args = append(args, "--", tt.arg)
			}
			out := f.runInv(&invocation{args: args, stdin: tt.stdin(t)}, nil)
			check(t, "warned", strings.Contains(out.stderr, stdinWarning), tt.warn)
			if tt.prompt == "" {
				check(t, "exit", out.code, 1)
				check(t, "stderr", strings.TrimPrefix(out.stderr, stdinWarning+"\n"), noInput)
				return
			}
			check(t, "exit", out.code, 0)
			check(t, "prompt", f.calls()[0].Prompt, tt.prompt)
		})
	}
}

// TestStdinProcess feeds a real process's stdin, which is a plain blocking pipe there.
func TestStdinProcess(t *testing.T) {
	f := newFake(t, "replies: [{text: ok, repeat: true}]")
	cmd := f.command("-p", "--", "arg")
	cmd.Stdin = strings.NewReader("piped")
	must(t, cmd.Run())

	cmd = f.command("-p", "--", "arg")
	cmd.Env = append(cmd.Env, "FAKE_CLAUDE_TEST_STDIN_WAIT=20ms")
	_, err := cmd.StdinPipe() // held open and silent until the process exits
	must(t, err)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	must(t, cmd.Run())
	check(t, "warning", stderr.String(), stdinWarning+"\n")

	calls := f.calls()
	check(t, "prompts", []string{calls[0].Prompt, calls[1].Prompt}, []string{"arg\npiped", "arg"})
	check(t, "stdin", calls[0].Stdin, "piped")
}

func noStdin(*testing.T) *os.File { return nil }

func devNull(t *testing.T) *os.File {
	f, err := os.Open(os.DevNull)
	must(t, err)
	t.Cleanup(func() { f.Close() })
	return f
}

func pipeWith(data string) func(t *testing.T) *os.File {
	return func(t *testing.T) *os.File {
		r, w, err := os.Pipe()
		must(t, err)
		t.Cleanup(func() { r.Close() })
		_, err = w.WriteString(data)
		must(t, err)
		must(t, w.Close())
		return r
	}
}

// silentPipe is a pipe whose writer stays open and writes nothing.
func silentPipe(t *testing.T) *os.File {
	r, w, err := os.Pipe()
	must(t, err)
	t.Cleanup(func() { r.Close(); w.Close() })
	return r
}

func fileWith(data string) func(t *testing.T) *os.File {
	return func(t *testing.T) *os.File {
		path := filepath.Join(t.TempDir(), "stdin")
		must(t, os.WriteFile(path, []byte(data), 0o644))
		f, err := os.Open(path)
		must(t, err)
		t.Cleanup(func() { f.Close() })
		return f
	}
}

func closedFile(t *testing.T) *os.File {
	f := devNull(t)
	f.Close()
	return f
}

func TestComposePrompt(t *testing.T) {
	for _, tt := range []struct {
		arg, stdin, want string
		ok               bool
	}{
		{"a", "", "a", true},
		{"", "s", "s", true},
		{"a", "s", "a\ns", true},
		{"", "", "", false},
	} {
		got, ok := composePrompt(tt.arg, []byte(tt.stdin))
		check(t, fmt.Sprintf("composePrompt(%q, %q)", tt.arg, tt.stdin), []any{got, ok}, []any{tt.want, tt.ok})
	}
}
