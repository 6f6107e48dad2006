package scripted

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
)

// The test binary doubles as a claude that replays a scripted step's lines,
// in the manner of the os/exec tests: claude.Run starts it with replayEnv
// naming the file to copy to stdout.
const (
	replayEnv = "SCRIPTED_TEST_REPLAY" // the lines to write on stdout
	stderrEnv = "SCRIPTED_TEST_STDERR" // text to write on stderr
	exitEnv   = "SCRIPTED_TEST_EXIT"   // the exit status
)

func TestMain(m *testing.M) {
	if name := os.Getenv(replayEnv); name != "" {
		os.Exit(replay(name))
	}
	os.Exit(m.Run())
}

func replay(name string) int {
	data, err := os.ReadFile(name)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 99
	}
	_, _ = os.Stdout.Write(data)
	_, _ = fmt.Fprint(os.Stderr, os.Getenv(stderrEnv))
	code, _ := strconv.Atoi(os.Getenv(exitEnv))
	return code
}

// TestRunMatchesClaudeDecoder feeds the lines of scripted steps to the real
// claude.Run, through a process that replays them, and checks that the
// claude package decodes exactly the events and the result the scripted
// runner reported: a scripted step is indistinguishable from a real one.
func TestRunMatchesClaudeDecoder(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	long := strings.Repeat("very ", 40) + "long"
	r := parse(t, `
replies:
  S.md:
    - text: "Done with {{item}}. <print>all good</print> <goto>NEXT</goto>"
      cost: 0.0123
      say: ["Looking at {{item}}. <print>starting", "{{item}}</print>"]
      tools:
        - {name: Bash, input: {command: "\n  ls {{item}}\n  wc -l", description: list}, result: "a.go\nb.go"}
        - {name: Read, input: {file_path: "`+long+`"}, result: "no such file", error: true}
        - {name: TodoWrite, input: {todos: [{content: x}]}}
    - {outcome: api_error, cost: 0.001}
    - {outcome: usage_limit, reset: 2h}
    - {outcome: max_turns, cost: 0.2, tools: [{name: Grep, input: {pattern: "func main"}}]}
    - {outcome: crash, say: ["Starting."]}
    - {text: "", say: ["Nothing to say."]}
    - {text: "Too dear.", cost: 0.5, say: ["Spending."]}
`)
	for _, name := range []string{"success", "api_error", "usage_limit", "max_turns", "crash", "empty", "over budget"} {
		t.Run(name, func(t *testing.T) {
			req := request("S.md", map[string]string{"item": "parsing"})
			if name == "over budget" {
				req.MaxBudgetUSD = 0.25
			}
			res, rec := run(t, r, req)

			file := filepath.Join(t.TempDir(), "stream.jsonl")
			require.NoError(t, os.WriteFile(file, []byte(strings.Join(rec.lines, "\n")+"\n"), 0o644))
			var lines []string
			var events []claude.Event
			got, err := claude.Run(context.Background(), claude.Request{
				Executable: exe,
				Prompt:     req.Prompt,
				Cwd:        t.TempDir(),
				Env: append(os.Environ(),
					replayEnv+"="+file, stderrEnv+"="+res.Stderr, exitEnv+"="+strconv.Itoa(res.ExitCode)),
			}, claude.Handler{
				OnLine:  func(raw []byte) { lines = append(lines, string(raw)) },
				OnEvent: func(e claude.Event) { events = append(events, e) },
			})
			require.NoError(t, err)

			assert.Equal(t, rec.lines, lines)
			assert.Equal(t, rec.events, events)
			assert.True(t, got.ResetAt.Equal(res.ResetAt), "reset %v, decoded %v", res.ResetAt, got.ResetAt)
			want := *res
			for _, r := range []*claude.Result{&want, got} {
				r.Started, r.Ended, r.ResetAt = time.Time{}, time.Time{}, time.Time{}
			}
			assert.Equal(t, want, *got)
		})
	}
}
