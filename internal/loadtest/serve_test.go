package loadtest

import (
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

	"raymond/daemon"
	"raymond/project"
)

// daemonProc is a `raymond serve` subprocess.
type daemonProc struct {
	tb     testing.TB
	cmd    *exec.Cmd
	base   string // http://127.0.0.1:PORT
	token  string
	exited chan struct{}
	client *http.Client
}

var pageLine = regexp.MustCompile(`page:\s+(http://127\.0\.0\.1:\d+)/`)

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
	argv := append([]string{raymond, "serve", "--project", p.dir, "--addr", "127.0.0.1:0", "--log-format", "json"}, args...)
	if p.nofile > 0 {
		// As an operator's `ulimit -n` does: the shell execs raymond.
		argv = append([]string{"sh", "-c", fmt.Sprintf(`ulimit -n %d && exec "$@"`, p.nofile), "sh"}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.dir
	cmd.Env = p.env
	cmd.Stderr = &lineWriter{w: logf, line: func(l []byte) {
		if m := pageLine.FindSubmatch(l); m != nil {
			select {
			case page <- []string{string(m[1])}:
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
		// The daemon never prints its token: it is in the file.
		token, err := daemon.ReadToken(filepath.Join(p.dir, ".raymond"))
		if err != nil {
			tb.Fatal(err)
		}
		d.base, d.token = m[0], token
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
