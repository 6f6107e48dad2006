package wftest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/analysis"
	"raymond/orchestrator"
	"raymond/state"
)

// replayRecorded records run as a case in a new test file of the workflow
// folder wf under dir, runs it, and returns the case and its failures.
func replayRecorded(t *testing.T, dir, wf string, run *analysis.Run) (text string, failures []string) {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, WriteRecorded(&out, "-", run, RecordOptions{Name: "recorded"}))
	path := filepath.Join(dir, wf, "replay.test.yaml")
	write(t, dir, map[string]string{filepath.Join(wf, "replay.test.yaml"): "workflow: .\ncwd: ..\ncases:\n" + out.String()})
	rep := Run(context.Background(), []string{path}, Options{})
	require.NoError(t, rep.Files[0].Err, out.String())
	return out.String(), rep.Files[0].Cases[0].Failures
}

func TestRecordRefusesAFailureResumed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	// FIX has no policy, so an answer without a tag fails main at once.
	failed := realRun(t, dir, "wf", `
replies:
  START: ["<goto>FIX.md</goto>"]
  FIX: [{text: "I forgot the tag", cost: 0.02}]
`, nil)
	require.Equal(t, "failed", failed.Status)
	// As it stands, the failed run replays.
	text, fails := replayRecorded(t, dir, "wf", failed)
	assert.Empty(t, fails, text)

	// raymond resume runs FIX again, and the run completes: a replay,
	// which never resumes, would stop at the failure.
	resumed := drive(t, dir, failed.ID, `
replies:
  FIX: ["<goto>SUMMARY.md</goto>"]
  SUMMARY: ["<result>ok</result>"]
`)
	require.Equal(t, "completed", resumed.Status)
	_, err := Record(resumed, RecordOptions{}, 0)
	require.Error(t, err)
	assert.Equal(t, "agent main failed at FIX.md (the answer has no transition tag; FIX.md has no allowed_transitions, so no reminder was sent) and a resume ran it again; "+
		"a replay never resumes, so it would stop at that failure and the case could not pass. "+
		"Record a run that reached its end without a resume after a failure", err.Error())
}

func TestRecordRefusesARunNotEnded(t *testing.T) {
	resume := "; resume it to its end first (raymond resume r1), then record it"
	tests := []struct {
		status  string
		running bool
		err     string
		want    string
	}{
		{"completed", false, "", ""},
		{"failed", false, "main failed", ""},
		{"budget_exceeded", false, "", ""},
		{"paused", false, "usage limit: resets 3pm", "the run is paused (usage limit: resets 3pm), and a replay never pauses, so the case could not pass" + resume},
		{"paused", false, "", "the run is paused, and a replay never pauses, so the case could not pass" + resume},
		{"waiting", true, "", "the run is still going; record it once it has ended (raymond transcript r1 --follow waits for that)"},
		{"waiting", false, "", "the run is waiting for a usage limit to reset, and a replay never stops to wait, so the case could not pass" + resume},
		{"running", false, "", "the process that drove the run stopped without ending it (it was killed, or crashed), so the run has no end to replay" + resume},
		{"created", false, "", "the run has not started; start it (raymond resume r1) and record it once it has ended"},
		{"unknown", false, "", "the transcript does not say how the run ended (status unknown): it has no run_ended event and no state file; record a run that has ended"},
	}
	for _, tt := range tests {
		t.Run(tt.status, func(t *testing.T) {
			err := checkEnded(&analysis.Run{ID: "r1", Status: tt.status, Running: tt.running, Error: tt.err})
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.EqualError(t, err, tt.want)
		})
	}

	// A real pause: a usage limit with --no-wait. Nothing is written.
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	run := runWith(t, dir, orchestrator.NewRun{Workflow: filepath.Join(dir, "wf"), Options: state.Options{NoWait: true}}, `
replies:
  START: ["<goto>FIX.md</goto>"]
  FIX: [{outcome: usage_limit}]
`)
	require.Equal(t, "paused", run.Status)
	path := filepath.Join(dir, "wf", "paused.test.yaml")
	err := WriteRecorded(nil, path, run, RecordOptions{})
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "the run is paused (usage limit: "), err.Error())
	assert.NoFileExists(t, path)
}

