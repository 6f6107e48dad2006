package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"raymond/daemon"
	"raymond/orchestrator"
)

// hello is a workflow of two states that completes.
var hello = states{
	"START.md": "Say hello, then go on.\n",
	"END.md":   "Finish.\n",
}

const helloReplies = `replies:
  START.md:
    - text: "Hello. <goto>END.md</goto>"
      cost: 0.01
      say: ["Thinking about hello…"]
  END.md:
    - text: "<result>done</result>"
      cost: 0.02
`

func TestLaunchRunCompletes(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	var wfs struct {
		Workflows []struct {
			ID string `json:"id"`
		} `json:"workflows"`
	}
	e.call(request{method: "GET", path: "/api/v1/workflows"}, http.StatusOK, &wfs)
	if len(wfs.Workflows) != 1 || wfs.Workflows[0].ID != "hello" {
		t.Errorf("GET /workflows: %+v", wfs.Workflows)
	}
	id := e.launch("hello")
	d := e.waitStatus(id, "completed")
	if d.Result == nil || *d.Result != "done" {
		t.Errorf("result %v, want done", d.Result)
	}
	if d.TotalCostUSD < 0.0299 || d.TotalCostUSD > 0.0301 {
		t.Errorf("total cost %v, want 0.03", d.TotalCostUSD)
	}
	e.waitList("?status=completed&workflow=hello", "the run, completed", func(l []listing) bool {
		return len(l) == 1 && l[0].RunID == id
	})
	if l := e.runs("?status=running"); len(l) != 0 {
		t.Errorf("GET /runs?status=running: %+v", l)
	}
	// The daemon answers for its gate and its runs.
	var st struct {
		Project  string `json:"project"`
		MaxSteps int    `json:"max_steps"`
	}
	e.call(request{method: "GET", path: "/api/v1/daemon"}, http.StatusOK, &st)
	if st.Project != e.dir || st.MaxSteps != 8 {
		t.Errorf("GET /daemon: %+v", st)
	}
}

