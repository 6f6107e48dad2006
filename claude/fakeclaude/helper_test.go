package fakeclaude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// helperEnv makes the test binary act as the fake when re-executed (the pattern of
// the os/exec tests), so tests can run real fake processes.
const helperEnv = "FAKE_CLAUDE_TEST_HELPER"

// TestMain serves the fake as a helper process and as testscript's "claude" command,
// else runs the tests.
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		if d, err := time.ParseDuration(os.Getenv("FAKE_CLAUDE_TEST_STDIN_WAIT")); err == nil {
			stdinWait = d
		}
		os.Exit(Main())
	}
	testscript.Main(m, map[string]func(){"claude": func() { os.Exit(Main()) }})
}

// TestScript runs testdata/script/*.txtar: the fake as the end-to-end tests see it.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FAKE_CLAUDE_DIR", env.WorkDir+"/.fake")
			env.Setenv("CLAUDE_CONFIG_DIR", env.WorkDir+"/.claude-config")
			env.Setenv("FAKE_CLAUDE_ROOT", "0")
			return nil
		},
	})
}

// streamArgs is how raymond calls claude.
var streamArgs = []string{"-p", "--output-format", "stream-json", "--verbose"}

// fake is one test's fake claude: its FAKE_CLAUDE_DIR, its CLAUDE_CONFIG_DIR (the
// session store, never the real ~/.claude), a working directory and the environment
// every call gets.
type fake struct {
	t      *testing.T
	dir    string
	config string
	cwd    string
	env    []string
}

// newFake prepares a fake with script (YAML) unless it is empty. It acts as a non-root
// user unless the test says otherwise.
func newFake(t *testing.T, script string) *fake {
	t.Helper()
	f := &fake{t: t, dir: t.TempDir(), config: t.TempDir(), cwd: t.TempDir()}
	f.env = []string{"FAKE_CLAUDE_DIR=" + f.dir, "CLAUDE_CONFIG_DIR=" + f.config, "FAKE_CLAUDE_ROOT=0"}
	if script != "" {
		f.writeScript(script)
	}
	return f
}

func (f *fake) writeScript(script string) {
	f.t.Helper()
	must(f.t, os.WriteFile(filepath.Join(f.dir, "script.yaml"), []byte(script), 0o644))
}

// output is what one call of the fake did.
type output struct {
	code   int
	stdout string
	stderr string
}

// run calls the fake in-process with args and no stdin.
func (f *fake) run(args ...string) output {
	f.t.Helper()
	return f.runInv(&invocation{args: args}, nil)
}

// ask calls the fake as raymond does, with prompt after "--".
func (f *fake) ask(prompt string, extra ...string) output {
	f.t.Helper()
	return f.run(slices.Concat(streamArgs, extra, []string{"--", prompt})...)
}

// runInv fills in what inv lacks (cwd, env, writers) and runs it; env entries in
// more are added to the fake's environment.
func (f *fake) runInv(inv *invocation, more []string) output {
	f.t.Helper()
	var stdout, stderr bytes.Buffer
	if inv.cwd == "" {
		inv.cwd = f.cwd
	}
	inv.env = slices.Concat(f.env, more)
	if inv.stdout == nil {
		inv.stdout = &stdout
	}
	inv.stderr = &stderr
	code := run(inv)
	out := output{code: code, stdout: stdout.String(), stderr: stderr.String()}
	if slices.Contains(inv.args, "stream-json") {
		checkLines(f.t, out.stdout)
	}
	return out
}

// command is the fake as a real process (the re-executed test binary).
func (f *fake) command(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = f.cwd
	// Under -race, a process sleeps a second at exit unless told otherwise.
	gorace := strings.TrimSpace(os.Getenv("GORACE") + " atexit_sleep_ms=0")
	cmd.Env = slices.Concat(os.Environ(), f.env, []string{helperEnv + "=1", "GORACE=" + gorace})
	return cmd
}

// checkLines asserts that every stdout line is a JSON object with a string "type".
func checkLines(t *testing.T, stdout string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("stdout line is not a JSON object: %v\n%s", err, l)
		}
		if typ, ok := v["type"].(string); !ok || typ == "" {
			t.Fatalf("stdout line without type: %s", l)
		}
	}
}

// lines decodes the JSON lines of stdout.
func (o output) lines(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n") {
		if l == "" {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("stdout line is not a JSON object: %v\n%s", err, l)
		}
		out = append(out, v)
	}
	return out
}

// kinds lists each line's type, with its subtype after a slash when it has one.
func (o output) kinds(t *testing.T) []string {
	t.Helper()
	var kinds []string
	for _, l := range o.lines(t) {
		k := l["type"].(string)
		if s, ok := l["subtype"].(string); ok {
			k += "/" + s
		}
		kinds = append(kinds, k)
	}
	return kinds
}

// result is the result line; the test fails if there is none or it is not last.
func (o output) result(t *testing.T) map[string]any {
	t.Helper()
	ls := o.lines(t)
	if len(ls) == 0 || ls[len(ls)-1]["type"] != "result" {
		t.Fatalf("the last line is not a result line\nstdout: %s\nstderr: %s", o.stdout, o.stderr)
	}
	return ls[len(ls)-1]
}

// sessionID is the session id of the result line.
func (o output) sessionID(t *testing.T) string {
	t.Helper()
	return o.result(t)["session_id"].(string)
}

// calls reads the fake's call log.
func (f *fake) calls() []Call {
	f.t.Helper()
	calls, err := ReadCalls(f.dir)
	must(f.t, err)
	return calls
}

// lineReader reads JSON lines from a running fake's stdout.
type lineReader struct {
	t  *testing.T
	sc *bufio.Scanner
}

func newLineReader(t *testing.T, r io.Reader) *lineReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	return &lineReader{t: t, sc: sc}
}

// next returns the next line, failing the test at EOF.
func (r *lineReader) next() map[string]any {
	r.t.Helper()
	if !r.sc.Scan() {
		r.t.Fatalf("stdout ended early: %v", r.sc.Err())
	}
	var v map[string]any
	must(r.t, json.Unmarshal(r.sc.Bytes(), &v))
	return v
}

// rest returns the remaining lines.
func (r *lineReader) rest() []map[string]any {
	r.t.Helper()
	var out []map[string]any
	for r.sc.Scan() {
		var v map[string]any
		must(r.t, json.Unmarshal(r.sc.Bytes(), &v))
		out = append(out, v)
	}
	return out
}

// must stops the test on an unexpected error.
func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// check reports a mismatch between got and want, compared deeply.
func check(t testing.TB, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// fixturesDir holds the captured outputs of the real CLI, shared with the
// claude package's tests.
var fixturesDir = filepath.Join("..", "..", "testdata", "claude")
