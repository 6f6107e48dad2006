package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"raymond/state"
)

// exitFor returns the exit status a run ends the process with (cli.md).
func exitFor(s state.Status) int {
	switch s {
	case state.StatusCompleted:
		return exitOK
	case state.StatusFailed:
		return exitFailed
	}
	// Paused, waiting, over budget, or stopped before it got anywhere: the
	// run can be resumed.
	return exitPaused
}

// summary is the --json object printed at the end of a run.
type summary struct {
	RunID        string         `json:"run_id"`
	Status       state.Status   `json:"status"`
	Result       *string        `json:"result"`
	TotalCostUSD float64        `json:"total_cost_usd"`
	BudgetUSD    float64        `json:"budget_usd"`
	Agents       []agentSummary `json:"agents"`
	Project      string         `json:"project"`
	Transcript   *string        `json:"transcript"`
	ExitCode     int            `json:"exit_code"`
}

// agentSummary is one agent in a summary.
type agentSummary struct {
	ID     string            `json:"id"`
	Status state.AgentStatus `json:"status"`
	State  string            `json:"state"`
	Result *string           `json:"result"`
	Error  *string           `json:"error"`
}

// newSummary describes r, a run of the project in dir.
func newSummary(r *state.Run, dir string) summary {
	s := summary{
		RunID:        r.WorkflowID,
		Status:       r.Status,
		TotalCostUSD: r.TotalCostUSD,
		BudgetUSD:    r.BudgetUSD,
		Agents:       make([]agentSummary, 0, len(r.Agents)),
		Project:      dir,
		ExitCode:     exitFor(r.Status),
	}
	if r.Status == state.StatusCompleted {
		s.Result = r.Result
	}
	if r.Options.Debug {
		t := filepath.Join(dir, ".raymond", "debug", r.WorkflowID)
		s.Transcript = &t
	}
	for _, a := range r.Agents {
		as := agentSummary{ID: a.ID, Status: a.Status, State: a.CurrentState, Result: a.Result}
		if a.LastError != "" {
			as.Error = &a.LastError
		}
		s.Agents = append(s.Agents, as)
	}
	return s
}

// report prints how run r ended: the result of a completed run (or, with
// asJSON, the summary) on stdout, and on stderr one line saying what to do
// when it did not complete. It returns the exit status.
func report(stdout, stderr io.Writer, r *state.Run, dir string, asJSON bool) int {
	code := exitFor(r.Status)
	switch {
	case asJSON:
		data, err := json.Marshal(newSummary(r, dir))
		if err != nil {
			fmt.Fprintf(stderr, "raymond: encode summary: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s\n", data)
	case r.Status == state.StatusCompleted && r.Result != nil:
		res := *r.Result
		if !strings.HasSuffix(res, "\n") {
			res += "\n"
		}
		io.WriteString(stdout, res)
	}
	if line := nextStep(r); line != "" {
		fmt.Fprintf(stderr, "raymond: %s\n", line)
	}
	return code
}

// nextStep says, for a run that did not complete, what happened and how to go
// on; "" for a completed run.
func nextStep(r *state.Run) string {
	id := r.WorkflowID
	switch r.Status {
	case state.StatusCompleted:
		return ""
	case state.StatusFailed:
		// The driver's summary above already named each failed agent.
		return fmt.Sprintf("'raymond resume %s' retries the failed agents", id)
	case state.StatusBudgetExceeded:
		return fmt.Sprintf("run %s reached its budget ($%.4f of $%.4f); resume it with: raymond resume %s --budget USD",
			id, r.TotalCostUSD, r.BudgetUSD, id)
	case state.StatusWaiting:
		return fmt.Sprintf("run %s is waiting; resume it with: raymond resume %s", id, id)
	}
	return fmt.Sprintf("run %s paused; resume it with: raymond resume %s", id, id)
}
