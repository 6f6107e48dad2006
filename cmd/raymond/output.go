package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"raymond/claude"
	"raymond/project"
	"raymond/state"
)

// report prints how run r ended: the result of a completed run (or, with
// asJSON, the summary) or the asks of a run waiting for answers on stdout, and on stderr one line saying what to do
// when it did not complete. It returns the exit status.
func report(stdout, stderr io.Writer, r *state.Run, dir string, asJSON bool) int {
	code := project.ExitFor(r.Status)
	switch {
	case r.Status == state.StatusAsking:
		// The questions and how to answer them, with or without --json:
		// with it, this is the summary.
		data, err := json.Marshal(project.NewAsking(r))
		if err != nil {
			fmt.Fprintf(stderr, "raymond: encode asks: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s\n", data)
	case asJSON:
		data, err := json.Marshal(project.NewSummary(r, dir))
		if err != nil {
			fmt.Fprintf(stderr, "raymond: encode summary: %v\n", err)
			return exitFailed
		}
		fmt.Fprintf(stdout, "%s\n", data)
	case r.Result != nil: // main's result, even when a worker failed
		res := *r.Result
		if !strings.HasSuffix(res, "\n") {
			res += "\n"
		}
		io.WriteString(stdout, res)
	}
	for _, line := range nextSteps(r) {
		fmt.Fprintf(stderr, "raymond: %s\n", line)
	}
	return code
}

// nextSteps says, for a run that did not complete, how to go on
// (project.NextStep); for a failed agent whose session claude no longer
// has, a retry would fail the same way, so its line names --new-session.
func nextSteps(r *state.Run) []string {
	var lines, lost []string
	others := false
	for _, a := range r.Agents {
		if a.Status != state.AgentFailed || r.Status != state.StatusFailed {
			continue
		}
		if strings.Contains(a.LastError, claude.SessionLost) && a.Pending != nil {
			lines = append(lines, fmt.Sprintf("%s lost its claude session; start it again at %s in a new session with: raymond resume %s --new-session %s",
				a.ID, a.Pending.State, r.WorkflowID, a.ID))
			lost = append(lost, a.ID)
		} else {
			others = true
		}
	}
	if len(lost) == 0 || others {
		if line := project.NextStep(r); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}
