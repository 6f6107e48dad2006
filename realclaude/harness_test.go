package realclaude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"raymond/standin"
	"raymond/transcript"
)

var (
	realClaude string // the real CLI, from RAYMOND_REAL_CLAUDE
	raymondBin string // built by TestMain
	fakeClaude string // built by TestMain
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	if p := os.Getenv("RAYMOND_REAL_CLAUDE"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		realClaude = abs
	}
	if realClaude == "" && os.Getenv("RAYMOND_REQUIRE_REAL_CLAUDE") != "1" {
		return m.Run() // every test skips
	}
	dir, err := os.MkdirTemp("", "realclaude-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	raymondBin, fakeClaude = filepath.Join(dir, "raymond"), filepath.Join(dir, "claude")
	for bin, pkg := range map[string]string{raymondBin: "raymond/cmd/raymond", fakeClaude: "raymond/claude/fakeclaude/cmd/fake-claude"} {
		out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "go build %s: %v\n%s", pkg, err, out)
			return 1
		}
	}
	return m.Run()
}

// needClaude skips the test when no real CLI was named, or fails it when one
// is required.
func needClaude(t *testing.T) {
	t.Helper()
	if realClaude != "" {
		return
	}
	if os.Getenv("RAYMOND_REQUIRE_REAL_CLAUDE") == "1" {
		t.Fatal("RAYMOND_REQUIRE_REAL_CLAUDE=1 but RAYMOND_REAL_CLAUDE names no CLI: run make test-real-claude")
	}
	t.Skip("RAYMOND_REAL_CLAUDE is not set: make test-real-claude installs the CLI and runs this tier")
}

// world is one scenario's surroundings: a project folder, a scratch home and
// configuration folder, the stand-in on loopback, and the claude to run (the
// real CLI, or the fake with its script).
type world struct {
	t       *testing.T
	dir     string // the project: raymond's working folder
	home    string // HOME; CLAUDE_CONFIG_DIR is home/.claude
	fake    bool
	claude  string
	url     string // the stand-in, for the real CLI
	logPath string // the stand-in's request log
	extra   []string
}

// newWorld starts the stand-in with rules and returns a world whose raymond
// runs the real CLI.
func newWorld(t *testing.T, rules *standin.Rules) *world {
	t.Helper()
	needClaude(t)
	if rules != nil {
		if err := rules.Check(); err != nil {
			t.Fatal(err)
		}
	}
	w := &world{t: t, dir: project(t), home: t.TempDir(), claude: realClaude}
	w.logPath = filepath.Join(w.home, "requests.jsonl")
	logFile, err := os.Create(w.logPath)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: standin.New(rules, logFile)}
	var wg sync.WaitGroup
	wg.Go(func() { _ = srv.Serve(ln) })
	t.Cleanup(func() {
		w.killAll() // a tool a failed test left waiting
		_ = srv.Close()
		wg.Wait()
		logFile.Close()
	})
	w.url = "http://" + ln.Addr().String()
	t.Cleanup(func() {
		if t.Failed() {
			w.logRequests()
		}
	})
	return w
}

