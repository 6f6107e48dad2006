package analysis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A process that died mid-step, then a resume that ran the step again and
// finished: two processes, one of them crashed, the cut step noted with
// the step that ran in its place, and the gap shown as time not driven.
func TestLoadCrashThenResume(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r7")
	require.NoError(t, os.Mkdir(dir, 0o755))
	events := `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md","message":"/wf"}
{"time":"2026-11-21T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1}
{"time":"2026-11-21T11:00:00Z","type":"run_resumed","state":"START.md","message":"/wf"}
{"time":"2026-11-21T11:00:00Z","type":"step_started","agent":"main","step":"main_START_002","state":"START.md","attempt":1}
{"time":"2026-11-21T11:00:02Z","type":"step_ended","agent":"main","step":"main_START_002","state":"START.md","attempt":1,"outcome":"success","cost_usd":0.5,"total_cost_usd":0.5,"duration_ms":2000}
{"time":"2026-11-21T11:00:02Z","type":"transition","agent":"main","step":"main_START_002","state":"START.md","tag":"result","cost_usd":0.5,"total_cost_usd":0.5,"payload":"ok"}
{"time":"2026-11-21T11:00:02Z","type":"agent_completed","agent":"main","state":"START.md","payload":"ok"}
{"time":"2026-11-21T11:00:02Z","type":"run_ended","status":"completed","total_cost_usd":0.5}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(events), 0o644))
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)

	assert.Equal(t, "completed", r.Status)
	assert.Equal(t, 1, r.Resumes)
	require.Len(t, r.Processes, 2)
	assert.True(t, r.Processes[0].Crashed)
	assert.False(t, r.Processes[1].Crashed)
	assert.Equal(t, int64(2000), r.DrivenMS)
	assert.Equal(t, int64(3602000), r.WallMS)
	assert.Equal(t, []string{
		"the process driving the run stopped without ending at +0s (crashed or killed); the run was resumed later",
		"main_START_001: cut short: it started but never ended (no step_ended event, no meta file); it ran again as main_START_002",
		"step main_START_002: no meta file; cache tokens, model and session mode are unknown",
	}, r.Notes)
	assert.Equal(t, ":START.md:ss>result", visits(r.Agent("main")))
	links := CriticalPath(r)
	require.Len(t, links, 2)
	assert.Equal(t, GapUndriven, links[1].Why)
	assert.Equal(t, int64(3600000), links[1].GapMS)
}

// A failed agent that a resume retries ends completed, and its failed
// step stays in its path.
func TestLoadFailedThenRetried(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "r8")
	require.NoError(t, os.Mkdir(dir, 0o755))
	events := `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md"}
{"time":"2026-11-21T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1}
{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"success","duration_ms":1000,"message":"no tag"}
{"time":"2026-11-21T10:00:01Z","type":"agent_failed","agent":"main","state":"START.md","message":"START.md: no tag"}
{"time":"2026-11-21T10:00:01Z","type":"run_ended","status":"failed"}
{"time":"2026-11-21T10:05:00Z","type":"run_resumed","state":"START.md"}
{"time":"2026-11-21T10:05:00Z","type":"step_started","agent":"main","step":"main_START_002","state":"START.md","attempt":1}
{"time":"2026-11-21T10:05:01Z","type":"step_ended","agent":"main","step":"main_START_002","state":"START.md","attempt":1,"outcome":"success","duration_ms":1000}
{"time":"2026-11-21T10:05:01Z","type":"transition","agent":"main","step":"main_START_002","state":"START.md","tag":"result","payload":"fine"}
{"time":"2026-11-21T10:05:01Z","type":"agent_completed","agent":"main","state":"START.md","payload":"fine"}
{"time":"2026-11-21T10:05:01Z","type":"run_ended","status":"completed"}
`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(events), 0o644))
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	main := r.Agent("main")
	assert.Equal(t, "completed", main.Status)
	assert.Empty(t, main.Error)
	assert.Equal(t, "fine", *r.Result)
	assert.Equal(t, ":START.md:ss>result", visits(main))
	assert.Equal(t, "no tag", r.Step("main_START_001").Error)
	assert.Equal(t, int64(2000), r.DrivenMS)
}

// writeTranscript writes a transcript folder named id: its events and,
// per step name, a meta file and a prompt.
func writeTranscript(t *testing.T, id, events string, metas map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "events.jsonl"), []byte(events), 0o644))
	for name, meta := range metas {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".meta.json"), []byte(meta), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".prompt.md"), []byte("Go."), 0o644))
	}
	return dir
}

// A run stopped at its budget, then resumed with a larger one and
// completed, did not stop at the budget.
func TestLoadBudgetThenResume(t *testing.T) {
	dir := writeTranscript(t, "r9", `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md"}
{"time":"2026-11-21T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1}
{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"success","cost_usd":0.06,"total_cost_usd":0.06,"duration_ms":1000}
{"time":"2026-11-21T10:00:01Z","type":"transition","agent":"main","step":"main_START_001","state":"START.md","tag":"goto","target":"END.md","total_cost_usd":0.06}
{"time":"2026-11-21T10:00:01Z","type":"budget_exceeded","status":"budget_exceeded","message":"budget reached: $0.0600 spent of $0.0500"}
{"time":"2026-11-21T10:00:01Z","type":"run_ended","status":"budget_exceeded","total_cost_usd":0.06}
{"time":"2026-11-21T10:01:00Z","type":"run_resumed","state":"START.md"}
{"time":"2026-11-21T10:01:00Z","type":"step_started","agent":"main","step":"main_END_002","state":"END.md","attempt":1}
{"time":"2026-11-21T10:01:01Z","type":"step_ended","agent":"main","step":"main_END_002","state":"END.md","attempt":1,"outcome":"success","cost_usd":0.02,"total_cost_usd":0.08,"duration_ms":1000}
{"time":"2026-11-21T10:01:01Z","type":"transition","agent":"main","step":"main_END_002","state":"END.md","tag":"result","payload":"ok"}
{"time":"2026-11-21T10:01:01Z","type":"agent_completed","agent":"main","state":"END.md","payload":"ok"}
{"time":"2026-11-21T10:01:01Z","type":"run_ended","status":"completed","total_cost_usd":0.08}
`, nil)
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	r.BudgetUSD = 1 // the state file's, after the resume
	assert.False(t, r.BudgetExceeded)
	assert.Equal(t, "$0.0800 of a $1.0000 budget (8%)", costLine(r))
	htmlHas(t, htmlReport(t, r, nil), "<dt>Budget</dt><dd>$1.00, 8% used</dd>")
}

// An agent whose answer had no tag failed; a resume ran it on and it
// completed. The failure stays in the report: in the agent, on its step,
// in the notes, on the path and in the step in full; the transcript is
// still complete.
func TestLoadFailureFixedByResume(t *testing.T) {
	dir := writeTranscript(t, "r10", `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md"}
{"time":"2026-11-21T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1}
{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"success","duration_ms":1000}
{"time":"2026-11-21T10:00:01Z","type":"transition","agent":"main","step":"main_START_001","state":"START.md","tag":"goto","target":"NEXT.md"}
{"time":"2026-11-21T10:00:01Z","type":"step_started","agent":"main","step":"main_NEXT_002","state":"NEXT.md","attempt":1}
{"time":"2026-11-21T10:00:02Z","type":"step_ended","agent":"main","step":"main_NEXT_002","state":"NEXT.md","attempt":1,"outcome":"success","duration_ms":1000,"message":"the answer has no transition tag"}
{"time":"2026-11-21T10:00:02Z","type":"agent_failed","agent":"main","state":"NEXT.md","message":"NEXT.md: the answer has no transition tag"}
{"time":"2026-11-21T10:00:02Z","type":"run_ended","status":"failed"}
{"time":"2026-11-21T10:01:00Z","type":"run_resumed","state":"START.md"}
{"time":"2026-11-21T10:01:00Z","type":"step_started","agent":"main","step":"main_NEXT_003","state":"NEXT.md","attempt":1}
{"time":"2026-11-21T10:01:01Z","type":"step_ended","agent":"main","step":"main_NEXT_003","state":"NEXT.md","attempt":1,"outcome":"success","duration_ms":1000}
{"time":"2026-11-21T10:01:01Z","type":"transition","agent":"main","step":"main_NEXT_003","state":"NEXT.md","tag":"result","payload":"ok"}
{"time":"2026-11-21T10:01:01Z","type":"agent_completed","agent":"main","state":"NEXT.md","payload":"ok"}
{"time":"2026-11-21T10:01:01Z","type":"run_ended","status":"completed"}
`, map[string]string{
		"main_START_001": `{"agent":"main","state":"START.md","seq":1,"attempt":1,"outcome":"success"}`,
		"main_NEXT_002":  `{"agent":"main","state":"NEXT.md","seq":2,"attempt":1,"outcome":"success"}`,
		"main_NEXT_003":  `{"agent":"main","state":"NEXT.md","seq":3,"attempt":1,"outcome":"success"}`,
	})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	main := r.Agent("main")
	assert.Equal(t, "completed", main.Status)
	assert.Empty(t, main.Error)
	assert.Equal(t, []Failure{{Step: "main_NEXT_002", State: "NEXT.md", Error: "NEXT.md: the answer has no transition tag",
		Time: time.Date(2026, 11, 21, 10, 0, 2, 0, time.UTC), ResumedAs: "main_NEXT_003"}}, main.Failures)
	assert.Equal(t, "NEXT.md: the answer has no transition tag", r.Step("main_NEXT_002").AgentFailed)
	assert.Empty(t, r.Step("main_NEXT_003").AgentFailed)
	assert.True(t, r.Complete, "a failure a resume fixed is no gap in the transcript: %q", r.Notes)

	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	out := b.String()
	assert.Contains(t, out, "\nNotes\n  - main failed at NEXT.md: the answer has no transition tag; the run was\n"+
		"    resumed and it went on as main_NEXT_003\n")
	assert.Regexp(t, `\n    goto NEXT\.md \(agent failed, then resumed\) +2 steps `, out)

	b.Reset()
	require.NoError(t, WriteDetail(&b, &Detail{Step: r.Step("main_NEXT_002")}, TextOptions{}))
	assert.Contains(t, b.String(), "  refused   the answer has no transition tag\n")
	assert.Contains(t, b.String(), "  then      the agent failed: NEXT.md: the answer has no transition tag; the run\n"+
		"            was resumed and it went on as main_NEXT_003\n")

	page := htmlReport(t, r, nil)
	htmlHas(t, page,
		`<p class="warn-box">The agent failed at NEXT.md: the answer has no transition tag; the run was resumed and it went on as main_NEXT_003.</p>`,
		`<span class="warn-note">the agent failed here, then was resumed</span>`,
		`<a class="chip fail" href="#step-main_NEXT_002"`)
}

// A failed agent resumed from a refused answer runs the reminder that was
// due, with no reminder event: the reminders counted agree with the steps
// that say they are reminders.
func TestLoadResumedReminder(t *testing.T) {
	meta := func(seq int, reminder bool) string {
		return fmt.Sprintf(`{"agent":"main","state":"PW.md","seq":%d,"attempt":1,"reminder":%t,"outcome":"success"}`, seq, reminder)
	}
	dir := writeTranscript(t, "r11", `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"PW.md"}
{"time":"2026-11-21T10:00:00Z","type":"step_started","agent":"main","step":"main_PW_001","state":"PW.md","attempt":1}
{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_PW_001","state":"PW.md","attempt":1,"outcome":"success","duration_ms":1000,"message":"the answer has no transition tag"}
{"time":"2026-11-21T10:00:01Z","type":"reminder","agent":"main","step":"main_PW_001","state":"PW.md","attempt":2,"message":"the answer has no transition tag"}
{"time":"2026-11-21T10:00:01Z","type":"step_started","agent":"main","step":"main_PW_002","state":"PW.md","attempt":1}
{"time":"2026-11-21T10:00:02Z","type":"step_ended","agent":"main","step":"main_PW_002","state":"PW.md","attempt":1,"outcome":"success","duration_ms":1000,"message":"the answer has no transition tag"}
{"time":"2026-11-21T10:00:02Z","type":"agent_failed","agent":"main","state":"PW.md","message":"PW.md: the answer has no transition tag (after 2 attempts)"}
{"time":"2026-11-21T10:00:02Z","type":"run_ended","status":"failed"}
{"time":"2026-11-21T10:01:00Z","type":"run_resumed","state":"PW.md"}
{"time":"2026-11-21T10:01:00Z","type":"step_started","agent":"main","step":"main_PW_003","state":"PW.md","attempt":1}
{"time":"2026-11-21T10:01:01Z","type":"step_ended","agent":"main","step":"main_PW_003","state":"PW.md","attempt":1,"outcome":"success","duration_ms":1000}
{"time":"2026-11-21T10:01:01Z","type":"transition","agent":"main","step":"main_PW_003","state":"PW.md","tag":"result","payload":"ok"}
{"time":"2026-11-21T10:01:01Z","type":"agent_completed","agent":"main","state":"PW.md","payload":"ok"}
{"time":"2026-11-21T10:01:01Z","type":"run_ended","status":"completed"}
`, map[string]string{"main_PW_001": meta(1, false), "main_PW_002": meta(2, true), "main_PW_003": meta(3, true)})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	assert.Equal(t, 2, r.Reminders, "two steps are reminders")
	require.Len(t, r.States, 1)
	assert.Equal(t, 2, r.States[0].Reminders)
	s := r.Step("main_PW_002")
	assert.True(t, s.Reminded)
	assert.Equal(t, "the answer has no transition tag", s.Refused)
	var b bytes.Buffer
	require.NoError(t, WriteText(&b, r, TextOptions{}))
	assert.Contains(t, b.String(), "steps     3 in 1 agent: 0 failed, 0 retries, 2 reminders\n")
	assert.Contains(t, b.String(), "PW.md (2 reminders, agent failed, then resumed)")
}

// A crashed step says how its process ended and why it was retried.
func TestLoadCrashedStep(t *testing.T) {
	dir := writeTranscript(t, "r12", `{"time":"2026-11-21T10:00:00Z","type":"run_started","state":"START.md"}
{"time":"2026-11-21T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1}
{"time":"2026-11-21T10:00:01Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"crash","duration_ms":1000}
{"time":"2026-11-21T10:00:01Z","type":"retry","agent":"main","step":"main_START_001","state":"START.md","attempt":2,"outcome":"crash","message":"claude exited with status 1 without an answer (stderr: boom)"}
`, map[string]string{"main_START_001": `{"agent":"main","state":"START.md","seq":1,"attempt":1,"exit_code":1,"outcome":"crash","stderr_tail":"warming up\nboom\n"}`})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	s := r.Step("main_START_001")
	assert.Equal(t, 1, s.ExitCode)
	assert.Equal(t, "warming up\nboom", s.Stderr)
	assert.Equal(t, "claude exited with status 1 without an answer (stderr: boom)", s.Error)

	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, &Detail{Step: s}, TextOptions{}))
	assert.Contains(t, b.String(), "  outcome   crash in 1.00s, $0.0000\n"+
		"  process   exited with status 1\n"+
		"  stderr    warming up\n"+
		"            boom\n"+
		"  error     claude exited with status 1 without an answer (stderr: boom)\n")
	htmlHas(t, htmlReport(t, r, nil), "<dt>Process</dt><dd>exited with status 1</dd>", "<dt>Stderr</dt><dd>warming up\nboom</dd>",
		`<p class="error-box">claude exited with status 1 without an answer (stderr: boom)</p>`)
}
