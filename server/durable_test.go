package server

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"raymond/state"
)

// A disk that fills while a step runs: the run's drive ends (its state
// cannot be saved, so it reads interrupted, not running for good), /healthz
// says the daemon cannot write, and once space returns it is healthy again
// and the run goes on with a resume.
func TestFullDiskStopsTheRunAndShowsInHealthz(t *testing.T) {
	var full atomic.Bool
	t.Cleanup(state.SimulateFullDisk(full.Load))
	e := newEnv(t, strings.Replace(gatedReplies, "      wait_for: release\n", "      wait_for: release\n      repeat: true\n", 1),
		map[string]states{"gated": gated})
	id := e.launch("gated")
	e.waitStep(id)
	full.Store(true)
	e.release()

	// The list says interrupted: a run whose state cannot be saved ends
	// its drive, rather than read running for good.
	var list struct {
		Runs []struct {
			RunID       string `json:"run_id"`
			Status      string `json:"status"`
			Interrupted bool   `json:"interrupted"`
			DrivenBy    *int   `json:"driven_by"`
		} `json:"runs"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		e.call(request{method: "GET", path: "/api/v1/runs"}, http.StatusOK, &list)
		if len(list.Runs) == 1 && list.Runs[0].Interrupted && list.Runs[0].DrivenBy == nil && !e.d.Driving(id) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the run whose state cannot be saved is still %+v (driven: %v)", list.Runs, e.d.Driving(id))
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not a wait for an event
	}
	var er errorBody
	e.call(request{method: "GET", path: "/healthz", noToken: true}, http.StatusServiceUnavailable, &er)
	er.check(t, "cannot_write")
	if !strings.Contains(er.Error.Message, "no space left on device") {
		t.Errorf("healthz says %q, want the full disk named", er.Error.Message)
	}

	full.Store(false)
	e.call(request{method: "GET", path: "/healthz", noToken: true}, http.StatusOK, nil)
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, http.StatusAccepted, nil)
	if d := e.waitStatus(id, "completed"); d.Result == nil || *d.Result != "done" {
		t.Errorf("result %v, want done", d.Result)
	}
}

// A pause accepted before a stop is not undone by the next start: the stop
// parks every run for the next start to resume, but not this one.
func TestPauseSurvivesARestart(t *testing.T) {
	e := newEnv(t, gatedReplies, map[string]states{"gated": gated})
	id := e.launch("gated")
	e.waitStep(id)
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/pause"}, http.StatusAccepted, nil)

	stopNow, cancel := context.WithCancel(context.Background())
	cancel() // the step in flight is killed: it runs again on resume
	rec := e.restart(stopNow)
	if slices.Contains(rec.Resumed, id) || !slices.Contains(rec.Paused, id) {
		t.Fatalf("recovered %+v, want %s left paused", rec, id)
	}
	e.waitStatus(id, "paused")
	if e.d.Driving(id) {
		t.Fatalf("run %s is driven again after its pause", id)
	}
	// A resume is what drives it again, and a later stop parks it as any run.
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, http.StatusAccepted, nil)
	e.waitStep(id)
	e.release()
	e.waitStatus(id, "completed")
}

// A usage limit outlives a stop: the run that hit it reads paused after a
// signal, and the next daemon still holds every step until the reset.
func TestUsageLimitHoldSurvivesARestart(t *testing.T) {
	replies := `replies:
  START.md:
    - outcome: usage_limit
      reset: 2h
    - text: "<goto>END.md</goto>"
  END.md:
    - text: "<result>done</result>"
`
	e := newEnv(t, replies, map[string]states{"gated": gated})
	id := e.launch("gated")
	e.waitStatus(id, "waiting")
	before := e.daemonStatus()
	if before.HeldUntil == nil {
		t.Fatalf("the gate holds no usage limit: %+v", before)
	}

	e.stop(context.Background())
	e.start()
	after := e.daemonStatus()
	if after.HeldUntil == nil || *after.HeldUntil != *before.HeldUntil {
		t.Fatalf("after a restart the gate holds until %v, want %v", after.HeldUntil, *before.HeldUntil)
	}
}
