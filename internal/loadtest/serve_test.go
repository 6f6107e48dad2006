package loadtest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// daemonProc is a `raymond serve` subprocess.
type daemonProc struct {
	tb     testing.TB
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	token  string
	exited chan struct{}
	client *http.Client
}

var pageLine = regexp.MustCompile(`page:\s+(http://127\.0\.0\.1:\d+)/#token=([0-9a-f]+)`)

// startDaemon starts raymond serve on a free loopback port and waits for
// the line that gives its page's address.
func startDaemon(tb testing.TB, p *testProject, args ...string) *daemonProc {
	tb.Helper()
	raymond, _ := binaries(tb)
	logf, err := os.OpenFile(filepath.Join(p.dir, "..", "serve.log"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		logf.Close()
		if tb.Failed() {
			data, _ := os.ReadFile(logf.Name())
			if len(data) > 8000 {
				data = data[len(data)-8000:]
			}
			tb.Logf("the end of raymond serve's log:\n%s", data)
		}
	})
	page := make(chan []string, 1)
	cmd := exec.Command(raymond, append([]string{"serve", "--project", p.dir, "--addr", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stderr = &lineWriter{w: logf, line: func(l []byte) {
		if m := pageLine.FindSubmatch(l); m != nil {
			select {
			case page <- []string{string(m[1]), string(m[2])}:
			default:
			}
		}
	}}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	d := &daemonProc{tb: tb, cmd: cmd, exited: make(chan struct{}),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}}
	go func() {
		_ = cmd.Wait()
		close(d.exited)
	}()
	tb.Cleanup(d.kill)
	select {
	case m := <-page:
		d.base, d.token = m[0], m[1]
	case <-d.exited:
		tb.Fatalf("raymond serve exited at start: %v; see %s", cmd.ProcessState, logf.Name())
	case <-time.After(30 * time.Second):
		tb.Fatalf("raymond serve printed no page address in 30 s; see %s", logf.Name())
	}
	return d
}

// kill sends SIGKILL and waits for the process to end.
func (d *daemonProc) kill() {
	select {
	case <-d.exited:
		return
	default:
	}
	_ = d.cmd.Process.Signal(syscall.SIGKILL)
	<-d.exited
	d.client.CloseIdleConnections()
}

// stop asks the daemon to stop (SIGTERM) and waits for it, killing it
// after a while.
func (d *daemonProc) stop() {
	_ = d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(30 * time.Second):
		d.tb.Errorf("raymond serve did not stop within 30 s of SIGTERM; killing it")
		d.kill()
	}
	d.client.CloseIdleConnections()
}

// peakRSS is the daemon's peak resident set (VmHWM) in bytes.
func (d *daemonProc) peakRSS() (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", d.cmd.Process.Pid)
}

// cpu returns the CPU time the daemon has used itself, and that of the
// children it has waited for (the fake claudes), from /proc/PID/stat.
func (d *daemonProc) cpu() (self, children time.Duration, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", d.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after the command name, which is in parentheses: state
	// is field 3, utime 14, stime 15, cutime 16, cstime 17.
	_, rest, _ := bytes.Cut(data, []byte(") "))
	f := strings.Fields(string(rest))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: too few fields", d.cmd.Process.Pid)
	}
	ticks := func(i int) time.Duration {
		n, _ := strconv.ParseInt(f[i-3], 10, 64)
		return time.Duration(n) * time.Second / 100 // USER_HZ is 100 on Linux
	}
	return ticks(14) + ticks(15), ticks(16) + ticks(17), nil
}

// request sends an API request with the token; body and out may be nil.
func (d *daemonProc) request(ctx context.Context, method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, d.base+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+d.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// launch starts a run of the workflow "load" and returns its id.
func (d *daemonProc) launch(ctx context.Context) (string, error) {
	var run struct {
		ID string `json:"workflow_id"`
	}
	if _, err := d.request(ctx, http.MethodPost, "/api/v1/runs", map[string]string{"workflow": "load"}, &run); err != nil {
		return "", err
	}
	if run.ID == "" {
		return "", fmt.Errorf("POST /api/v1/runs answered no run id")
	}
	return run.ID, nil
}

// launchAll launches n runs at once.
func (d *daemonProc) launchAll(ctx context.Context, n int) ([]string, error) {
	ids := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { ids[i], errs[i] = d.launch(ctx) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// waitEnded polls GET /api/v1/runs until every run of ids has ended and
// the daemon drives none of them, or the deadline passes.
func (d *daemonProc) waitEnded(ctx context.Context, ids []string, every time.Duration) error {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		var list struct {
			Runs []project.Listing `json:"runs"`
		}
		if _, err := d.request(ctx, http.MethodGet, "/api/v1/runs", nil, &list); err != nil {
			return err
		}
		left := 0
		for _, l := range list.Runs {
			if want[l.RunID] && (!project.Ended(l.Status) || l.DrivenBy != nil) {
				left++
			}
		}
		if left == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d runs have not ended: %w", left, len(ids), ctx.Err())
		case <-d.exited:
			return fmt.Errorf("raymond serve exited with %d runs left: %v", left, d.cmd.ProcessState)
		case <-tick.C:
		}
	}
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

// lineWriter hands each complete line written to it to line, and copies
// everything to w.
type lineWriter struct {
	w    io.Writer
	line func([]byte)
	buf  []byte
}

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.buf = append(lw.buf, p...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			break
		}
		lw.line(lw.buf[:i])
		lw.buf = lw.buf[i+1:]
	}
	return lw.w.Write(p)
}

// sseEvent is one server-sent event.
type sseEvent struct {
	id, typ string
}

// readSSE reads events from r and hands each to fn until r ends, fn says
// stop, or a read fails.
func readSSE(r io.Reader, fn func(sseEvent) bool) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev.typ != "" || ev.id != "" {
				if !fn(ev) {
					return nil
				}
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.typ = line[7:]
		}
	}
	return sc.Err()
}
