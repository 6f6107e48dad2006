package server

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"raymond/daemon"
)

// An ask outlives the daemon: after a restart it is listed again and its
// answer goes on with the run.
func TestRestartKeepsAsks(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	id := e.launch("asking")
	k := e.waitAsks("the ask", func(a []pendingAsk) bool { return len(a) == 1 })[0]

	rec := e.restart(context.Background())
	if !slices.Contains(rec.Resumed, id) {
		t.Errorf("recovered %+v, want %s resumed", rec, id)
	}
	again := e.waitAsks("the ask again", func(a []pendingAsk) bool { return len(a) == 1 })[0]
	if again.AskID != k.AskID || again.RunID != id {
		t.Errorf("after the restart the ask is %+v, was %+v", again, k)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/asks/" + k.AskID, body: `{"answer": "teal"}`}, http.StatusOK, nil)
	d := e.waitStatus(id, "completed")
	if d.Result == nil || *d.Result != "colour teal" {
		t.Errorf("result %v, want colour teal", d.Result)
	}
}

// A step killed by a hard stop runs again once the next daemon recovers
// its run; a client following the run's events across the restart misses
// nothing.
func TestRestartKillsAndResumesSteps(t *testing.T) {
	e := newEnv(t, gatedReplies, map[string]states{"gated": gated})
	id := e.launch("gated")
	path := "/api/v1/runs/" + id + "/events"
	s := e.follow(path, nil)
	seen := s.until(t, func(ev sseEvent) bool { return ev.Event == "step_started" })

	stopNow, cancel := context.WithCancel(context.Background())
	cancel() // the second signal: steps in flight are killed at once
	rec := e.restart(stopNow)
	if !slices.Contains(rec.Resumed, id) {
		_, b := e.do(request{method: "GET", path: "/api/v1/runs/" + id})
		t.Logf("%s", b)
		for _, l := range e.eventLines(id) {
			t.Log(l)
		}
		t.Fatalf("recovered %+v, want %s resumed", rec, id)
	}
	// The first daemon's stream ended when it stopped; the client
	// reconnects (to the second) with the last id it got.
	first := append(seen, s.rest(t)...)
	more := e.follow(path, map[string]string{"Last-Event-ID": first[len(first)-1].ID})
	e.release()
	d := e.waitStatus(id, "completed")
	if d.Result == nil || *d.Result != "done" {
		t.Errorf("result %v, want done", d.Result)
	}
	ids := append(persistedIDs(first), persistedIDs(more.rest(t))...)
	wantSequence(t, "across the restart", ids, 1, len(e.eventLines(id)))
}

// A step waiting at the gate for a slot when a hard stop comes is not
// failed: it stays pending and runs once the run is recovered.
func TestHardStopAtTheGate(t *testing.T) {
	replies := `replies:
  START.md:
    - text: "Released. <goto>END.md</goto>"
      wait_for: release
      repeat: true
  END.md:
    - text: "<result>done</result>"
      repeat: true
`
	e := newEnvTuned(t, replies, map[string]states{"gated": gated}, func(c *daemon.Config) { c.MaxSteps = 1 })
	first := e.launch("gated")
	e.waitStep(first)
	second := e.launch("gated")
	e.waitGate(1) // its step waits at the gate: the first holds the only slot

	stopNow, cancel := context.WithCancel(context.Background())
	cancel()
	rec := e.restart(stopNow)
	for _, id := range []string{first, second} {
		if !slices.Contains(rec.Resumed, id) {
			t.Errorf("recovered %+v, want %s resumed", rec, id)
		}
	}
	e.release()
	for _, id := range []string{first, second} {
		if d := e.waitStatus(id, "completed"); d.Result == nil || *d.Result != "done" {
			t.Errorf("run %s: result %v", id, d.Result)
		}
	}
}