func TestLaunchWithBudgetAndModel(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	var d struct {
		detail
		Options struct {
			Model string `json:"model"`
		} `json:"options"`
	}
	e.call(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "input": "x", "budget": 2.5, "model": "sonnet"}`}, http.StatusCreated, &d)
	if d.BudgetUSD != 2.5 || d.Options.Model != "sonnet" {
		t.Errorf("budget %v model %q, want 2.5 and sonnet", d.BudgetUSD, d.Options.Model)
	}
	e.waitStatus(d.WorkflowID, "completed")
}

// gated is a workflow whose first step waits for the file "release" in the
// project folder's replies folder before it answers.
var gated = states{
	"START.md": "Wait, then go on.\n",
	"END.md":   "Finish.\n",
}

const gatedReplies = `replies:
  START.md:
    - text: "Released. <goto>END.md</goto>"
      wait_for: release
      cost: 0.01
  END.md:
    - text: "<result>done</result>"
`

// release lets the steps of a gated workflow go on.
func (e *env) release() {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(filepath.Dir(e.replies), "release"), nil, 0o644); err != nil {
		e.t.Fatal(err)
	}
}

func TestPauseResumeDelete(t *testing.T) {
	e := newEnv(t, gatedReplies, map[string]states{"gated": gated})
	id := e.launch("gated")
	e.waitStep(id)

	// Only ended runs are deleted.
	before := e.snapshot()
	var er errorBody
	e.call(request{method: "DELETE", path: "/api/v1/runs/" + id}, http.StatusConflict, &er)
	er.check(t, "conflict")
	// Resuming a run the daemon drives is a conflict too.
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, http.StatusConflict, &er)
	er.check(t, "conflict")
	sameFiles(t, before, e.snapshot(), "refused DELETE and resume")

	var d detail
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusAccepted, &d)
	if d.WorkflowID != id {
		t.Errorf("pause answered run %q", d.WorkflowID)
	}
	e.release() // the step in flight finishes, no new one starts
	d = e.waitStatus(id, "paused")
	if d.Agents[0].CurrentState != "END.md" {
		t.Errorf("paused at %s, want END.md", d.Agents[0].CurrentState)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusConflict, &er)
	er.check(t, "conflict")
	e.call(request{method: "DELETE", path: "/api/v1/runs/" + id}, http.StatusConflict, &er)
	er.check(t, "conflict")

	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume", body: `{"budget": 5}`}, http.StatusAccepted, &d)
	d = e.waitStatus(id, "completed")
	if d.BudgetUSD != 5 {
		t.Errorf("budget after resume %v, want 5", d.BudgetUSD)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, http.StatusConflict, &er)
	er.check(t, "conflict")

	resp, _ := e.do(request{method: "DELETE", path: "/api/v1/runs/" + id})
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE of a completed run: %d", resp.StatusCode)
	}
	e.call(request{method: "GET", path: "/api/v1/runs/" + id}, http.StatusNotFound, &er)
	er.check(t, "not_found")
	if _, err := os.Stat(filepath.Join(e.dir, ".raymond", "debug", id)); !os.IsNotExist(err) {
		t.Errorf("the transcript folder is still there: %v", err)
	}
	e.waitList("", "without the run", func(l []listing) bool { return len(l) == 0 })
}

// asking is a workflow whose first state asks a person.
var asking = states{
	"START.md": "Ask.\n",
	"END.md":   "Use {{input}}.\n",
	"LATE.md":  "Nobody answered.\n",
}

const askingReplies = `replies:
  START.md:
    - '<ask next="END.md">Which colour?</ask>'
  END.md:
    - text: "<result>colour {{input}}</result>"
  LATE.md:
    - text: "<result>late: {{input}}</result>"
`

func TestAskAnswered(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	id := e.launch("asking")
	asks := e.waitAsks("the run's ask", func(a []pendingAsk) bool { return len(a) == 1 })
	k := asks[0]
	if k.RunID != id || k.AgentID != "main" || k.Prompt != "Which colour?" || k.Deadline != nil {
		t.Errorf("GET /asks: %+v", k)
	}
	d := e.get(id)
	if len(d.Asks) != 1 || d.Asks[0].AskID != k.AskID {
		t.Errorf("the run's asks: %+v", d.Asks)
	}

	var er errorBody
	before := e.snapshot()
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/ask_nobody_9", body: `{"answer": "red"}`}, http.StatusNotFound, &er)
	er.check(t, "not_found")
	e.call(request{method: "POST", path: "/api/v1/runs/20200101-000000-000000-abcdef/asks/" + k.AskID, body: `{"answer": "red"}`}, http.StatusNotFound, &er)
	er.check(t, "not_found")
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{}`}, http.StatusBadRequest, &er)
	er.check(t, "answer_missing")
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "re\u0000d"}`}, http.StatusBadRequest, &er)
	er.check(t, "bad_answer")
	sameFiles(t, before, e.snapshot(), "answers refused")

	var ok struct {
		AskID    string `json:"ask_id"`
		Accepted bool   `json:"accepted"`
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "blue"}`}, http.StatusOK, &ok)
	if ok.AskID != k.AskID || !ok.Accepted {
		t.Errorf("answer: %+v", ok)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "green"}`}, http.StatusConflict, &er)
	er.check(t, "conflict")

	d = e.waitStatus(id, "completed")
	if d.Result == nil || *d.Result != "colour blue" {
		t.Errorf("result %v, want colour blue", d.Result)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "green"}`}, http.StatusConflict, &er)
	er.check(t, "conflict")
	e.waitAsks("empty", func(a []pendingAsk) bool { return len(a) == 0 })
}

func TestAskExpired(t *testing.T) {
	replies := strings.Replace(askingReplies, `<ask next="END.md">`, `<ask next="END.md" timeout="1h" timeout_next="LATE.md">`, 1)
	// On an instant clock the hour passes at once.
	e := newEnvClock(t, replies, map[string]states{"asking": asking}, &orchestrator.InstantClock{})
	id := e.launch("asking")
	d := e.waitStatus(id, "completed")
	if d.Result == nil || !strings.HasPrefix(*d.Result, "late: ") {
		t.Errorf("result %v, want late: …", d.Result)
	}
	var full struct {
		Agents []struct {
			Ask *struct {
				ID      string `json:"ask_id"`
				Expired bool   `json:"expired"`
			} `json:"ask"`
		} `json:"agents"`
	}
	e.call(request{method: "GET", path: "/api/v1/runs/" + id}, http.StatusOK, &full)
	askID := "ask_main_1"
	if a := full.Agents[0].Ask; a != nil {
		askID = a.ID
	}
	before := e.snapshot()
	var er errorBody
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + askID, body: `{"answer": "blue"}`}, http.StatusConflict, &er)
	er.check(t, "conflict")
	sameFiles(t, before, e.snapshot(), "an answer after the deadline")
}

// errorBody is the one shape of every error.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func (b errorBody) check(t *testing.T, code string) {
	t.Helper()
	if b.Error.Code != code || b.Error.Message == "" {
		t.Errorf("error %+v, want code %s with a message", b.Error, code)
	}
}

