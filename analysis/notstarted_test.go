package analysis

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A step whose process never started (the run was stopped before it did)
// is not counted as a step: not in the summary, the agent's or the state's
// counts, the path or the critical path, and the HTML report agrees. It can
// still be looked up by name, and its visit reads as not run.
func TestNotStartedStepIsNotCounted(t *testing.T) {
	dir := t.TempDir()
	events := `{"time":"2026-01-15T10:00:00Z","type":"run_started","state":"START.md"}
{"time":"2026-01-15T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"seq":1,"session":"s1","mode":"new"}
{"time":"2026-01-15T10:00:02Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"success","duration_ms":2000,"cost_usd":0.5,"total_cost_usd":0.5,"session":"s1"}
{"time":"2026-01-15T10:00:02Z","type":"transition","agent":"main","step":"main_START_001","state":"START.md","tag":"goto","target":"NEXT.md"}
{"time":"2026-01-15T10:00:03Z","type":"step_started","agent":"main","step":"main_NEXT_002","state":"NEXT.md","attempt":1,"seq":2,"session":"s1","mode":"resume"}
{"time":"2026-01-15T10:00:03Z","type":"step_ended","agent":"main","step":"main_NEXT_002","state":"NEXT.md","attempt":1,"outcome":"canceled","not_started":true}
{"time":"2026-01-15T10:00:03Z","type":"step_deferred","agent":"main","state":"NEXT.md","outcome":"canceled"}
{"time":"2026-01-15T10:00:03Z","type":"run_ended","status":"paused"}
`
	writeFiles(t, dir, map[string]string{"events.jsonl": events})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)

	assert.Equal(t, 1, r.StepCount)
	require.Len(t, r.Steps, 1)
	require.Len(t, r.NotStarted, 1)
	assert.True(t, r.Step("main_NEXT_002").NotStarted, "looked up by name")
	main := r.Agents[0]
	assert.Equal(t, []string{"main_START_001"}, main.StepNames)
	assert.Equal(t, ":START.md:s>goto goto:NEXT.md:>", visits(main))
	assert.Equal(t, "paused", main.Path[1].NotRun)
	assert.Equal(t, []string{"main_START_001"}, r.CriticalPath)
	for _, st := range r.States {
		if st.State == "NEXT.md" {
			assert.Equal(t, 0, st.Steps)
			assert.Equal(t, 1, st.NotRun)
		}
	}

	var text bytes.Buffer
	require.NoError(t, WriteText(&text, r, TextOptions{}))
	assert.Contains(t, text.String(), "  steps     1 in 1 agent: 0 failed")
	assert.Contains(t, text.String(), "  main: stopped, 1 step, ")
	assert.Contains(t, text.String(), "NEXT.md (not run: paused)")
	assert.Contains(t, text.String(), "Critical path: 1 step, ")

	var js bytes.Buffer
	require.NoError(t, WriteJSON(&js, r))
	var out struct {
		Steps int `json:"steps"`
	}
	require.NoError(t, json.Unmarshal(js.Bytes(), &out))
	assert.Equal(t, 1, out.Steps)

	var html bytes.Buffer
	require.NoError(t, WriteHTML(&html, r, nil))
	assert.Regexp(t, `Steps</[^>]+>\s*<[^>]+>1<`, html.String())
}