// newFakeWorld returns a world whose raymond runs the fake claude with script
// (the fake's YAML, or JSON).
func newFakeWorld(t *testing.T, script []byte) *world {
	t.Helper()
	needClaude(t) // the fake side of a comparison runs only with the tier
	w := &world{t: t, dir: project(t), home: t.TempDir(), fake: true, claude: fakeClaude}
	if err := os.WriteFile(filepath.Join(w.home, "script.json"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	return w
}

// project returns a new project folder: one with its own .raymond/, so
// that raymond never finds another project in a folder above it.
func project(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, ".raymond"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// env is the environment of raymond and, through it, of claude: nothing of
// the user's home or configuration, and nothing that leaves loopback.
func (w *world) env() []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"CLAUDE_CONFIG_DIR=" + filepath.Join(w.home, ".claude"),
		"RAYMOND_CLAUDE=" + w.claude,
		"NO_COLOR=1",
		"LANG=C.UTF-8",
	}
	if w.fake {
		env = append(env, "FAKE_CLAUDE_DIR="+w.home, "FAKE_CLAUDE_SCRIPT="+filepath.Join(w.home, "script.json"))
	} else {
		env = append(env,
			"ANTHROPIC_BASE_URL="+w.url,
			"ANTHROPIC_API_KEY=placeholder-not-a-key",
			"DISABLE_TELEMETRY=1",
			"DISABLE_AUTOUPDATER=1",
			"DISABLE_ERROR_REPORTING=1",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		)
	}
	return append(env, w.extra...)
}

// write creates files under the project folder.
func (w *world) write(files map[string]string) {
	w.t.Helper()
	for name, text := range files {
		p := filepath.Join(w.dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			w.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			w.t.Fatal(err)
		}
	}
}

// outcome is what a raymond command did.
type outcome struct {
	stdout, stderr string
	code           int
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
}

func (w *world) command(args ...string) *exec.Cmd {
	cmd := exec.Command(raymondBin, args...)
	cmd.Dir = w.dir
	cmd.Env = w.env()
	cmd.Stdin = nil
	return cmd
}

// raymond runs raymond to its end.
func (w *world) raymond(args ...string) outcome {
	w.t.Helper()
	cmd := w.command(args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	o := outcome{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	case err != nil:
		w.t.Fatal(err)
	}
	w.t.Logf("raymond %s: %s", strings.Join(args, " "), o)
	return o
}

// must runs raymond and fails the test unless it exits with code.
func (w *world) must(code int, args ...string) outcome {
	w.t.Helper()
	o := w.raymond(args...)
	if o.code != code {
		w.t.Fatalf("raymond %s exited %d, want %d", strings.Join(args, " "), o.code, code)
	}
	return o
}

// steps returns the meta files of a run's steps in the order they ran.
func (w *world) steps(run string) []transcript.Meta {
	w.t.Helper()
	paths, err := filepath.Glob(filepath.Join(w.dir, ".raymond", "debug", run, "*.meta.json"))
	if err != nil {
		w.t.Fatal(err)
	}
	var metas []transcript.Meta
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			w.t.Fatal(err)
		}
		var m transcript.Meta
		if err := json.Unmarshal(data, &m); err != nil {
			w.t.Fatalf("%s: %v", p, err)
		}
		metas = append(metas, m)
	}
	slices.SortStableFunc(metas, func(a, b transcript.Meta) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return a.Seq - b.Seq
	})
	return metas
}

// status is the part of `raymond status --json` the tests read.
type status struct {
	Status       string  `json:"status"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	Agents       []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		State  string `json:"state"`
	} `json:"agents"`
}

func (w *world) status(run string) status {
	w.t.Helper()
	o := w.must(0, "status", run, "--json")
	var s status
	if err := json.Unmarshal([]byte(o.stdout), &s); err != nil {
		w.t.Fatalf("status --json: %v\n%s", err, o.stdout)
	}
	return s
}

// requests returns the stand-in's log.
func (w *world) requests() []standin.Entry {
	w.t.Helper()
	data, err := os.ReadFile(w.logPath)
	if err != nil {
		w.t.Fatal(err)
	}
	var out []standin.Entry
	for line := range bytes.Lines(data) {
		var e standin.Entry
		if err := json.Unmarshal(line, &e); err != nil {
			w.t.Fatalf("request log: %v", err)
		}
		out = append(out, e)
	}
	return out
}

// turns returns the main-turn requests of the stand-in's log (no side
// requests, nothing but /v1/messages).
func (w *world) turns() []standin.Entry {
	var out []standin.Entry
	for _, e := range w.requests() {
		if e.Path == "/v1/messages" && !e.Side {
			out = append(out, e)
		}
	}
	return out
}

// resultLine is the CLI's own result line of a step, from its stream.
type resultLine struct {
	Subtype      string  `json:"subtype"`
	IsError      bool    `json:"is_error"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	SessionID    string  `json:"session_id"`
}

