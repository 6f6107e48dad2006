package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"raymond/catalog"
	"raymond/daemon"
	"raymond/orchestrator"
	"raymond/project"
	"raymond/script"
	"raymond/scripted"
)

// testToken is the bearer token of every test server.
const testToken = "test-token-0123456789abcdef"

// fakeCatalog is the workflows a test server offers.
type fakeCatalog struct {
	mu  sync.Mutex
	wfs []catalog.Workflow
	ch  chan struct{}
}

func (c *fakeCatalog) List() []catalog.Workflow {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]catalog.Workflow(nil), c.wfs...)
}

func (c *fakeCatalog) Get(id string) (catalog.Workflow, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.wfs {
		if w.ID == id {
			return w, true
		}
	}
	return catalog.Workflow{}, false
}

func (c *fakeCatalog) Changed() <-chan struct{} { return c.ch }

// env is a daemon on a temporary project behind a real loopback server.
type env struct {
	t       *testing.T
	tune    func(*daemon.Config)      // changes the daemon's config, when not nil
	stop    func(ctx context.Context) // ends the server and the daemon
	dir     string                    // the project folder
	wfDir   string                    // where the test's workflows are
	d       *daemon.Daemon
	srv     *Server
	ts      *httptest.Server
	cat     *fakeCatalog
	replies string
}

// start opens the daemon on the project and puts a server in front of it.
func (e *env) start() {
	t := e.t
	t.Helper()
	runner, err := scripted.Load(e.replies)
	if err != nil {
		t.Fatal(err)
	}
	p, err := project.Open(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Init(); err != nil {
		t.Fatal(err)
	}
	cfg := daemon.Config{Project: p, Runner: runner, Scripts: runner.Scripts(&script.Runner{})}
	if e.tune != nil {
		e.tune(&cfg)
	}
	e.d, err = daemon.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		_ = e.d.Watch(ctx)
	}()
	e.srv = New(Config{Daemon: e.d, Workflows: e.cat, Token: testToken, Version: "test", Metrics: NewMetrics(e.d)})
	e.ts = httptest.NewServer(e.srv)
	d, ts := e.d, e.ts
	stopped := false
	e.stop = func(ctx context.Context) {
		if stopped {
			return
		}
		stopped = true
		ts.CloseClientConnections()
		ts.Close()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		d.Shutdown(sctx)
		stopWatch()
		<-watched
		_ = d.Close()
	}
}

// restart stops the daemon as raymond serve does at a signal (ctx ending
// kills the steps in flight), starts another on the project and recovers.
func (e *env) restart(ctx context.Context) daemon.Recovered {
	e.t.Helper()
	e.stop(ctx)
	e.start()
	return e.d.Recover()
}

// states is a workflow: file name → content.
type states map[string]string

// newEnv starts a server whose catalog holds the workflows given (id →
// states), whose steps are answered by the replies file's YAML.
func newEnv(t *testing.T, replies string, workflows map[string]states) *env {
	t.Helper()
	return newEnvClock(t, replies, workflows, nil)
}

// newEnvClock is newEnv with the daemon on clock (nil: the real one).
func newEnvClock(t *testing.T, replies string, workflows map[string]states, clock orchestrator.Clock) *env {
	t.Helper()
	return newEnvTuned(t, replies, workflows, func(c *daemon.Config) { c.Clock = clock })
}

