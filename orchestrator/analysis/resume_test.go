package analysis

import (
	"os"
	"path/filepath"
	"testing"

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