// sameFiles fails when the .raymond folder changed between two snapshots.
func sameFiles(t *testing.T, before, after map[string]string, what string) {
	t.Helper()
	for path, data := range before {
		if got, ok := after[path]; !ok {
			t.Errorf("%s removed %s", what, path)
		} else if got != data {
			t.Errorf("%s changed %s", what, path)
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok {
			t.Errorf("%s made %s", what, path)
		}
	}
}

// decodeJSON decodes data or fails.
func decodeJSON(t *testing.T, data string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(data), v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
}

// An ask outlives a pause: answered while nobody drives the run, the answer
// is recorded and the run driven again.
func TestAskAnsweredAfterPause(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	id := e.launch("asking")
	k := e.waitAsks("the ask", func(a []pendingAsk) bool { return len(a) == 1 })[0]
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusAccepted, nil)
	e.waitFor(id, "parked", func(d detail) bool { return d.DrivenBy == nil && !e.d.Driving(id) })
	if d := e.get(id); len(d.Asks) != 1 {
		t.Fatalf("after the pause the run's asks are %+v (status %s)", d.Asks, d.Status)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "green"}`}, http.StatusOK, nil)
	d := e.waitStatus(id, "completed")
	if d.Result == nil || *d.Result != "colour green" {
		t.Errorf("result %v, want colour green", d.Result)
	}
}

// An ask outlives a pause and a resume: the drive that resumes the run
// takes its answer.
func TestAskAnsweredAfterResume(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	id := e.launch("asking")
	k := e.waitAsks("the ask", func(a []pendingAsk) bool { return len(a) == 1 })[0]
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusAccepted, nil)
	e.waitFor(id, "parked", func(d detail) bool { return d.DrivenBy == nil && !e.d.Driving(id) })
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, http.StatusAccepted, nil)
	e.waitFor(id, "driven again", func(d detail) bool { return d.DrivenBy != nil })
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "green"}`}, http.StatusOK, nil)
	d := e.waitStatus(id, "completed")
	if d.Result == nil || *d.Result != "colour green" {
		t.Errorf("result %v, want colour green", d.Result)
	}
}

