package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeAPI follows the HTTP contract of raymond serve (/api/v1) closely
// enough for the page's test: workflows, runs held in memory, asks, and
// event streams the test feeds through its methods.
type fakeAPI struct {
	t     testing.TB
	token string

	mu        sync.Mutex
	workflows []map[string]any
	runs      map[string]*fakeRun
	asks      []*fakeAsk
	daemon    map[string]any
	subs      map[chan fakeEvent]bool
	nextRun   int
	// refuseDelete has the next DELETE of a run refused with this message.
	refuseDelete string

	// What the page sent, for the test to check.
	launched chan map[string]any
	answers  chan string
	actions  chan string
	reports  chan string // paths of the reports the page loaded
	resumes  chan string // Last-Event-ID of each reconnection to a run's stream
}

type fakeRun struct {
	id, workflow, status string
	input                string
	scripted             bool
	cost, budget         float64
	created              time.Time
	agents               []map[string]any
	result               *string
	wait                 map[string]any
	events               []fakeEvent // persisted: id = index+1
	live                 int         // live events since the last persisted one
	subs                 map[chan fakeEvent]bool
}

type fakeAsk struct {
	runID, askID, agent, state, prompt string
	deadline                           time.Time
	expired                            bool
}

type fakeEvent struct {
	id, name string
	data     []byte
}

func newFakeAPI(t testing.TB, token string) *fakeAPI {
	return &fakeAPI{
		t:     t,
		token: token,
		workflows: []map[string]any{
			{
				"id": "review", "path": "/project/workflows/review", "kind": "folder",
				"name": "Code review", "description": "Reviews a branch and writes the findings.",
				"entry": "1_START.md", "default_budget": 1.0, "requires_human_input": "auto",
				"input":  map[string]any{"mode": "required", "label": "Branch", "description": "The branch to review."},
				"usable": true, "errors": []any{}, "warnings": 0,
			},
			{
				"id": "broken", "path": "/project/workflows/broken", "kind": "folder",
				"name": "Broken", "description": "Points at a state that does not exist.",
				"entry": "1_START.md", "default_budget": 0, "requires_human_input": "auto",
				"input":  map[string]any{"mode": "none"},
				"usable": false, "warnings": 0,
				"errors": []any{map[string]any{
					"id": "missing-target", "severity": "error", "file": "/project/workflows/broken/1_START.md",
					"line": 3, "column": 1, "message": "<goto>NOPE.md</goto> names a state that does not exist",
					"fix": "create NOPE.md or fix the tag",
				}},
			},
		},
		runs: map[string]*fakeRun{},
		daemon: map[string]any{
			"project": "/home/dev/project", "version": "test", "pid": 1, "max_steps": 8,
			"steps_running": 0, "steps_waiting": 0, "usage_limit_until": nil,
			"spend_today_usd": 0.0, "daily_cap_usd": 10.0, "held_until": nil,
		},
		subs:     map[chan fakeEvent]bool{},
		launched: make(chan map[string]any, 8),
		answers:  make(chan string, 8),
		actions:  make(chan string, 8),
		reports:  make(chan string, 8),
		resumes:  make(chan string, 8),
	}
}

