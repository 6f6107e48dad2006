package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"raymond/project"
	"raymond/state"
)

// report prints how run r ended: the result of a completed run (or, with
// asJSON, the summary) on stdout, and on stderr one line saying what to do
// when it did not complete. It returns the exit status.
func report(stdout, stderr io.Writer, r *state.Run, dir string, asJSON bool) int {
	code := project.ExitFor(r.Status)
	switch {
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
	if line := project.NextStep(r); line != "" {
		fmt.Fprintf(stderr, "raymond: %s\n", line)
	}
	return code
}