// newEnvTuned is newEnv with the daemon's config changed by tune.
func newEnvTuned(t *testing.T, replies string, workflows map[string]states, tune func(*daemon.Config)) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, dir: dir, wfDir: filepath.Join(dir, "workflows"), cat: &fakeCatalog{ch: make(chan struct{})}}
	if err := os.MkdirAll(filepath.Join(dir, ".raymond"), 0o755); err != nil {
		t.Fatal(err)
	}
	for id, files := range workflows {
		folder := filepath.Join(e.wfDir, id)
		if err := os.MkdirAll(folder, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(folder, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		e.cat.wfs = append(e.cat.wfs, catalog.Workflow{ID: id, Path: folder, Kind: "folder", Name: id,
			Entry: "START.md", Input: catalog.Input{Mode: "optional"}, RequiresHumanInput: "auto", Usable: true,
			Errors: nil})
	}
	e.replies = filepath.Join(dir, "replies.yaml")
	if err := os.WriteFile(e.replies, []byte(replies), 0o644); err != nil {
		t.Fatal(err)
	}
	e.tune = tune
	e.start()
	t.Cleanup(func() { e.stop(context.Background()) })
	return e
}

// request is one API call.
type request struct {
	method, path string
	body         string
	header       map[string]string
	noToken      bool
}

// do sends a request and returns the answer with its body read.
func (e *env) do(r request) (*http.Response, []byte) {
	e.t.Helper()
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	req, err := http.NewRequest(r.method, e.ts.URL+r.path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	if r.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if !r.noToken {
		req.Header.Set("Authorization", "Bearer "+testToken)
	}
	for k, v := range r.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	noCORS(e.t, resp)
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return resp, data
}

// noCORS fails when an answer carries a CORS header: no other site may
// read what the daemon says.
func noCORS(t *testing.T, resp *http.Response) {
	t.Helper()
	for k := range resp.Header {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			t.Errorf("%s %s: the answer has the header %s: %s", resp.Request.Method, resp.Request.URL.Path, k, resp.Header.Get(k))
		}
	}
}

// call sends a request, checks its status and decodes its JSON body into out
// (when not nil).
func (e *env) call(r request, status int, out any) *http.Response {
	e.t.Helper()
	resp, data := e.do(r)
	if resp.StatusCode != status {
		e.t.Fatalf("%s %s: status %d, want %d; body %s", r.method, r.path, resp.StatusCode, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			e.t.Fatalf("%s %s: %v; body %s", r.method, r.path, err, data)
		}
	}
	return resp
}

// detail is the part of a RunDetail the tests read.
type detail struct {
	WorkflowID   string  `json:"workflow_id"`
	Status       string  `json:"status"`
	Result       *string `json:"result"`
	TotalCostUSD float64 `json:"total_cost_usd"`
	BudgetUSD    float64 `json:"budget_usd"`
	DrivenBy     *int    `json:"driven_by"`
	Agents       []struct {
		ID           string `json:"id"`
		CurrentState string `json:"current_state"`
		Status       string `json:"status"`
	} `json:"agents"`
	Asks []pendingAsk `json:"asks"`
}

type pendingAsk struct {
	RunID    string  `json:"run_id"`
	AskID    string  `json:"ask_id"`
	AgentID  string  `json:"agent_id"`
	Prompt   string  `json:"prompt"`
	Deadline *string `json:"deadline"`
}

// launch starts a run of workflow wf and returns its id.
func (e *env) launch(wf string) string {
	e.t.Helper()
	var d detail
	resp := e.call(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "` + wf + `"}`}, http.StatusCreated, &d)
	if d.WorkflowID == "" {
		e.t.Fatalf("launch %s: no workflow_id in the answer", wf)
	}
	if loc := resp.Header.Get("Location"); loc != "/api/v1/runs/"+d.WorkflowID {
		e.t.Errorf("launch %s: Location %q", wf, loc)
	}
	return d.WorkflowID
}

// get reads run id.
func (e *env) get(id string) detail {
	e.t.Helper()
	var d detail
	e.call(request{method: "GET", path: "/api/v1/runs/" + id}, http.StatusOK, &d)
	return d
}

// waitFor polls run id until cond holds, for at most a while.
func (e *env) waitFor(id, what string, cond func(detail) bool) detail {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := e.get(id)
		if cond(d) {
			return d
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("run %s: still not %s: status %s, agents %+v", id, what, d.Status, d.Agents)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not a wait for an event
	}
}

// waitStatus waits until run id has status and nobody drives it any more
// (for an ended status) or just the status.
func (e *env) waitStatus(id, status string) detail {
	e.t.Helper()
	return e.waitFor(id, status, func(d detail) bool {
		if d.Status != status {
			return false
		}
		switch status {
		case "completed", "failed", "budget_exceeded", "paused":
			return d.DrivenBy == nil && !e.d.Driving(id)
		}
		return true
	})
}

// runs lists the runs of GET /api/v1/runs with the query given.
func (e *env) runs(query string) []listing {
	e.t.Helper()
	var out struct {
		Runs []listing `json:"runs"`
	}
	e.call(request{method: "GET", path: "/api/v1/runs" + query}, http.StatusOK, &out)
	return out.Runs
}

type listing struct {
	RunID  string `json:"run_id"`
	Status string `json:"status"`
}

// waitList polls GET /api/v1/runs (which follows the state folder a moment
// behind) until cond holds.
func (e *env) waitList(query, what string, cond func([]listing) bool) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l := e.runs(query)
		if cond(l) {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("GET /api/v1/runs%s: still not %s: %+v", query, what, l)
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}

// asks polls GET /api/v1/asks until cond holds.
func (e *env) waitAsks(what string, cond func([]pendingAsk) bool) []pendingAsk {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var out struct {
			Asks []pendingAsk `json:"asks"`
		}
		e.call(request{method: "GET", path: "/api/v1/asks"}, http.StatusOK, &out)
		if cond(out.Asks) {
			return out.Asks
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("GET /api/v1/asks: still not %s: %+v", what, out.Asks)
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}

// gateStatus is the part of GET /api/v1/daemon the tests read.
type gateStatus struct {
	Running   int     `json:"steps_running"`
	Waiting   int     `json:"steps_waiting"`
	HeldUntil *string `json:"held_until"`
}

func (e *env) daemonStatus() gateStatus {
	e.t.Helper()
	var st gateStatus
	e.call(request{method: "GET", path: "/api/v1/daemon"}, http.StatusOK, &st)
	return st
}

// waitGate polls GET /api/v1/daemon until n steps wait at the gate (a
// step is announced before it reaches the gate).
func (e *env) waitGate(n int) gateStatus {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		st := e.daemonStatus()
		if st.Waiting == n {
			return st
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("GET /api/v1/daemon: %d steps wait at the gate, want %d", st.Waiting, n)
		}
		time.Sleep(10 * time.Millisecond) // polling interval
	}
}

// sseEvent is one server-sent event.
type sseEvent struct {
	ID, Event string
	Data      string
}

// sseStream reads the events of a stream as they come.
type sseStream struct {
	resp   *http.Response
	events chan sseEvent
	cancel context.CancelFunc
}

// follow opens an event stream; header is added to the request.
func (e *env) follow(path string, header map[string]string) *sseStream {
	e.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", e.ts.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		cancel()
		e.t.Fatalf("GET %s: status %d: %s", path, resp.StatusCode, data)
	}
	noCORS(e.t, resp)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		e.t.Errorf("GET %s: Content-Type %q", path, ct)
	}
	s := &sseStream{resp: resp, events: make(chan sseEvent, 1024), cancel: cancel}
	go func() {
		defer close(s.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev sseEvent
		var data bytes.Buffer
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Event != "" || data.Len() > 0 {
					ev.Data = data.String()
					s.events <- ev
				}
				ev, data = sseEvent{}, bytes.Buffer{}
			case strings.HasPrefix(line, ":"):
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.Event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				data.WriteString(strings.TrimPrefix(line, "data: "))
			}
		}
	}()
	e.t.Cleanup(s.close)
	return s
}

func (s *sseStream) close() {
	s.cancel()
	s.resp.Body.Close()
}

// until reads events until one satisfies stop, and returns all read; it
// fails the test when the stream ends or nothing comes for a long while.
func (s *sseStream) until(t *testing.T, stop func(sseEvent) bool) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("the stream ended before the event awaited; got %d events", len(got))
			}
			got = append(got, ev)
			if stop(ev) {
				return got
			}
		case <-timeout.C:
			t.Fatalf("no awaited event within 20s; got %v", got)
		}
	}
}

// rest reads every event until the server closes the stream.
func (s *sseStream) rest(t *testing.T) []sseEvent {
	t.Helper()
	var got []sseEvent
	timeout := time.NewTimer(20 * time.Second)
	defer timeout.Stop()
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return got
			}
			got = append(got, ev)
		case <-timeout.C:
			t.Fatalf("the stream did not end within 20s; got %v", got)
		}
	}
}

// waitStep waits until run id has started a step (of a gated workflow,
// which then waits for its release): its events file holds no more until
// then.
func (e *env) waitStep(id string) {
	e.t.Helper()
	s := e.follow("/api/v1/runs/"+id+"/events", nil)
	s.until(e.t, func(ev sseEvent) bool { return ev.Event == "step_started" })
	s.close()
}

// snapshot returns every file under the project's .raymond folder with its
// content, to tell that a request changed nothing. The files of a step in
// flight (its prompt and its stream, under debug/RUN/) are left out: the
// step writes them when it likes.
func (e *env) snapshot() map[string]string {
	e.t.Helper()
	out := make(map[string]string)
	root := filepath.Join(e.dir, ".raymond")
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[path] = "dir"
			return nil
		}
		if filepath.Base(filepath.Dir(filepath.Dir(path))) == "debug" && strings.HasPrefix(d.Name(), "main_") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[path] = string(data)
		return nil
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return out
}
