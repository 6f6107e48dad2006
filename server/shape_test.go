package server

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"raymond/claude"
	"raymond/daemon"
)

// TestOneRunShape: a run is named run_id in every answer, and the object
// POST /runs and GET /runs/{id} give carries every field of its row in
// GET /runs (and in raymond list --json, which is the same Listing).
func TestOneRunShape(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	resp, data := e.do(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"}`})
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("launch: %d %s", resp.StatusCode, data)
	}
	var launched map[string]any
	if err := json.Unmarshal(data, &launched); err != nil {
		t.Fatal(err)
	}
	id, _ := launched["run_id"].(string)
	if id == "" || launched["workflow"] != "hello" {
		t.Fatalf("POST /runs answered no run_id or workflow: %s", data)
	}
	e.waitStatus(id, "completed")
	e.waitList("", "listing the run", func(l []listing) bool { return len(l) == 1 && l[0].Status == "completed" })
	_, data = e.do(request{method: "GET", path: "/api/v1/runs"})
	var list struct {
		Runs []map[string]any `json:"runs"`
	}
	if err := json.Unmarshal(data, &list); err != nil || len(list.Runs) != 1 {
		t.Fatalf("GET /runs: %v %s", err, data)
	}
	_, data = e.do(request{method: "GET", path: "/api/v1/runs/" + id})
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []map[string]any{launched, got} {
		var missing []string
		for k := range list.Runs[0] {
			if _, ok := obj[k]; !ok {
				missing = append(missing, k)
			}
		}
		slices.Sort(missing)
		if len(missing) > 0 {
			t.Errorf("the run object lacks the listing's fields %s", strings.Join(missing, ", "))
		}
	}
	if got["run_id"] != id || got["agents_total"] != list.Runs[0]["agents_total"] {
		t.Errorf("GET /runs/%s: run_id %v, agents_total %v; the list says %v", id, got["run_id"], got["agents_total"], list.Runs[0]["agents_total"])
	}
}

// TestUnknownWorkflowDidYouMean: a misspelt workflow id is answered with the
// one it is closest to.
func TestUnknownWorkflowDidYouMean(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	for _, r := range []request{
		{method: "POST", path: "/api/v1/runs", body: `{"workflow": "helo"}`},
		{method: "GET", path: "/api/v1/workflows/helo"},
		{method: "GET", path: "/api/v1/runs?workflow=helo"},
	} {
		resp, data := e.do(r)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(data), `did you mean \"hello\"?`) {
			t.Errorf("%s %s: %d %s; want 404 with did you mean \"hello\"?", r.method, r.path, resp.StatusCode, data)
		}
	}
}

// TestLaunchWithoutClaude: a daemon that finds no claude refuses a launch
// with 503 and a message saying how to install it, before any run exists,
// so that no run is left paused for good.
func TestLaunchWithoutClaude(t *testing.T) {
	e := newEnvTuned(t, helloReplies, map[string]states{"hello": hello}, func(c *daemon.Config) {
		c.ClaudeEnv = filepath.Join(t.TempDir(), "nowhere", "claude")
		c.FindClaude = claude.Find
	})
	resp, data := e.do(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"}`})
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(data), "claude_unavailable") ||
		!strings.Contains(string(data), "install Claude Code") || !strings.Contains(string(data), "no run was created") {
		t.Errorf("launch without claude: %d %s; want 503 claude_unavailable saying how to install it", resp.StatusCode, data)
	}
	if runs := e.d.Runs(); len(runs) != 0 {
		t.Errorf("a run was made: %+v", runs)
	}
}
