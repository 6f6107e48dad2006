package project

import (
	"encoding/json"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
)

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"ask_main_1":        "ask_main_1",
		"20261121-154012-a": "20261121-154012-a",
		"":                  "''",
		"two words":         "'two words'",
		"it's":              `'it'\''s'`,
		"$HOME":             "'$HOME'",
		"a\nb":              "'a\nb'",
		"'":                 `''\'''`,
	} {
		assert.Equal(t, want, ShellQuote(in), "ShellQuote(%q)", in)
	}
}

// TestShellQuoteRoundTrip has sh read back each quoted word.
func TestShellQuoteRoundTrip(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, in := range []string{"plain", "it's a 'test'", `back\slash "dq" $x ` + "`cmd`", "tab\there", "new\nline", ""} {
		out, err := exec.Command(sh, "-c", "printf %s "+ShellQuote(in)).Output()
		require.NoError(t, err)
		assert.Equal(t, in, string(out))
	}
}

// askingRun is a run whose agents main and main_w1 ask, w1 first, and
// whose agent main_w2 failed.
func askingRun() *state.Run {
	at := time.Date(2026, 11, 21, 14, 31, 5, 0, time.UTC)
	deadline := at.Add(48 * time.Hour)
	return &state.Run{
		WorkflowID: "R'1", ScopeDir: "/wf/vendor-approval", Status: state.StatusAsking,
		Agents: []state.Agent{
			{ID: "main", Status: state.AgentAsking, CurrentState: "2_REVIEW.md", Ask: &state.Ask{
				ID: "ask_main_2", Question: "Approve Acme?", State: "2_REVIEW.md", Next: "3.md",
				TimeoutNext: "ESCALATE.md", Timeout: "48h", AskedAt: at.Add(time.Minute), Deadline: &deadline}},
			{ID: "main_w1", Status: state.AgentAsking, CurrentState: "Q.md", Ask: &state.Ask{
				ID: "ask_main_w1_1", Question: "Which one?", State: "Q.md", Next: "A.md", AskedAt: at}},
			{ID: "main_w2", Status: state.AgentFailed, CurrentState: "X.md", LastError: "boom"},
			{ID: "main_w3", Status: state.AgentCompleted, Ask: &state.Ask{ID: "ask_main_w3_0", AskedAt: at, Answer: new("yes")}},
		},
	}
}

func TestNewAsking(t *testing.T) {
	data, err := json.Marshal(NewAsking(askingRun()))
	require.NoError(t, err)
	assert.JSONEq(t, `{"status": "asking", "run_id": "R'1", "workflow": "vendor-approval",
		"asks": [
			{"ask_id": "ask_main_w1_1", "agent_id": "main_w1", "state": "Q.md", "prompt": "Which one?",
			 "asked_at": "2026-11-21T14:31:05Z", "deadline": null, "timeout_next": null,
			 "answer": "raymond answer 'R'\\''1' ask_main_w1_1 'TEXT'"},
			{"ask_id": "ask_main_2", "agent_id": "main", "state": "2_REVIEW.md", "prompt": "Approve Acme?",
			 "asked_at": "2026-11-21T14:32:05Z", "deadline": "2026-11-23T14:31:05Z", "timeout_next": "ESCALATE.md",
			 "answer": "raymond answer 'R'\\''1' ask_main_2 'TEXT'"}],
		"failed": [{"agent_id": "main_w2", "state": "X.md", "error": "boom"}],
		"asking": {"ask_id": "ask_main_w1_1", "agent_id": "main_w1", "prompt": "Which one?"},
		"pending_count": 1, "resume": "raymond resume 'R'\\''1' --input 'TEXT'"}`, string(data))
}

func TestNewAskingNone(t *testing.T) {
	data, err := json.Marshal(NewAsking(&state.Run{WorkflowID: "r", ScopeDir: "/wf", Status: state.StatusAsking}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"status": "asking", "run_id": "r", "workflow": "wf", "asks": [], "failed": [], "asking": null,
		"pending_count": 0, "resume": "raymond resume r --input 'TEXT'"}`, string(data))
}

func TestRecordAnswer(t *testing.T) {
	before := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	after := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)

	r := askingRun()
	k, err := RecordAnswer(r, "", "first", before)
	require.NoError(t, err)
	assert.Equal(t, "ask_main_w1_1", k.ID, "no id: the oldest pending ask")
	assert.Equal(t, "first", *r.Agent("main_w1").Ask.Answer)
	assert.Equal(t, before, *r.Agent("main_w1").Ask.AnsweredAt)

	_, err = RecordAnswer(r, "ask_main_w1_1", "again", before)
	var ae *AnswerError
	require.ErrorAs(t, err, &ae)
	assert.Contains(t, err.Error(), "ask ask_main_w1_1 was already answered at 2026-11-22T00:00:00Z; its pending asks are ask_main_2")

	_, err = RecordAnswer(r, "ask_nope_9", "x", before)
	assert.ErrorContains(t, err, "run R'1 has no ask ask_nope_9; its pending asks are ask_main_2")

	_, err = RecordAnswer(r, "ask_main_2", "late", after)
	assert.EqualError(t, err, "ask ask_main_2 expired at 2026-11-23T14:31:05Z; its agent goes on at ESCALATE.md when the run is resumed")
	assert.Nil(t, r.Agent("main").Ask.Answer, "a refused answer is not recorded")

	r.Agent("main").Ask.TimeoutNext = ""
	_, err = RecordAnswer(r, "ask_main_2", "late", after)
	assert.ErrorContains(t, err, "its agent fails when the run is resumed")

	_, err = RecordAnswer(r, "ask_main_2", "in time", before)
	require.NoError(t, err)
	_, err = RecordAnswer(r, "", "more", before)
	assert.EqualError(t, err, "run R'1 has no pending ask to answer")
}

func TestExitForAsking(t *testing.T) {
	assert.Equal(t, ExitAsking, ExitFor(state.StatusAsking))
	assert.Equal(t, 4, ExitAsking)
}