func (f *fakeAPI) routes(mux *http.ServeMux) {
	h := func(pattern string, fn http.HandlerFunc) {
		mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+f.token {
				fakeError(w, http.StatusUnauthorized, "unauthorized", "missing or wrong token: send Authorization: Bearer with .raymond/serve.token")
				return
			}
			fn(w, r)
		}))
	}
	h("GET /api/v1/daemon", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		fakeJSON(w, http.StatusOK, f.daemon)
	})
	h("GET /api/v1/workflows", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		fakeJSON(w, http.StatusOK, map[string]any{"workflows": f.workflows})
	})
	h("GET /api/v1/runs", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		rows := []any{}
		for i := f.nextRun; i > 0; i-- {
			if run := f.runs[fakeRunID(i)]; run != nil {
				rows = append(rows, run.listing(f.pending(run.id)))
			}
		}
		fakeJSON(w, http.StatusOK, map[string]any{"runs": rows})
	})
	h("POST /api/v1/runs", f.launch)
	h("GET /api/v1/runs/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.withRun(w, r, func(run *fakeRun) { fakeJSON(w, http.StatusOK, f.detail(run)) })
	})
	h("POST /api/v1/runs/{id}/pause", func(w http.ResponseWriter, r *http.Request) {
		f.withRun(w, r, func(run *fakeRun) {
			f.actions <- "pause"
			fakeJSON(w, http.StatusAccepted, f.detail(run))
		})
	})
	h("POST /api/v1/runs/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		f.withRun(w, r, func(run *fakeRun) {
			f.actions <- "cancel"
			fakeJSON(w, http.StatusAccepted, f.detail(run))
		})
	})
	h("POST /api/v1/runs/{id}/resume", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Budget *float64 `json:"budget"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			fakeError(w, http.StatusBadRequest, "bad_json", "the body is not JSON: "+err.Error())
			return
		}
		f.withRun(w, r, func(run *fakeRun) {
			if body.Budget != nil {
				run.budget = *body.Budget
			}
			run.status = "running"
			for _, a := range run.agents {
				if a["status"] == "paused" {
					a["status"] = "running"
				}
			}
			f.broadcast("run", run.listing(f.pending(run.id)))
			f.actions <- fmt.Sprintf("resume %v", run.budget)
			fakeJSON(w, http.StatusAccepted, f.detail(run))
		})
	})
	h("DELETE /api/v1/runs/{id}", func(w http.ResponseWriter, r *http.Request) {
		f.withRun(w, r, func(run *fakeRun) {
			if run.status != "completed" && run.status != "failed" {
				fakeError(w, http.StatusConflict, "run_not_finished", "the run is "+run.status+": pause it and wait, then delete")
				return
			}
			if msg := f.refuseDelete; msg != "" {
				f.refuseDelete = ""
				f.actions <- "delete refused"
				fakeError(w, http.StatusConflict, "run_busy", msg)
				return
			}
			delete(f.runs, run.id)
			f.broadcast("run_removed", map[string]any{"run_id": run.id})
			f.actions <- "delete"
			w.WriteHeader(http.StatusNoContent)
		})
	})
	h("GET /api/v1/runs/{id}/events", f.runEvents)
	h("GET /api/v1/asks", func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		defer f.mu.Unlock()
		fakeJSON(w, http.StatusOK, f.asksJSON())
	})
	h("POST /api/v1/runs/{id}/asks/{ask}", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Answer string `json:"answer"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			fakeError(w, http.StatusBadRequest, "bad_json", "the body is not JSON: "+err.Error())
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		for i, a := range f.asks {
			if a.runID != r.PathValue("id") || a.askID != r.PathValue("ask") {
				continue
			}
			if a.expired {
				fakeError(w, http.StatusConflict, "ask_closed", "the ask expired or was answered already")
				return
			}
			f.asks = append(f.asks[:i:i], f.asks[i+1:]...)
			f.broadcast("asks", f.asksJSON())
			f.answers <- body.Answer
			fakeJSON(w, http.StatusOK, map[string]any{"ask_id": a.askID, "accepted": true})
			return
		}
		fakeError(w, http.StatusNotFound, "ask_not_found", "no such ask: GET /api/v1/asks lists them")
	})
	h("POST /api/v1/runs/{id}/report-link", func(w http.ResponseWriter, r *http.Request) {
		f.withRun(w, r, func(run *fakeRun) {
			fakeJSON(w, http.StatusOK, map[string]any{"url": "/report/" + run.id + "?exp=1&sig=test"})
		})
	})
	mux.HandleFunc("GET /report/{id}", func(w http.ResponseWriter, r *http.Request) {
		select {
		case f.reports <- r.URL.RequestURI():
		default: // a load no check waits for must not block the page
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>report</title><h1>Transcript of %s</h1><p>Steps will show here.</p>", r.PathValue("id"))
	})
	h("GET /api/v1/events", f.daemonEvents)
}

func fakeRunID(n int) string { return fmt.Sprintf("20261124-130000-%d", n) }

func (f *fakeAPI) launch(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		fakeError(w, http.StatusBadRequest, "bad_json", "the body is not JSON: "+err.Error())
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var wf map[string]any
	for _, w := range f.workflows {
		if w["id"] == body["workflow"] {
			wf = w
		}
	}
	if wf == nil {
		fakeError(w, http.StatusNotFound, "workflow_not_found", "no workflow "+fmt.Sprint(body["workflow"])+": GET /api/v1/workflows lists them")
		return
	}
	if m, _ := body["model"].(string); m == "opus-9" {
		fakeError(w, http.StatusBadRequest, "unknown_model", "no model opus-9: leave the model empty for the default, or name one claude knows")
		return
	}
	if in, _ := body["input"].(string); in == "" {
		fakeError(w, http.StatusBadRequest, "input_required", "this workflow needs an input: describe the branch to review")
		return
	}
	f.nextRun++
	run := &fakeRun{
		id: fakeRunID(f.nextRun), workflow: wf["id"].(string), status: "running",
		budget: wf["default_budget"].(float64), created: time.Now().Add(-3 * time.Second),
		agents: []map[string]any{{"id": "main", "current_state": "1_START.md", "status": "running", "steps": 0}},
		subs:   map[chan fakeEvent]bool{},
	}
	if b, ok := body["budget"].(float64); ok {
		run.budget = b
	}
	f.runs[run.id] = run
	f.persist(run, map[string]any{"type": "run_started", "budget_usd": run.budget})
	f.broadcast("run", run.listing(0))
	f.launched <- body
	w.Header().Set("Location", "/api/v1/runs/"+run.id)
	fakeJSON(w, http.StatusCreated, f.detail(run))
}

