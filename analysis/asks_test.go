package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asksDir is a hand-written transcript: a script step, an ask answered, an
// ask that timed out into its timeout_next, a call-workflow and a
// fork-workflow into another workflow, and a forked agent whose ask is
// still pending when the run ends asking.
const asksDir = "testdata/asks"

// asksRun loads asksDir and every step's detail.
func asksRun(t *testing.T) (*Run, map[string]*Detail) {
	t.Helper()
	r, err := Load(Source{Dir: asksDir})
	require.NoError(t, err)
	details := map[string]*Detail{}
	for _, s := range r.Steps {
		d, err := LoadDetail(asksDir, s)
		require.NoError(t, err)
		details[s.Name] = d
	}
	return r, details
}

func TestAsksFromTheTranscript(t *testing.T) {
	r, _ := asksRun(t)
	assert.Equal(t, "asking", r.Status)
	assert.True(t, r.Complete, "notes: %q", r.Notes)
	require.Len(t, r.Asks, 3)

	k := r.Asks[0]
	assert.Equal(t, "ask_main_1", k.ID)
	assert.Equal(t, "main", k.Agent)
	assert.Equal(t, "REVIEW.md", k.State)
	assert.Equal(t, "main_REVIEW_003", k.Step)
	assert.Equal(t, "Ship <it>?", k.Question)
	assert.Equal(t, AskAnswered, k.Status)
	require.NotNil(t, k.Answer)
	assert.Equal(t, "yes", *k.Answer)
	assert.Equal(t, "APPLY.md", k.Target)
	assert.Equal(t, int64(90_000), k.WaitMS)

	k = r.Asks[1]
	assert.Equal(t, AskExpired, k.Status)
	assert.Nil(t, k.Answer)
	assert.Equal(t, "GO.md", k.Next)
	assert.Equal(t, "ESCALATE.md", k.Target, "an expired ask goes to its timeout_next")
	assert.False(t, k.Deadline.IsZero())
	assert.Equal(t, int64(3_600_000), k.WaitMS)

	k = r.Asks[2]
	assert.Equal(t, AskPending, k.Status)
	assert.Equal(t, "main_w1", k.Agent)
	assert.Equal(t, r.Ended.Sub(k.Asked).Milliseconds(), k.WaitMS, "a pending ask waits until the end of the transcript")

	main, w1 := r.Agents[0], r.Agents[1]
	assert.Equal(t, ":START.md:s>goto goto:POLL.sh:s>goto goto:REVIEW.md:s>ask ask:APPLY.md:s>call-workflow "+
		"+call-workflow:lib/CHECK.md:s>result result:APPLY.md:s>fork-workflow fork-workflow:DECIDE.md:s>ask timeout "+
		"ask timeout:ESCALATE.md:s>result", visits(main))
	assert.Equal(t, "asking", w1.Status)
	assert.Equal(t, "fork:lib/WORK.md:s>ask ask:DONE.md:>", visits(w1))
	assert.Equal(t, "waiting for an answer to ask_main_w1_3", w1.Path[1].NotRun)
	assert.Equal(t, "ask_main_1", r.Steps[2].AskID)
	assert.Equal(t, "lib/CHECK.md", r.Steps[4].State, "a step in another workflow is named as its transition named it")
}

func TestAskExpiredWithoutTimeoutNextFailsTheAgent(t *testing.T) {
	dir := t.TempDir()
	events := `{"time":"2026-01-15T10:00:00Z","type":"run_started","state":"START.md"}
{"time":"2026-01-15T10:00:00Z","type":"step_started","agent":"main","step":"main_START_001","state":"START.md","attempt":1}
{"time":"2026-01-15T10:00:02Z","type":"step_ended","agent":"main","step":"main_START_001","state":"START.md","attempt":1,"outcome":"success","duration_ms":2000}
{"time":"2026-01-15T10:00:02Z","type":"transition","agent":"main","step":"main_START_001","state":"START.md","tag":"ask","target":"NEXT.md"}
{"time":"2026-01-15T10:00:02Z","type":"ask","agent":"main","ask_id":"ask_main_1","state":"START.md","target":"NEXT.md","message":"ok?","deadline":"2026-01-15T10:01:02Z"}
{"time":"2026-01-15T10:01:02Z","type":"ask_expired","agent":"main","ask_id":"ask_main_1","state":"START.md","duration_ms":60000}
{"time":"2026-01-15T10:01:02Z","type":"agent_failed","agent":"main","state":"START.md","message":"ask ask_main_1: no answer within 1m"}
{"time":"2026-01-15T10:01:02Z","type":"run_ended","status":"failed","message":"main failed"}
`
	writeFiles(t, dir, map[string]string{"events.jsonl": events})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	require.Len(t, r.Asks, 1)
	assert.Equal(t, AskExpired, r.Asks[0].Status)
	assert.Empty(t, r.Asks[0].Target)
	main := r.Agents[0]
	assert.Equal(t, ":START.md:s>ask timeout", visits(main), "the ask's next was never reached")
	require.Len(t, main.Failures, 1)
	assert.Equal(t, "main_START_001", main.Failures[0].Step)

	var b bytes.Buffer
	require.NoError(t, WriteMermaid(&b, r))
	assert.Contains(t, b.String(), `s_START_md -.->|"ask timeout ×1"| run_failed`)
	assert.Contains(t, b.String(), "linkStyle 1 stroke:#b00")
}