// A usage limit holds the gate (GET /daemon says until when) and the run
// waits; a pause ends the wait.
func TestPauseWhileWaiting(t *testing.T) {
	replies := `replies:
  START.md:
    - outcome: usage_limit
      reset: 1h
    - "<goto>END.md</goto>"
  END.md:
    - "<result>done</result>"
`
	e := newEnv(t, replies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitFor(id, "waiting", func(d detail) bool { return d.Status == "waiting" })
	var st struct {
		UsageLimit *string `json:"usage_limit_until"`
		HeldUntil  *string `json:"held_until"`
	}
	e.call(request{method: "GET", path: "/api/v1/daemon"}, http.StatusOK, &st)
	if st.UsageLimit == nil || st.HeldUntil == nil {
		t.Errorf("GET /daemon during a usage limit: %+v", st)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusAccepted, nil)
	d := e.waitStatus(id, "paused")
	if d.Agents[0].CurrentState != "START.md" {
		t.Errorf("paused at %s", d.Agents[0].CurrentState)
	}
}

// Two answers to one ask at once: one is taken, the other refused.
func TestAnswersAtOnce(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	id := e.launch("asking")
	k := e.waitAsks("the ask", func(a []pendingAsk) bool { return len(a) == 1 })[0]
	const n = 8
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest("POST", e.ts.URL+"/api/v1/runs/"+id+"/asks/"+k.AskID, strings.NewReader(fmt.Sprintf(`{"answer": "c%d"}`, i)))
			req.Header.Set("Authorization", "Bearer "+testToken)
			req.Header.Set("Content-Type", "application/json")
			resp, err := e.ts.Client().Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	wg.Wait()
	close(codes)
	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	if count[http.StatusOK] != 1 || count[http.StatusConflict] != n-1 {
		t.Errorf("statuses %v, want one 200 and %d 409", count, n-1)
	}
	d := e.waitStatus(id, "completed")
	if d.Result == nil || !strings.HasPrefix(*d.Result, "colour c") {
		t.Errorf("result %v", d.Result)
	}
}

// A run over its budget resumes only with a budget above what it cost.
func TestResumeOverBudget(t *testing.T) {
	replies := `replies:
  START.md:
    - text: "<goto>END.md</goto>"
      cost: 1
      repeat: true
  END.md:
    - "<result>done</result>"
`
	e := newEnv(t, replies, map[string]states{"hello": hello})
	var d detail
	e.call(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello", "budget": 0.5}`}, http.StatusCreated, &d)
	id := d.WorkflowID
	e.waitStatus(id, "budget_exceeded")
	before := e.snapshot()
	var er errorBody
	for _, body := range []string{``, `{"budget": 0.75}`} {
		e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume", body: body}, http.StatusConflict, &er)
		er.check(t, "conflict")
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume", body: `{"budget": -2}`}, http.StatusBadRequest, &er)
	er.check(t, "bad_option")
	sameFiles(t, before, e.snapshot(), "refused resumes")
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume", body: `{"budget": 3}`}, http.StatusAccepted, nil)
	d = e.waitStatus(id, "completed")
	if d.BudgetUSD != 3 || d.Result == nil {
		t.Errorf("after the resume: budget %v result %v", d.BudgetUSD, d.Result)
	}
}

// A stopping daemon starts nothing.
func TestLaunchWhileStopping(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	e.d.Shutdown(context.Background())
	before := e.snapshot()
	var er errorBody
	e.call(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"}`}, http.StatusServiceUnavailable, &er)
	er.check(t, "stopping")
	sameFiles(t, before, e.snapshot(), "a launch while stopping")
	// The health check says so, for a proxy or a monitor.
	e.call(request{method: "GET", path: "/healthz", noToken: true}, http.StatusServiceUnavailable, &er)
	er.check(t, "stopping")
}

func TestMetrics(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	e.waitList("", "completed", func(l []listing) bool { return len(l) == 1 && l[0].Status == "completed" })
	resp, body := e.do(request{method: "GET", path: "/metrics"})
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		`raymond_steps_total{outcome="succeeded"} 2`,
		`raymond_cost_usd_total 0.03`,
		`raymond_runs{status="completed"} 1`,
		`raymond_runs{status="running"} 0`,
		`raymond_step_duration_seconds_count 2`,
		`raymond_runs_driven 0`,
		`raymond_asks_pending 0`,
	} {
		if !strings.Contains(string(body), want+"\n") {
			t.Errorf("/metrics has no line %q", want)
		}
	}
}

// A pause does not wait for a hold of the gate to end: the run's step
// waiting for a slot (here until midnight, the daily cap reached) leaves
// the queue, and runs when the run is resumed.
func TestPauseWhileHeldAtTheGate(t *testing.T) {
	e := newEnvTuned(t, helloReplies, map[string]states{"hello": hello}, func(c *daemon.Config) { c.DailyCapUSD = 0.01 }) // START spends it all
	id := e.launch("hello")
	e.waitFor(id, "at END", func(d detail) bool { return d.Agents[0].CurrentState == "END.md" })
	st := e.waitGate(1)
	if st.HeldUntil == nil {
		t.Errorf("the daily cap is reached but the gate is not held: %+v", st)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusAccepted, nil)
	d := e.waitStatus(id, "paused")
	if a := d.Agents[0]; a.CurrentState != "END.md" || a.Status == "failed" {
		t.Errorf("paused with its agent %+v", a)
	}
	if st := e.daemonStatus(); st.Waiting != 0 {
		t.Errorf("after the pause %d steps still wait at the gate", st.Waiting)
	}
}

// POST /runs/{id}/cancel stops a running run for good: its step in
// flight is killed and never released, the run ends failed as cancelled,
// and a second cancel is a conflict.
func TestCancelRun(t *testing.T) {
	e := newEnv(t, gatedReplies, map[string]states{"gated": gated})
	id := e.launch("gated")
	e.waitStep(id)
	var d detail
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/cancel"}, http.StatusAccepted, &d)
	if d.WorkflowID != id {
		t.Errorf("cancel answered run %q", d.WorkflowID)
	}
	e.waitStatus(id, "failed")
	var got struct {
		Error  string `json:"error"`
		Agents []struct {
			LastError string `json:"last_error"`
		} `json:"agents"`
	}
	e.call(request{method: "GET", path: "/api/v1/runs/" + id}, http.StatusOK, &got)
	if got.Error != "cancelled from the daemon" || len(got.Agents) != 1 || got.Agents[0].LastError != "cancelled from the daemon" {
		t.Errorf("cancelled run: %+v", got)
	}
	var er errorBody
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/cancel"}, http.StatusConflict, &er)
	er.check(t, "conflict")
	e.call(request{method: "POST", path: "/api/v1/runs/nosuch/cancel"}, http.StatusNotFound, &er)
}
