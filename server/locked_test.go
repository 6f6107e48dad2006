package server

import (
	"net/http"
	"testing"
)

// A run another process holds (raymond resume on the command line) is
// neither deleted, resumed nor answered here: 409, and nothing changes.
func TestRunHeldElsewhere(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	lock, err := e.d.Project().Store.Lock(id)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	before := e.snapshot()
	for _, r := range []request{
		{method: "DELETE", path: "/api/v1/runs/" + id},
		{method: "POST", path: "/api/v1/runs/" + id + "/pause"},
	} {
		var er errorBody
		e.call(r, http.StatusConflict, &er)
		er.check(t, "conflict")
	}
	sameFiles(t, before, e.snapshot(), "requests on a run held elsewhere")
}
