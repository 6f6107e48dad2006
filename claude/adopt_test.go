package claude

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"raymond/internal/proc"
	"raymond/step"
)

const (
	adoptInit   = `{"type":"system","subtype":"init","session_id":"s1","model":"m","claude_code_version":"2.1.330"}`
	adoptResult = `{"type":"result","subtype":"success","is_error":false,"result":"<goto>B.md</goto>","session_id":"s1","total_cost_usd":0.25}`
)

// startOrphan starts, detached and carrying marker, a shell that writes
// the init line to spool, waits for the file gate, then writes the result
// line: a step's process as a driver that died left it. It is reaped when
// the test ends; until then, once it has exited, it is a zombie, which is
// no running process.
func startOrphan(t *testing.T, spool, gate, marker string) proc.Identity {
	t.Helper()
	f, err := proc.OpenSpool(spool)
	must(t, err)
	defer f.Close()
	cmd := exec.Command("sh", "-c", `echo "$INIT"; echo "a line of stderr" >&2; while [ ! -e "$GATE" ]; do sleep 0.01; done; echo "$RESULT"`)
	cmd.Env = append(os.Environ(), "INIT="+adoptInit, "RESULT="+adoptResult, "GATE="+gate, step.MarkerEnv+"="+marker)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = proc.DetachedAttr()
	must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	id, err := proc.Identify(cmd.Process.Pid)
	must(t, err)
	return id
}

// TestAdoptRunning: a step's process that outlived its driver is followed
// to its end: its lines as they come (those written before the adoption
// too), its result line deciding the step.
func TestAdoptRunning(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	spool, gate := filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "go")
	id := startOrphan(t, spool, gate, "r/main/1")
	found, ok := Found(proc.Identity{PID: id.PID, Start: id.Start}, "r/main/1")
	eq(t, "found", ok, true)
	_, ok = Found(proc.Identity{PID: id.PID, Start: id.Start + 1}, "r/main/1")
	eq(t, "found with another start time", ok, false)
	started := time.Now().Add(-time.Minute)
	var stderr []string
	inits := 0
	res := Adopt(t.Context(), Request{Spool: spool, Marker: "r/main/1"}, Adoption{ID: found, Started: started}, Handler{
		OnEvent: func(e Event) {
			if e.Kind == EventInit {
				inits++
				must(t, os.WriteFile(gate, nil, 0o600))
			}
		},
		OnStderr: func(line string) { stderr = append(stderr, line) },
	})
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "Text", res.Text, "<goto>B.md</goto>")
	eq(t, "SessionID", res.SessionID, "s1")
	eq(t, "Adopted", res.Adopted, true)
	eq(t, "Started", res.Started, started)
	eq(t, "init events", inits, 1)
	eq(t, "stderr", stderr, []string{"a line of stderr"})
	near(t, "TotalCostUSD", res.TotalCostUSD, 0.25)
}

// TestAdoptEnded: a step whose process ended while no driver ran is
// adopted from its output alone; one that ended without a result line is
// a crash whose exit status is not known.
func TestAdoptEnded(t *testing.T) {
	dir := t.TempDir()
	spool := filepath.Join(dir, "s.jsonl")
	must(t, os.WriteFile(spool, []byte(adoptInit+"\n"+adoptResult+"\n"), 0o600))
	res := Adopt(t.Context(), Request{Spool: spool, Marker: "r/main/1"}, Adoption{}, Handler{})
	eq(t, "Outcome", res.Outcome, Success)
	eq(t, "Text", res.Text, "<goto>B.md</goto>")

	must(t, os.WriteFile(spool, []byte(adoptInit+"\n"), 0o600))
	res = Adopt(t.Context(), Request{Spool: spool, Marker: "r/main/1"}, Adoption{}, Handler{})
	eq(t, "Outcome without a result", res.Outcome, Crash)
	n := Neutral(res, step.Request{})
	eq(t, "Outcome", n.Outcome, step.Transient)
	eq(t, "Reason", n.Reason, "claude ended without an answer (its process outlived the raymond that started it, so its exit status is not known)")
}

// TestAdoptCanceled: canceling an adopted step stops its process group, as
// for a step Run started.
func TestAdoptCanceled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	spool := filepath.Join(dir, "s.jsonl")
	id := startOrphan(t, spool, filepath.Join(dir, "never"), "r/main/2")
	ctx, cancel := context.WithCancel(t.Context())
	res := Adopt(ctx, Request{Spool: spool, Marker: "r/main/2", KillGrace: 100 * time.Millisecond}, Adoption{ID: id},
		Handler{OnEvent: func(e Event) { cancel() }})
	eq(t, "Outcome", res.Outcome, Canceled)
	eq(t, "running after", proc.Running(id, "r/main/2"), false)
}
