package analysis

import "time"

// Link is one step of the critical path and the gap before it.
type Link struct {
	Step *Step
	// Gap is the time from the end of the link before (for the first
	// link, from the start of the run) to this step's start; GapMS is
	// the same rounded to milliseconds.
	Gap   time.Duration
	GapMS int64
	// Why names what filled most of the gap, when it is known: a
	// usage-limit wait, a retry's back-off, or no process driving the run.
	// It is "" for the orchestrator's own time and for a step that waited
	// for a free slot (--max-parallel).
	Why string
}

// The reasons a Link gives for its gap.
const (
	GapWait     = "usage-limit wait"
	GapBackoff  = "retry back-off"
	GapUndriven = "not driven (paused or stopped)"
)

// CriticalPath returns the chain of steps that determined the run's wall
// time, first to last. It starts from the step that ended last and goes
// back: a step's predecessor is the same agent's step before it, or, for an
// agent's first step, the step whose fork started the agent. The chain
// ends at a step with neither (main's first step).
//
// The definition sees only what the transcript records. An agent that
// waits for others through files (a WAIT state that goes round until the
// workers' reports exist) is not known to depend on them: the path runs
// through the waiting agent's own steps, and the workers it waited for do
// not appear on it. A usage-limit wait or a retry's back-off shows as the
// gap before the step that followed it.
func CriticalPath(r *Run) []Link {
	if len(r.Steps) == 0 {
		return nil
	}
	byName := make(map[string]*Step, len(r.Steps))
	var last *Step
	for _, s := range r.Steps {
		byName[s.Name] = s
		if last == nil || !endOf(s).Before(endOf(last)) { // the later one of a tie
			last = s
		}
	}
	agents := make(map[string]*Agent, len(r.Agents))
	for _, a := range r.Agents {
		agents[a.ID] = a
	}
	// index is each step's place in its agent's steps.
	index := make(map[string]int, len(r.Steps))
	for _, a := range r.Agents {
		for i, n := range a.StepNames {
			index[n] = i
		}
	}
	var chain []*Step
	seen := make(map[*Step]bool)
	for s := last; s != nil && !seen[s]; {
		seen[s] = true
		chain = append(chain, s)
		a := agents[s.Agent]
		switch i := index[s.Name]; {
		case a == nil:
			s = nil
		case i > 0:
			s = byName[a.StepNames[i-1]]
		default:
			s = byName[a.SpawnStep]
		}
	}
	links := make([]Link, len(chain))
	for i := range chain {
		s := chain[len(chain)-1-i]
		from := r.Started
		var prev *Step
		if i > 0 {
			prev = links[i-1].Step
			if end := endOf(prev); !end.IsZero() {
				from = end
			}
		}
		gap := max(s.Started.Sub(from), 0)
		links[i] = Link{Step: s, Gap: gap, GapMS: millis(gap), Why: gapReason(r, prev, from, s.Started)}
	}
	return links
}

// gapReason says what filled most of the time from..to after step prev.
func gapReason(r *Run, prev *Step, from, to time.Time) string {
	gap := to.Sub(from)
	if gap <= 0 {
		return ""
	}
	var waited time.Duration
	for _, w := range r.Waits {
		end := w.Ended
		if end.IsZero() {
			end = r.Ended
		}
		waited += overlap(from, to, w.Started, end)
	}
	if waited*2 >= gap {
		return GapWait
	}
	driven := time.Duration(0)
	for _, p := range r.Processes {
		driven += overlap(from, to, p.Started, p.Ended)
	}
	if len(r.Processes) > 0 && (gap-driven)*2 >= gap {
		return GapUndriven
	}
	if prev != nil && prev.Retried {
		return GapBackoff
	}
	return ""
}

// overlap is how long [a1, a2] and [b1, b2] share.
func overlap(a1, a2, b1, b2 time.Time) time.Duration {
	start, end := a1, a2
	if b1.After(start) {
		start = b1
	}
	if b2.Before(end) {
		end = b2
	}
	return max(end.Sub(start), 0)
}