func (f *fakeAPI) withRun(w http.ResponseWriter, r *http.Request, fn func(*fakeRun)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	run := f.runs[r.PathValue("id")]
	if run == nil {
		fakeError(w, http.StatusNotFound, "run_not_found", "no run "+r.PathValue("id")+" in this project: GET /api/v1/runs lists them")
		return
	}
	fn(run)
}

func (r *fakeRun) listing(pending int) map[string]any {
	active, running, asking := 0, 0, 0
	for _, a := range r.agents {
		if a["status"] == "running" || a["status"] == "asking" || a["status"] == "waiting" {
			active++
		}
		switch a["status"] {
		case "running", "ready":
			running++
		case "asking":
			asking++
		}
	}
	return map[string]any{
		"run_id": r.id, "workflow": r.workflow, "scope_dir": "/project/workflows/" + r.workflow,
		"status": r.status, "interrupted": false, "agents_active": active, "agents_running": running, "agents_asking": asking, "agents_total": len(r.agents),
		"total_cost_usd": r.cost, "budget_usd": r.budget, "created_at": r.created, "updated_at": time.Now(),
		"pending_asks": pending, "driven_by": 1, "state_file": "/project/.raymond/state/" + r.id + ".json",
		"transcript": "/project/.raymond/transcripts/" + r.id,
	}
}

func (f *fakeAPI) detail(r *fakeRun) map[string]any {
	d := r.listing(f.pending(r.id)) // the run object holds every field of its row
	for k, v := range map[string]any{
		"version": 1, "workflow_id": r.id, "scope_dir": "/project/workflows/" + r.workflow,
		"entry_state": "1_START.md", "status": r.status, "created_at": r.created, "updated_at": time.Now(),
		"options": map[string]any{"input": r.input, "scripted": r.scripted}, "agents": r.agents, "total_cost_usd": r.cost, "budget_usd": r.budget,
		"driven_by": 1, "state_file": "", "transcript": "",
	} {
		d[k] = v
	}
	if r.result != nil {
		d["result"] = *r.result
	}
	if r.wait != nil {
		d["wait"] = r.wait
	}
	var asks []any
	for _, a := range f.asks {
		if a.runID == r.id && !a.expired {
			asks = append(asks, a.json())
		}
	}
	if asks != nil {
		d["asks"] = asks
	}
	return d
}

func (f *fakeAPI) pending(id string) int {
	n := 0
	for _, a := range f.asks {
		if a.runID == id {
			n++
		}
	}
	return n
}

func (a *fakeAsk) json() map[string]any {
	var deadline any
	if !a.deadline.IsZero() {
		deadline = a.deadline
	}
	return map[string]any{
		"run_id": a.runID, "ask_id": a.askID, "agent_id": a.agent, "state": a.state, "prompt": a.prompt,
		"asked_at": time.Now().Add(-time.Minute), "deadline": deadline, "timeout_next": "GIVE_UP.md",
	}
}

func (f *fakeAPI) asksJSON() map[string]any {
	asks := []any{}
	for _, a := range f.asks {
		asks = append(asks, a.json())
	}
	return map[string]any{"asks": asks}
}

// broadcast sends an event of the daemon-wide stream; f.mu is held.
func (f *fakeAPI) broadcast(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Errorf("marshal %s: %v", name, err)
		return
	}
	for c := range f.subs {
		c <- fakeEvent{name: name, data: b}
	}
}

var fakeLive = map[string]bool{"text": true, "tool_use": true, "wait_tick": true, "still_running": true, "print": true}

// persist records ev as the run's next event and sends it to the run's
// followers; f.mu is held.
func (f *fakeAPI) persist(r *fakeRun, ev map[string]any) {
	ev["time"] = time.Now()
	ev["run"] = r.id
	b, err := json.Marshal(ev)
	if err != nil {
		f.t.Errorf("marshal event: %v", err)
		return
	}
	e := fakeEvent{name: ev["type"].(string), data: b}
	if fakeLive[e.name] {
		r.live++
		e.id = fmt.Sprintf("%d.%d", len(r.events), r.live)
	} else {
		r.events = append(r.events, e)
		r.live = 0
		e.id = strconv.Itoa(len(r.events))
		r.events[len(r.events)-1].id = e.id
	}
	for c := range r.subs {
		c <- e
	}
}

