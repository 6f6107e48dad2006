package wftest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"raymond/analysis"
	"raymond/transcript"
)

// A replay runs the case from start to end in one process, with answers
// that never pause, wait for long or need a resume. This file decides
// whether a run can be replayed so, and how each of its steps is replayed:
// a case that cannot pass is refused with the reason, never written.

// replayOutcomes maps the outcomes of recorded steps to the outcomes of
// scripted replies that end a step the same way. The others (canceled,
// authentication and billing errors, session not found, invocation
// errors) have no scripted equivalent: see replayAs.
var replayOutcomes = map[string]string{
	"crash":       "crash",
	"api error":   "api_error",
	"usage limit": "usage_limit",
	"timeout":     "timeout",
	"exhausted":   "max_turns",
}

// checkEnded refuses a run a replay cannot end as it ended: one that has
// not ended (paused, waiting, still running, stopped by a killed process)
// or whose end is unknown.
func checkEnded(run *analysis.Run) error {
	resume := fmt.Sprintf("resume it to its end first (raymond resume %s), then record it", run.ID)
	why := ""
	if run.Error != "" {
		why = " (" + clip(run.Error, maxReason) + ")"
	}
	switch {
	case run.Running:
		return fmt.Errorf("the run is still going; record it once it has ended (raymond transcript %s --follow waits for that)", run.ID)
	case run.Status == "completed" || run.Status == "failed" || run.Status == "budget_exceeded" || run.Status == "asking":
		return nil
	case run.Status == "paused":
		return fmt.Errorf("the run is paused%s, and a replay never pauses, so the case could not pass; %s", why, resume)
	case run.Status == "waiting":
		return fmt.Errorf("the run is waiting for a usage limit to reset, and a replay never stops to wait, so the case could not pass; %s", resume)
	case run.Status == "created":
		return fmt.Errorf("the run has not started; start it (raymond resume %s) and record it once it has ended", run.ID)
	case run.Status == "running":
		return fmt.Errorf("the process that drove the run stopped without ending it (it was killed, or crashed), so the run has no end to replay; %s", resume)
	}
	return fmt.Errorf("the transcript does not say how the run ended (status %s): it has no run_ended event and no state file; record a run that has ended", run.Status)
}

// history is what the events say followed each step.
type history struct {
	// failed maps each step after which its agent failed to the reason.
	failed map[string]string
}

// readHistory reads, from the analysis of the run's events, which agents
// failed after which step. It refuses a run in which an agent failed and
// then ran again (a resume retries failed agents): a replay never resumes,
// so it would stop at the failure. Without events the failures are not
// known, and the run is refused.
func readHistory(run *analysis.Run) (*history, error) {
	if _, err := os.Stat(filepath.Join(run.Dir, transcript.EventsFile)); err != nil {
		return nil, fmt.Errorf("the events of the run cannot be read, and they say how each step ended: %w", err)
	}
	for _, a := range run.Agents {
		for _, f := range a.Failures {
			if f.ResumedAs == "" {
				continue
			}
			reason := f.Reason()
			return nil, fmt.Errorf("agent %s failed at %s (%s) and a resume ran it again; "+
				"a replay never resumes, so it would stop at that failure and the case could not pass. "+
				"Record a run that reached its end without a resume after a failure",
				a.ID, f.State, clip(reason, maxReason))
		}
	}
	h := &history{failed: make(map[string]string)}
	for _, s := range run.Steps {
		if s.AgentFailed != "" {
			h.failed[s.Name] = s.AgentFailed
		}
	}
	return h, nil
}

