package fakeclaude

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const benchScript = `replies:
  - say: ["Looking."]
    tools: [{name: Bash, input: {command: ls}, result: "a b c"}]
    text: "<goto>NEXT.md</goto>"
    repeat: true
`

// benchEnv prepares a FAKE_CLAUDE_DIR with benchScript and a session store inside it,
// and returns the environment.
func benchEnv(b *testing.B) []string {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(benchScript), 0o644); err != nil {
		b.Fatal(err)
	}
	return []string{"FAKE_CLAUDE_DIR=" + dir, "CLAUDE_CONFIG_DIR=" + filepath.Join(dir, "config"), "FAKE_CLAUDE_ROOT=0"}
}

// BenchmarkRun measures one in-process call: parse, lock, session, reply state, five
// lines of output, call log.
func BenchmarkRun(b *testing.B) {
	env := benchEnv(b)
	cwd := b.TempDir()
	args := slices.Concat(streamArgs, []string{"--", "go"})
	for b.Loop() {
		if code := run(&invocation{args: args, env: env, cwd: cwd, stdout: io.Discard, stderr: io.Discard}); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}

// BenchmarkProcess measures one call as a process, as testscript and raymond's tests
// pay for it (the test binary re-executed).
func BenchmarkProcess(b *testing.B) {
	env := slices.Concat(os.Environ(), benchEnv(b), []string{helperEnv + "=1",
		"GORACE=" + strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0")})
	args := slices.Concat(streamArgs, []string{"--", "go"})
	for b.Loop() {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = env
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}