func TestAsksInTheReports(t *testing.T) {
	r, details := asksRun(t)
	var text bytes.Buffer
	require.NoError(t, WriteText(&text, r, TextOptions{Width: 100}))
	out := text.String()
	assert.Contains(t, out, "asks      3 asks: 1 answered, 1 timed out, 1 pending")
	assert.Contains(t, out, "\nAsks\n")
	assert.Contains(t, out, "ask_main_1: main at REVIEW.md, asked at +10.0s; answered after 1m30s, on to APPLY.md")
	assert.Contains(t, out, "question: Ship <it>?")
	assert.Contains(t, out, "answer: yes")
	assert.Contains(t, out, "no answer after 1h00m, timed out to ESCALATE.md")
	assert.Contains(t, out, "ask_main_w1_3: main_w1 at WORK.md, asked at +1m50s; still waiting for an answer")

	var mm bytes.Buffer
	require.NoError(t, WriteMermaid(&mm, r))
	m := mm.String()
	assert.Contains(t, m, `s_REVIEW_md -.->|"ask ×1"| s_APPLY_md`)
	assert.Contains(t, m, `s_DECIDE_md -.->|"ask timeout ×1"| s_ESCALATE_md`)
	assert.Contains(t, m, `s_APPLY_md ==>|"call-workflow ×1"| s_lib_CHECK_md`)
	assert.Contains(t, m, `s_APPLY_md -.->|"fork-workflow ×1"| s_lib_WORK_md`)
	assert.Contains(t, m, "linkStyle 3 stroke:#c77c00")

	page := htmlReport(t, r, details)
	assert.Equal(t, 3, strings.Count(page, `<rect class="askbar`), "one waiting bar per ask")
	assert.Contains(t, page, `<section id="asks">`)
	assert.Contains(t, page, `<pre class="text question">Ship &lt;it&gt;?</pre>`)
	assert.Contains(t, page, "answered after 1m30s; on to APPLY.md")
	assert.Contains(t, page, `<div class="ask ok"><h4>Ask <a href="#ask-ask_main_1">`)
}

func TestScriptStep(t *testing.T) {
	r, details := asksRun(t)
	s := r.Steps[1]
	require.Equal(t, "main_POLL_002", s.Name)
	assert.True(t, s.IsScript())
	assert.Equal(t, ScriptRunner, s.Runner)
	require.NotNil(t, s.Script)
	assert.Equal(t, []string{"bash", "/work/wf/POLL.sh"}, s.Script.Argv)
	assert.Equal(t, "10m", s.Script.Timeout)
	assert.Equal(t, "default", s.Script.TimeoutFrom)
	assert.Equal(t, "main", s.Script.Env["RAYMOND_AGENT_ID"])
	assert.Zero(t, s.CostUSD)
	for _, n := range r.Notes {
		assert.NotContains(t, n, "main_POLL_002", "a script step lacks no file")
	}

	d := details[s.Name]
	assert.Equal(t, "checking the build\n<goto>REVIEW</goto>\n", d.Stdout)
	assert.Equal(t, "warning: slow disk\n", d.Stderr)
	assert.Empty(t, d.Notes)

	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, d, TextOptions{Width: 100}))
	out := b.String()
	assert.Contains(t, out, "script    bash /work/wf/POLL.sh")
	assert.Contains(t, out, "timeout   10m of inactivity (from default)")
	assert.Contains(t, out, "\nStdout\n  checking the build\n  <goto>REVIEW</goto>\n")
	assert.Contains(t, out, "\nStderr\n  warning: slow disk\n")
	assert.NotContains(t, out, "Prompt")

	page := htmlReport(t, r, details)
	assert.Contains(t, page, `<pre class="text stdout">checking the build`)
	assert.Contains(t, page, "main_POLL_002.stdout.txt, main_POLL_002.stderr.txt")
	assert.NotContains(t, page, "main_POLL_002.jsonl (missing)")
}

func TestScriptStepOutputMissingAndLong(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("line of output\n", 2000)
	writeFiles(t, dir, map[string]string{
		"main_POLL_001.meta.json":  `{"agent":"main","state":"POLL.sh","seq":1,"attempt":1,"runner":"script","outcome":"exit status","exit_code":3,"stderr_tail":"boom","timeout":"0s"}`,
		"main_POLL_001.stdout.txt": long,
	})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	s := r.Steps[0]
	require.NotNil(t, s.Script)
	assert.Equal(t, "none", s.Script.Timeout, "0s is no timeout")
	d, err := LoadDetail(dir, s)
	require.NoError(t, err)
	assert.Less(t, len(d.Stdout), len(long))
	assert.True(t, strings.HasPrefix(d.Stdout, "line of output\n"), "the tail starts at a line")
	assert.Contains(t, strings.Join(d.Notes, "\n"), "stdout: only its last")
	assert.Contains(t, strings.Join(d.Notes, "\n"), "no stderr file")
	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, d, TextOptions{Width: 100}))
	assert.Contains(t, b.String(), "exited with status 3")
	assert.Contains(t, b.String(), "stderr    boom")
}

// writeFiles writes name: content into dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
}

func TestScriptStepAnsweredByAReply(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"main_POLL_001.meta.json": `{"agent":"main","state":"POLL.sh","seq":1,"attempt":1,"runner":"scripted","outcome":"success"}`,
		"main_POLL_001.jsonl":     `{"type":"result","subtype":"success","result":"<goto>DONE</goto>","is_error":false}` + "\n",
	})
	r, err := Load(Source{Dir: dir})
	require.NoError(t, err)
	s := r.Steps[0]
	require.NotNil(t, s.Script)
	assert.True(t, s.Script.Replayed)
	assert.NotContains(t, strings.Join(r.Notes, "\n"), "no prompt file")
	d, err := LoadDetail(dir, s)
	require.NoError(t, err)
	assert.Equal(t, "<goto>DONE</goto>", d.Answer, "the reply is the stream, as for a prompt")
	assert.Empty(t, d.Notes)
}
