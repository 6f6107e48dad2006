package loadtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"raymond/project"
	"raymond/state"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binaries builds raymond and the fake claude, once per test process, and
// returns their paths.
func binaries(tb testing.TB) (raymond, claude string) {
	tb.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "raymond-loadtest-")
		if buildErr != nil {
			return
		}
		for _, b := range []struct{ out, pkg string }{
			{"raymond", "raymond/cmd/raymond"},
			{"fake-claude", "raymond/claude/fakeclaude/cmd/fake-claude"},
		} {
			// go test puts its own go first on PATH.
			out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, b.out), b.pkg).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return filepath.Join(binDir, "raymond"), filepath.Join(binDir, "fake-claude")
}

// The workflow every test launches: main forks ten workers and goes on to
// JOIN; each worker takes two steps. A run is 22 steps and completes with
// main's result once every worker has ended.
const (
	workers     = 10
	stepsPerRun = 1 + 2*workers + 1
	wantResult  = "joined"
)

var workflowFiles = map[string]string{
	"START.md":  "Start the fan-out.\n",
	"WORKER.md": "Work on {{item}}.\n",
	"REPORT.md": "Report on {{item}}.\n",
	"JOIN.md":   "Join the workers.\n",
}

// fakeScript is the fake claude's script, with delays varied by state and
// by worker (d scales them: 1 is 100–800 ms).
func fakeScript(d float64) string {
	ms := func(n int) string { return fmt.Sprintf("%dms", int(float64(n)*d)) }
	var forks strings.Builder
	for i := 1; i <= workers; i++ {
		fmt.Fprintf(&forks, `<fork next=\"JOIN\" item=\"w%02d\">WORKER</fork>\n`, i)
	}
	return fmt.Sprintf(`replies:
  - match: "^Start the fan-out"
    text: "Forking.\n%s"
    delay: %s
    repeat: true
  - match: "^Work on w0[1-5]"
    text: "<goto>REPORT</goto>"
    delay: %s
    repeat: true
  - match: "^Work on"
    text: "<goto>REPORT</goto>"
    delay: %s
    repeat: true
  - match: "^Report on"
    text: "<result>reported</result>"
    delay: %s
    repeat: true
  - match: "^Join"
    text: "<result>%s</result>"
    delay: %s
    repeat: true
`, forks.String(), ms(300), ms(800), ms(400), ms(100), wantResult, ms(200))
}

// testProject is a project folder with the workflow "load" under its
// workflows/ and the fake claude's folders.
type testProject struct {
	dir  string // the project
	fake string // FAKE_CLAUDE_DIR
	env  []string
	// nofile, when set, is the daemon's limit on open descriptors.
	nofile int
}

func newProject(tb testing.TB, delays float64) *testProject {
	tb.Helper()
	_, claude := binaries(tb)
	root := tb.TempDir()
	p := &testProject{dir: filepath.Join(root, "project"), fake: filepath.Join(root, "fake")}
	wf := filepath.Join(p.dir, "workflows", "load")
	for _, d := range []string{filepath.Join(p.dir, ".raymond"), wf, p.fake, filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	for name, text := range workflowFiles {
		if err := os.WriteFile(filepath.Join(wf, name), []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(p.fake, "script.yaml"), []byte(fakeScript(delays)), 0o644); err != nil {
		tb.Fatal(err)
	}
	p.env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(root, "home"),
		"RAYMOND_CLAUDE=" + claude,
		"FAKE_CLAUDE_DIR=" + p.fake,
		"CLAUDE_CONFIG_DIR=" + p.fake,
		"NO_COLOR=1",
	}
	return p
}

// store opens the project's run store, for reading state files as the
// daemon left them.
func (p *testProject) store(tb testing.TB) *state.Store {
	tb.Helper()
	pr, err := project.Open(p.dir)
	if err != nil {
		tb.Fatal(err)
	}
	return pr.Store
}

// paidCalls counts the fake's calls that returned a result line: the steps
// an account would have paid for. A call killed before its result costs
// nothing.
func (p *testProject) paidCalls(tb testing.TB) int {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(p.fake, "calls.jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	n := 0
	for line := range bytes.Lines(data) {
		var c struct {
			Cost float64 `json:"cost"`
		}
		if err := json.Unmarshal(line, &c); err != nil {
			tb.Fatalf("calls.jsonl: %v", err)
		}
		if c.Cost > 0 {
			n++
		}
	}
	return n
}

// checkRun checks that a run completed as an uninterrupted run does, from
// its state file: main's result, every worker reported, 22 steps.
func checkRun(r *state.Run) error {
	if r.Status != state.StatusCompleted {
		return fmt.Errorf("run %s: status %s (error %q), want completed", r.WorkflowID, r.Status, r.Error)
	}
	if r.Result == nil || *r.Result != wantResult {
		return fmt.Errorf("run %s: result %v, want %q", r.WorkflowID, r.Result, wantResult)
	}
	if len(r.Agents) != 1+workers {
		return fmt.Errorf("run %s: %d agents, want %d", r.WorkflowID, len(r.Agents), 1+workers)
	}
	for _, a := range r.Agents {
		if a.ID == "main" {
			continue
		}
		if a.Status != state.AgentCompleted || a.Result == nil || *a.Result != "reported" {
			return fmt.Errorf("run %s: agent %s is %s with result %v, want completed with \"reported\"", r.WorkflowID, a.ID, a.Status, a.Result)
		}
	}
	return nil
}