// event feeds one event of run id's stream.
func (f *fakeAPI) event(id string, ev map[string]any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.persist(f.runs[id], ev)
}

// update changes run id and announces it as the daemon does.
func (f *fakeAPI) update(id string, change func(*fakeRun)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.runs[id]
	change(r)
	f.broadcast("run", r.listing(f.pending(id)))
}

// ask opens an ask and announces the new list.
func (f *fakeAPI) ask(a *fakeAsk) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asks = append(f.asks, a)
	f.broadcast("asks", f.asksJSON())
	if r := f.runs[a.runID]; r != nil {
		ev := map[string]any{"type": "ask", "agent": a.agent, "ask_id": a.askID, "state": a.state}
		if !a.deadline.IsZero() {
			ev["deadline"] = a.deadline
		}
		f.persist(r, ev)
	}
}

// dropStreams ends every open stream of run id, as a restart of the
// daemon or a lost connection would.
func (f *fakeAPI) dropStreams(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.runs[id]
	for c := range r.subs {
		delete(r.subs, c)
		close(c)
	}
}

// closeAsks closes every ask of run id, as the end of a run does.
func (f *fakeAPI) closeAsks(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	asks := f.asks[:0]
	for _, a := range f.asks {
		if a.runID != id {
			asks = append(asks, a)
		}
	}
	f.asks = asks
	f.broadcast("asks", f.asksJSON())
}

// setDaemon changes the daemon object and announces it.
func (f *fakeAPI) setDaemon(change func(map[string]any)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f.daemon)
	f.broadcast("daemon", f.daemon)
}

func (f *fakeAPI) daemonEvents(w http.ResponseWriter, r *http.Request) {
	c := make(chan fakeEvent, 256)
	f.mu.Lock()
	snapshot := []fakeEvent{}
	for name, v := range map[string]any{"asks": f.asksJSON(), "workflows": map[string]any{"workflows": f.workflows}, "daemon": f.daemon} {
		b, _ := json.Marshal(v)
		snapshot = append(snapshot, fakeEvent{name: name, data: b})
	}
	f.subs[c] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.subs, c)
		f.mu.Unlock()
	}()
	fakeStream(w, r, snapshot, c)
}

func (f *fakeAPI) runEvents(w http.ResponseWriter, r *http.Request) {
	c := make(chan fakeEvent, 256)
	f.mu.Lock()
	run := f.runs[r.PathValue("id")]
	if run == nil {
		f.mu.Unlock()
		fakeError(w, http.StatusNotFound, "run_not_found", "no run "+r.PathValue("id"))
		return
	}
	after := 0
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		after, _ = strconv.Atoi(strings.SplitN(last, ".", 2)[0])
		f.resumes <- last
	}
	replay := append([]fakeEvent(nil), run.events[min(after, len(run.events)):]...)
	run.subs[c] = true
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(run.subs, c)
		f.mu.Unlock()
	}()
	fakeStream(w, r, replay, c)
}

// stream writes first, then whatever c brings, as server-sent events
// until the client goes.
func fakeStream(w http.ResponseWriter, r *http.Request, first []fakeEvent, c chan fakeEvent) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	// Each event goes out in two pieces cut in the middle of its data
	// line, the way a network may deliver it, with CRLF line ends on
	// every other event: the page's parser must join them.
	n := 0
	write := func(e fakeEvent) {
		n++
		nl := "\n"
		if n%2 == 0 {
			nl = "\r\n"
		}
		var b strings.Builder
		if e.id != "" {
			fmt.Fprintf(&b, "id: %s%s", e.id, nl)
		}
		fmt.Fprintf(&b, "event: %s%sdata: %s%s%s", e.name, nl, e.data, nl, nl)
		s := b.String()
		cut := len(s) - len(e.data)/2 - 2*len(nl)
		fmt.Fprint(w, s[:cut])
		http.NewResponseController(w).Flush()
		fmt.Fprint(w, s[cut:])
	}
	for _, e := range first {
		write(e)
	}
	fmt.Fprint(w, ": ready\n\n")
	http.NewResponseController(w).Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case e, ok := <-c:
			if !ok {
				return
			}
			write(e)
			http.NewResponseController(w).Flush()
		}
	}
}

func fakeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func fakeError(w http.ResponseWriter, status int, code, message string) {
	fakeJSON(w, status, map[string]any{"error": map[string]any{"code": code, "message": message}})
}
