package scripted

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/state"
	"raymond/step"
)

// fakeScripts stands for the real script runner: it records the steps it
// runs and succeeds with a fixed text.
type fakeScripts struct {
	mu  sync.Mutex
	ran []string
}

func (f *fakeScripts) Run(_ context.Context, req step.Request, _ step.Handler) step.Result {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ran = append(f.ran, req.Agent+"/"+req.Step.State)
	return step.Result{Outcome: step.Succeeded, Class: "success", Text: "<goto>REAL.md</goto>", Runner: "script"}
}

func (f *fakeScripts) Sweep(string) ([]int, error) { return []int{42}, nil }

// scriptRequest is a script step of stateName in a resumed session, as
// the agent's step would be after a prompt step.
func scriptRequest(agent, stateName string) step.Request {
	req := request(stateName, nil)
	req.Agent = agent
	req.Step.Mode, req.Step.ResumeSession, req.Step.SessionID = state.SessionResume, "", ""
	req.Script = &step.Script{Path: "/w/" + stateName, Body: []byte("exit 1")}
	return req
}

// TestScriptsAnswersScriptStepsWithReplies: a script step with a reply
// left is answered from the replies, at no cost and without a session,
// and the real script does not run; one without runs the real script.
func TestScriptsAnswersScriptStepsWithReplies(t *testing.T) {
	r := parse(t, `
replies:
  POLL:
    - text: "<goto>SCRIPTED.md</goto>"
      cost: 0.5
  main_w1/CHECK.sh:
    - "<goto>OWN.md</goto>"
  START.md:
    - "<goto>POLL</goto>"
`)
	real := &fakeScripts{}
	runner := r.Scripts(real)

	res := runner.Run(t.Context(), request("START.md", nil), step.Handler{})
	require.Equal(t, step.Succeeded, res.Outcome)
	require.Equal(t, "<goto>POLL</goto>", res.Text)

	var lines int
	res = runner.Run(t.Context(), scriptRequest("main", "POLL.sh"), step.Handler{OnLine: func([]byte) { lines++ }})
	require.Equal(t, step.Succeeded, res.Outcome, res.Reason)
	require.Equal(t, "<goto>SCRIPTED.md</goto>", res.Text)
	require.False(t, res.Billed)
	require.Zero(t, res.CostUSD)
	require.Zero(t, res.SessionCostUSD)
	require.Empty(t, res.SessionID)
	require.NotZero(t, lines, "the scripted step's lines go to the transcript")

	res = runner.Run(t.Context(), scriptRequest("main_w1", "CHECK.sh"), step.Handler{})
	require.Equal(t, "<goto>OWN.md</goto>", res.Text)

	// No reply left: the real script runs, and no step counts as exhausted.
	res = runner.Run(t.Context(), scriptRequest("main", "POLL.sh"), step.Handler{})
	require.Equal(t, "<goto>REAL.md</goto>", res.Text)
	res = runner.Run(t.Context(), scriptRequest("main_w2", "CHECK.sh"), step.Handler{})
	require.Equal(t, "<goto>REAL.md</goto>", res.Text)
	require.Equal(t, []string{"main/POLL.sh", "main_w2/CHECK.sh"}, real.ran)
	require.Empty(t, r.Exhausted())
	require.Empty(t, r.Unused())

	require.Equal(t, "scripted", step.RunnerName(runner))
	pids, err := runner.(step.Sweeper).Sweep("m")
	require.NoError(t, err)
	require.Equal(t, []int{42}, pids)
}

// TestScriptStepNeverRetried: a reply that would make claude's step
// transient fails a script step instead, and a script step has no session
// even when its mode names none to resume.
func TestScriptStepNeverRetried(t *testing.T) {
	r := parse(t, `
replies:
  POLL.sh:
    - outcome: crash
    - outcome: usage_limit
`)
	for range 2 {
		res := r.Run(t.Context(), scriptRequest("main", "POLL.sh"), step.Handler{})
		require.Equal(t, step.Failed, res.Outcome, res.Reason)
		require.Contains(t, res.Reason, "a scripted reply for the script POLL.sh")
		require.Empty(t, res.SessionID)
	}
}
