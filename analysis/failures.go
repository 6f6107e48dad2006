package analysis

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"raymond/transcript"
)

// agentFailed records an agent_failed event: the agent's status, and the
// failure, on the agent and on the step after which it came.
func (b *builder) agentFailed(e *transcript.Event) {
	a := b.agent(e.Agent)
	a.Status, a.Error, a.Ended = "failed", e.Message, e.Time
	f := Failure{State: e.State, Error: e.Message, Time: e.Time}
	// It came after the agent's last step, unless the agent had gone on
	// to a state that it never ran (one that could not be loaded).
	if v := b.open[a.ID]; v == nil || len(v.Steps) > 0 {
		if n := len(a.StepNames); n > 0 {
			if s := b.steps[a.StepNames[n-1]]; e.State == "" || s.State == e.State {
				f.Step, s.AgentFailed = s.Name, e.Message
			}
		}
	}
	a.Failures = append(a.Failures, f)
}

// resumed records that a resume runs agent a on, with step next, although
// it had ended: a failed agent is retried from the state it failed in.
func (b *builder) resumed(a *Agent, next string) {
	if n := len(a.Failures); a.Status == "failed" && n > 0 {
		a.Failures[n-1].ResumedAs = next
	}
	a.Status, a.Error, a.Ended = "", "", time.Time{}
}

// settleSteps puts each agent's steps in seq order, and counts as
// reminded the steps a reminder followed without a reminder event: a
// resume that runs a failed agent on from a refused answer sends the
// reminder that was due (its meta file says reminder: true), but no event
// says so.
func (b *builder) settleSteps() {
	for _, a := range b.r.Agents {
		slices.SortStableFunc(a.StepNames, func(x, y string) int {
			return cmp.Compare(b.steps[x].Seq, b.steps[y].Seq)
		})
		for i := 1; i < len(a.StepNames); i++ {
			s, prev := b.steps[a.StepNames[i]], b.steps[a.StepNames[i-1]]
			if s.Reminder && !prev.Reminded {
				prev.Reminded = true
				if prev.Refused == "" {
					prev.Refused = prev.Error
				}
				b.r.Reminders++
			}
		}
	}
}

// resumedFailures says which agents failed and went on when the run was
// resumed, one line each, the first maxNamed and a count of the rest:
// failures that a resume fixed leave no other trace in the summary.
func resumedFailures(r *Run) []string {
	var lines []string
	for _, a := range r.Agents {
		for _, f := range a.Failures {
			if f.ResumedAs != "" {
				lines = append(lines, fmt.Sprintf("%s failed at %s: %s; the run was resumed and it went on as %s",
					a.ID, f.State, failureReason(f), f.ResumedAs))
			}
		}
	}
	if len(lines) > maxNamed+1 {
		more := len(lines) - maxNamed
		lines = append(lines[:maxNamed], fmt.Sprintf("and %s that a resume went on from (the Path section marks them)",
			count(more, "more failure", "more failures")))
	}
	return lines
}

// failureReason is the first line of a failure's Reason.
func failureReason(f Failure) string {
	why, _ := firstLine(f.Reason())
	return orUnknown(why)
}

// Reason is the failure's error without the workflow and the state it
// begins with, for a line that names the state itself ("main failed at
// CHECK.md: …"). An agent's error is led by its workflow and then its state
// ("workflow review: CHECK.md: …"), or by its state alone when a raymond
// before that wrote it; both are cut, so the state is said once.
func (f Failure) Reason() string {
	e := f.Error
	if rest, ok := strings.CutPrefix(e, "workflow "); ok && f.State != "" {
		if i := strings.Index(rest, ": "+f.State); i >= 0 {
			e = rest[i+2:]
		}
	}
	return strings.TrimPrefix(e, f.State+": ")
}
