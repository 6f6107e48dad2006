package server

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// eventData is the part of a run event's data the tests read.
type eventData struct {
	Time  time.Time `json:"time"`
	Type  string    `json:"type"`
	Run   string    `json:"run"`
	Agent string    `json:"agent"`
	State string    `json:"state"`
}

// checkRunEvents checks the events of run id: the name is the data's type,
// the data names the run, and every id is a number or NUMBER.k.
func checkRunEvents(t *testing.T, id string, events []sseEvent) {
	t.Helper()
	for _, ev := range events {
		var d eventData
		decodeJSON(t, ev.Data, &d)
		if ev.Event != d.Type || d.Run != id {
			t.Errorf("event %s %q: data type %q run %q", ev.ID, ev.Event, d.Type, d.Run)
		}
		if ev.ID == "" {
			t.Errorf("event %q has no id", ev.Event)
		}
		if d.Time.Year() < 2020 {
			t.Errorf("event %s %q has the time %v", ev.ID, ev.Event, d.Time)
		}
	}
}

// persistedIDs returns the ids of the persisted events (those without a dot).
func persistedIDs(events []sseEvent) []int {
	var out []int
	for _, ev := range events {
		if n, err := strconv.Atoi(ev.ID); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// eventLines counts the lines of run id's events.jsonl.
func (e *env) eventLines(id string) []string {
	e.t.Helper()
	f, err := os.Open(filepath.Join(e.dir, ".raymond", "debug", id, "events.jsonl"))
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

// wantSequence fails unless ids are from..to in order.
func wantSequence(t *testing.T, what string, ids []int, from, to int) {
	t.Helper()
	want := make([]int, 0, to-from+1)
	for n := from; n <= to; n++ {
		want = append(want, n)
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("%s: persisted ids %v, want %v", what, ids, want)
	}
}

func TestRunEventsOfEndedRun(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	lines := e.eventLines(id)
	n := len(lines)

	// Without Last-Event-ID: the whole file, then the end of the stream.
	all := e.follow("/api/v1/runs/"+id+"/events", nil).rest(t)
	checkRunEvents(t, id, all)
	wantSequence(t, "first connection", persistedIDs(all), 1, n)
	if len(all) != n || all[n-1].Event != "run_ended" || all[0].Event != "run_started" {
		t.Errorf("events %v, want run_started … run_ended", names(all))
	}
	for i, ev := range all {
		if !strings.Contains(lines[i], `"type":"`+ev.Event+`"`) {
			t.Errorf("event %s is %s; line %d of events.jsonl is %s", ev.ID, ev.Event, i+1, lines[i])
		}
	}

	// With Last-Event-ID (persisted or live): what comes after it.
	for _, last := range []string{"2", "2.3"} {
		rest := e.follow("/api/v1/runs/"+id+"/events", map[string]string{"Last-Event-ID": last}).rest(t)
		wantSequence(t, "after "+last, persistedIDs(rest), 3, n)
	}
	for _, last := range []string{fmt.Sprint(n), fmt.Sprintf("%d.2", n)} {
		rest := e.follow(fmt.Sprintf("/api/v1/runs/%s/events?last_event_id=%s", id, last), nil).rest(t)
		if len(rest) != 0 {
			t.Errorf("after the last event (%s): %v", last, names(rest))
		}
	}

	var er errorBody
	e.call(request{method: "GET", path: "/api/v1/runs/" + id + "/events", header: map[string]string{"Last-Event-ID": "x7"}}, http.StatusBadRequest, &er)
	er.check(t, "invalid")
	e.call(request{method: "GET", path: "/api/v1/runs/20200101-000000-000000-abcdef/events"}, http.StatusNotFound, &er)
	er.check(t, "not_found")
}

func TestRunEventsLiveAndReconnect(t *testing.T) {
	replies := strings.Replace(gatedReplies, "      wait_for: release\n", "      wait_for: release\n      say: [\"Looking…\", \"Still looking…\"]\n", 1)
	e := newEnv(t, replies, map[string]states{"gated": gated})
	id := e.launch("gated")
	path := "/api/v1/runs/" + id + "/events"
	startedStep := func(ev sseEvent) bool { return ev.Event == "step_started" }

	// One client follows all along; another drops after the first step
	// started and reconnects with the last id it saw, while the run is
	// still driven.
	whole := e.follow(path, nil)
	first := whole.until(t, startedStep)
	dropped := e.follow(path, nil)
	seen := dropped.until(t, startedStep)
	dropped.close()
	again := e.follow(path, map[string]string{"Last-Event-ID": seen[len(seen)-1].ID})

	e.release()
	all := append(first, whole.rest(t)...)
	checkRunEvents(t, id, all)
	n := len(e.eventLines(id))
	wantSequence(t, "a client that stayed", persistedIDs(all), 1, n)
	if !slices.Contains(names(all), "run_ended") {
		t.Errorf("no run_ended in %v", names(all))
	}
	// Live events (the text said) carry N.k after the persisted event N.
	var texts []string
	last := 0
	for _, ev := range all {
		if p, err := strconv.Atoi(ev.ID); err == nil {
			last = p
			continue
		}
		if ev.Event == "text" {
			texts = append(texts, ev.Data)
		}
		pn, k, ok := strings.Cut(ev.ID, ".")
		if !ok || pn != strconv.Itoa(last) || k == "" {
			t.Errorf("live event %s %q follows persisted event %d", ev.Event, ev.ID, last)
		}
	}
	if said := strings.Join(texts, "\n"); !strings.Contains(said, "Looking…") || !strings.Contains(said, "Still looking…") {
		t.Errorf("text events %v, want what the step said", texts)
	}

	rest := again.rest(t)
	ids := append(persistedIDs(seen), persistedIDs(rest)...)
	wantSequence(t, "a client that reconnected", ids, 1, n)
}

func TestDaemonEvents(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	s := e.follow("/api/v1/events", nil)
	snap := s.until(t, func(ev sseEvent) bool { return ev.Event == "workflows" })
	if fmt.Sprint(names(snap)) != "[daemon asks workflows]" {
		t.Errorf("the snapshot is %v, want daemon, asks, workflows", names(snap))
	}
	id := e.launch("hello")
	s.until(t, func(ev sseEvent) bool {
		if ev.Event != "run" {
			return false
		}
		var l listing
		decodeJSON(t, ev.Data, &l)
		return l.RunID == id && l.Status == "completed"
	})
	e.waitStatus(id, "completed")
	resp, _ := e.do(request{method: "DELETE", path: "/api/v1/runs/" + id})
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	s.until(t, func(ev sseEvent) bool {
		return ev.Event == "run_removed" && strings.Contains(ev.Data, id)
	})
}

func names(events []sseEvent) []string {
	out := make([]string, len(events))
	for i, ev := range events {
		out[i] = ev.Event
	}
	return out
}

// The daemon stream says when the pending asks change, with the whole list.
func TestDaemonEventsAsks(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	s := e.follow("/api/v1/events", nil)
	asksOf := func(ev sseEvent) []pendingAsk {
		var a struct {
			Asks []pendingAsk `json:"asks"`
		}
		decodeJSON(t, ev.Data, &a)
		return a.Asks
	}
	first := s.until(t, func(ev sseEvent) bool { return ev.Event == "asks" })
	if a := asksOf(first[len(first)-1]); len(a) != 0 {
		t.Errorf("asks at the start: %+v", a)
	}
	id := e.launch("asking")
	var k pendingAsk
	s.until(t, func(ev sseEvent) bool {
		if ev.Event != "asks" {
			return false
		}
		a := asksOf(ev)
		if len(a) == 1 {
			k = a[0]
		}
		return len(a) == 1
	})
	if k.RunID != id || k.Prompt != "Which colour?" {
		t.Errorf("the ask: %+v", k)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "red"}`}, http.StatusOK, nil)
	s.until(t, func(ev sseEvent) bool { return ev.Event == "asks" && len(asksOf(ev)) == 0 })
}