// result returns the result line of the step with transcript base name,
// and whether it had one.
func (w *world) result(run, name string) (resultLine, bool) {
	w.t.Helper()
	data, err := os.ReadFile(filepath.Join(w.dir, ".raymond", "debug", run, name+".jsonl"))
	if err != nil {
		w.t.Fatal(err)
	}
	var r resultLine
	found := false
	for line := range bytes.Lines(data) {
		var probe struct{ Type string }
		if json.Unmarshal(line, &probe) == nil && probe.Type == "result" {
			found = json.Unmarshal(line, &r) == nil
		}
	}
	return r, found
}

// stepName is a step's transcript base name: <agent>_<stem>_<NNN>.
func stepName(m transcript.Meta) string {
	return fmt.Sprintf("%s_%s_%03d", m.Agent, strings.TrimSuffix(filepath.Base(m.State), filepath.Ext(m.State)), m.Seq)
}

// checkCosts checks raymond's figures against the CLI's own: each step's
// cost is its result's total_cost_usd less the last total of the session it
// resumed or branched (the CLI's totals are cumulative over a lineage), and
// the run's cost is at least the sum of its steps'.
func (w *world) checkCosts(run string) {
	w.t.Helper()
	last := map[string]float64{}
	sum := 0.0
	for _, m := range w.steps(run) {
		sum += m.CostUSD
		if m.Runner != "claude" {
			continue
		}
		r, ok := w.result(run, stepName(m))
		if !ok {
			continue
		}
		want := r.TotalCostUSD - last[m.ResumedSession]
		if !near(m.CostUSD, want) {
			w.t.Errorf("%s: raymond booked $%.6f, the CLI's totals say $%.6f (total %.6f, session %s had %.6f)",
				stepName(m), m.CostUSD, want, r.TotalCostUSD, m.ResumedSession, last[m.ResumedSession])
		}
		last[r.SessionID] = r.TotalCostUSD
	}
	// The run may also hold the spend of a step cut short, which has no
	// meta file; it never holds less than its steps.
	if s := w.status(run); s.TotalCostUSD < sum-1e-6 {
		w.t.Errorf("run %s costs $%.6f, less than its steps' $%.6f", run, s.TotalCostUSD, sum)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

// waitFor waits until cond holds, failing the test after a minute.
func (w *world) waitFor(what string, cond func() bool) {
	w.t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			w.t.Fatalf("waited a minute for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// exists reports whether a file under the project folder exists.
func (w *world) exists(name string) bool {
	_, err := os.Stat(filepath.Join(w.dir, name))
	return err == nil
}

// killAll sends SIGKILL to every process of this world (raymond, claude and
// their tools), found by the configuration folder in their environment.
func (w *world) killAll() {
	w.t.Helper()
	mark := []byte("CLAUDE_CONFIG_DIR=" + filepath.Join(w.home, ".claude") + "\x00")
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(env, mark) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if pid != os.Getpid() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// userSession runs the CLI in the project folder as a user would, outside
// raymond, and returns the id of the session it made.
func (w *world) userSession(prompt string) string {
	w.t.Helper()
	cmd := exec.Command(w.claude, "-p", "--output-format", "json", "--", prompt)
	cmd.Dir, cmd.Env = w.dir, w.env()
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("claude -p: %v\n%s", err, out)
	}
	var r resultLine
	if err := json.Unmarshal(out, &r); err != nil || r.SessionID == "" {
		w.t.Fatalf("claude -p: no session id in %s", out)
	}
	return r.SessionID
}

// logRequests logs the stand-in's requests, one line each, for a test that
// failed.
func (w *world) logRequests() {
	var b strings.Builder
	for _, e := range w.requests() {
		p := e.Prompt
		if len(p) > 100 {
			p = p[:100] + "…"
		}
		fmt.Fprintf(&b, "  %s %s %d model=%s side=%v rule=%q tool_results=%d prompt=%q\n",
			e.Method, e.Path, e.Status, e.Model, e.Side, e.Rule, e.ToolResults, p)
	}
	w.t.Logf("the stand-in's requests:\n%s", b.String())
	if os.Getenv("DBG") != "" {
		data, _ := os.ReadFile(w.logPath)
		_ = os.WriteFile(os.Getenv("DBG"), data, 0o644)
	}
}