func TestRecordRefusesAStepThatNeverRanAgain(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	// START costs more than the whole budget: claude stops it at its cap,
	// and the run stops at the budget with START to run again.
	run := runWith(t, dir, orchestrator.NewRun{Workflow: filepath.Join(dir, "wf"), BudgetUSD: 0.05}, `
replies:
  START: [{text: "<goto>FIX.md</goto>", cost: 0.5}]
`)
	require.Equal(t, "budget_exceeded", run.Status)
	_, err := Record(run, RecordOptions{}, 0)
	require.Error(t, err)
	assert.Equal(t, "step main_START_001 ended as exhausted and did not run again before the run ended; "+
		"a replay would run it and has no answer to give, so the case could not pass. "+
		"Resume the run to its end first (raymond resume "+run.ID+" --budget N, with N above the $"+fmt.Sprintf("%.4f", run.CostUSD)+" spent), then record it", err.Error())
}

func TestRecordStandsInForOutcomesRepliesCannotGive(t *testing.T) {
	tests := []struct {
		name, replies string
		step, as      string // the step whose outcome is rewritten, and to what
		reply, note   string
	}{
		{
			// The real CLI's "No conversation found": main fails at once.
			name:    "session not found",
			replies: "replies:\n  START: [\"<goto>FIX.md</goto>\"]\n  FIX: [{outcome: max_turns}]\n",
			step:    "main_FIX_002", as: "session not found",
			reply: "    FIX.md:\n      - outcome: max_turns\n",
			note:  "# Replayed as max_turns, which fails the agent as the original did: main_FIX_002 (session not found).\n",
		},
		{
			name:    "invocation error",
			replies: "replies:\n  START: [\"<goto>FIX.md</goto>\"]\n  FIX: [{outcome: max_turns}]\n",
			step:    "main_FIX_002", as: "invocation error",
			reply: "    FIX.md:\n      - outcome: max_turns\n",
			note:  "# Replayed as max_turns, which fails the agent as the original did: main_FIX_002 (invocation error).\n",
		},
		{
			// A step stopped at its own budget cap while the run's budget
			// was not used up is retried, as a crash is.
			name:    "exhausted and retried",
			replies: "replies:\n  START: [{outcome: api_error, cost: 0.25}, \"<goto>SUMMARY.md</goto>\"]\n  SUMMARY: [\"<result>ok</result>\"]\n",
			step:    "main_START_001", as: "exhausted",
			reply: "    START.md:\n      - outcome: api_error\n        cost: 0.25\n",
			note:  "# Replayed as api_error, which is retried as the original did: main_START_001 (exhausted).\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, loopWorkflow)
			run := realRun(t, dir, "wf", tt.replies, nil)
			s := run.Step(tt.step)
			require.NotNil(t, s)
			s.Outcome = tt.as
			text, fails := replayRecorded(t, dir, "wf", run)
			assert.Contains(t, text, tt.reply)
			assert.Contains(t, text, tt.note)
			assert.Empty(t, fails, text)
		})
	}
}

func TestRecordOrdersRepliesByEachAgentsSeq(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, loopWorkflow)
	run := realRun(t, dir, "wf", loopReplies, nil)
	// A resumed run's clock may be behind the one before: steps then load
	// out of start order. Each agent ran them in seq order all the same.
	slices.Reverse(run.Steps)
	text, fails := replayRecorded(t, dir, "wf", run)
	assert.Contains(t, text, "    START.md:\n      - outcome: crash\n      - text: Looking at {{input}}.")
	assert.Contains(t, text, "    FIX.md:\n      - text: The template {{item}} stays. <goto>FIX.md</goto>\n        template: false\n        cost: 0.125\n      - text: <goto>SUMMARY.md</goto>\n")
	assert.Empty(t, fails, text)
}

func TestRecordWritesTheTagOfEachVisit(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, fanWorkflow)
	run := realRun(t, dir, "fan", `
replies:
  START: ["<fork item=\"a\" next=\"JOIN.md\">WORKER.md</fork>"]
  WORKER: ["<reset>WORKER.md</reset>", "<result>{{item}} done</result>"]
  JOIN: ["<result>joined</result>"]
`, nil)
	require.Equal(t, "completed", run.Status)
	text, fails := replayRecorded(t, dir, "fan", run)
	assert.Contains(t, text, "      main: [START, fork JOIN]\n      main_worker1: [WORKER, reset WORKER]\n")
	assert.Empty(t, fails, text)

	// The same answers, with reset turned into goto: the states are the
	// same, the tag is not.
	f := filepath.Join(dir, "fan", "replay.test.yaml")
	data, err := os.ReadFile(f)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(f, bytes.Replace(data, []byte("<reset>WORKER.md</reset>"), []byte("<goto>WORKER.md</goto>"), 1), 0o644))
	rep := Run(context.Background(), []string{f}, Options{})
	require.NoError(t, rep.Files[0].Err)
	assert.Equal(t, []string{"path of main_worker1 (- expected, + actual):\n  WORKER\n- reset WORKER\n+ goto WORKER"}, rep.Files[0].Cases[0].Failures)
}