// replayAs returns the outcome a scripted reply gives step s so that the
// replay goes on as the run did: "" for its answer (success), the outcome
// of a reply, or skip for a step that is left out because it ran again
// later (canceled, cut short, stopped by an authentication or billing
// error or at the budget). standIn is set when the outcome differs from
// the step's own, which a scripted reply cannot produce. An error says
// why the step cannot be replayed at all.
func (h *history) replayAs(run *analysis.Run, s *analysis.Step) (outcome string, standIn bool, err error) {
	own, replayable := replayOutcomes[s.Outcome]
	switch {
	case s.Outcome == "success":
		return "", false, nil
	case s.Outcome == "usage limit":
		return own, false, nil
	case s.Retried:
		// Transient failures are retried; so is a step stopped at its
		// own budget cap while the run's budget was not used up.
		if replayable && own != "max_turns" {
			return own, false, nil
		}
		return "api_error", true, nil
	}
	if _, ok := h.failed[s.Name]; ok {
		// Its agent failed: retries used up, the step's own limit, or an
		// error no retry fixes. max_turns fails an agent at once.
		if replayable {
			return own, false, nil
		}
		return "max_turns", true, nil
	}
	if ranAgain(run, s) {
		return skip, false, nil
	}
	what := s.Outcome
	if what == "" {
		what = "cut short"
	}
	resume := fmt.Sprintf("raymond resume %s", run.ID)
	if run.Status == "budget_exceeded" {
		resume += fmt.Sprintf(" --budget N, with N above the $%.4f spent", run.CostUSD)
	}
	return "", false, fmt.Errorf("step %s ended as %s and did not run again before the run ended; "+
		"a replay would run it and has no answer to give, so the case could not pass. "+
		"Resume the run to its end first (%s), then record it", s.Name, what, resume)
}

// skip is replayAs's outcome for a step left out of the case.
const skip = "-"

// ranAgain reports whether s's agent has a later step in the same state:
// the step that ran again after s stopped.
func ranAgain(run *analysis.Run, s *analysis.Step) bool {
	return slices.ContainsFunc(run.Steps, func(t *analysis.Step) bool {
		return t.Agent == s.Agent && t.State == s.State && t.Seq > s.Seq
	})
}

// bySeq returns the run's steps with each agent's in the order of their
// seq, the order in which the agent ran them: start times can go back
// when the clock of a later process is behind an earlier one's. Agents
// keep their place in run.Steps.
func bySeq(run *analysis.Run) []*analysis.Step {
	first := make(map[string]int)
	for i, s := range run.Steps {
		if _, ok := first[s.Agent]; !ok {
			first[s.Agent] = i
		}
	}
	steps := slices.Clone(run.Steps)
	slices.SortStableFunc(steps, func(a, b *analysis.Step) int {
		if a.Agent != b.Agent {
			return first[a.Agent] - first[b.Agent]
		}
		return a.Seq - b.Seq
	})
	return steps
}

// notReplayed says why a step with outcome was left out of a case.
func notReplayed(outcome string) string {
	if outcome == "" {
		// The run being recorded is not going, so a step that never
		// ended was cut short by the end of the process driving it.
		return "cut short: the process driving the run was killed"
	}
	return outcome
}

// comments are the lines above a recorded case that say which steps it
// leaves out and which it replays with another outcome than their own.
func (rc *recording) comments() string {
	var b strings.Builder
	if len(rc.real) > 0 {
		fmt.Fprintf(&b, "# Script states run for real (--scripts records their output instead): %s.\n", strings.Join(rc.real, ", "))
	}
	if len(rc.left) > 0 {
		fmt.Fprintf(&b, "# Not replayed (each ran again later): %s.\n", strings.Join(rc.left, ", "))
	}
	for _, o := range []string{"api_error", "max_turns"} {
		if steps := rc.standIns[o]; len(steps) > 0 {
			fmt.Fprintf(&b, "# Replayed as %s, which %s as the original did: %s.\n", o, standInEffect[o], strings.Join(steps, ", "))
		}
	}
	return b.String()
}

// standInEffect says what a stand-in outcome does to the step's agent.
var standInEffect = map[string]string{
	"api_error": "is retried",
	"max_turns": "fails the agent",
}
