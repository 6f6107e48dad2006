package analysis

import (
	"fmt"
	"strings"

	"raymond/transcript"
)

// maxNamed is how many steps a note names before it counts the rest.
const maxNamed = 3

// notes says what is missing or cut short, run first, then steps.
func (b *builder) notes(src Source, f *folder) {
	r := b.r
	add := func(format string, args ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, args...)) }
	if src.StateProblem != "" {
		add("the state file cannot be used (%s), so the analysis goes on from the transcript alone", src.StateProblem)
	}
	switch {
	case f.noEvents:
		add("%s is missing: steps come from their files alone; tags, forks, retries, reminders and waits are unknown",
			transcript.EventsFile)
	case f.torn > 0 && src.Running:
		add("%s ends in a line still being written (%d bytes), left out", transcript.EventsFile, f.torn)
	case f.torn > 0:
		add("%s ends in a torn line (%d bytes), dropped: the process was killed while writing it", transcript.EventsFile, f.torn)
	}
	if len(f.badLines) > 0 {
		nums := make([]string, len(f.badLines))
		for i, n := range f.badLines {
			nums[i] = fmt.Sprint(n)
		}
		add("%s: %s that do not decode, skipped", transcript.EventsFile, counted(nums, "line", "lines"))
	}
	for i, p := range r.Processes {
		if p.Crashed && i < len(r.Processes)-1 { // the last one is said below
			add("the process driving the run stopped without ending at %s (crashed or killed); the run was resumed later",
				offset(r, p.Ended))
		}
	}
	switch {
	case b.lastEnded:
	case src.Running && src.PID > 0:
		add("the run has not ended: still running (pid %d)", src.PID)
	case src.Running:
		add("the run has not ended: still running")
	case f.noEvents:
	case src.State != nil || src.StateProblem != "":
		add("the run stopped without ending (crashed or killed); `raymond resume %s` continues it", r.ID)
	default:
		add("the transcript ends without run_ended and there is no state file: the run stopped without ending (crashed or killed), or it is still running")
	}
	if st := src.State; st != nil && b.haveTotal && st.TotalCostUSD > b.lastTotal+1e-9 {
		add("the state file's cost (%s) is more than the transcript's last total (%s): some steps are missing from the transcript",
			money(st.TotalCostUSD), money(b.lastTotal))
	}
	b.stepNotes(src, f)
}

// stepNotes says, per kind of gap, which steps lack something.
func (b *builder) stepNotes(src Source, f *folder) {
	var cut, metaOnly, noMeta, badMeta, noPrompt []string
	rerun := make(map[string]string)
	for _, s := range b.r.Steps {
		sf := f.files[s.Name]
		switch {
		case !b.ended[s.Name] && !s.HasMeta:
			if !s.CutShort {
				continue // running now
			}
			cut = append(cut, s.Name)
			if next := b.nextStep(s); next != nil {
				rerun[s.Name] = next.Name
			}
		case !b.ended[s.Name] && !f.noEvents:
			metaOnly = append(metaOnly, s.Name)
		case !s.HasMeta && !src.Running && (sf == nil || !sf.badMeta):
			noMeta = append(noMeta, s.Name)
		}
		if sf != nil && sf.badMeta {
			badMeta = append(badMeta, s.Name)
		}
		if s.HasMeta && !s.HasPrompt && !s.IsScript() {
			noPrompt = append(noPrompt, s.Name)
		}
	}
	r := b.r
	if len(cut) > 0 && len(cut) <= maxNamed {
		for _, name := range cut {
			note := name + ": cut short: it started but never ended (no step_ended event, no meta file)"
			if next := rerun[name]; next != "" {
				note += "; it ran again as " + next
			}
			r.Notes = append(r.Notes, note)
		}
	} else if len(cut) > 0 {
		r.Notes = append(r.Notes, counted(cut, "step", "steps")+" were cut short: they started but never ended (no step_ended event, no meta file)")
	}
	group := func(names []string, what string) {
		if len(names) > 0 {
			r.Notes = append(r.Notes, counted(names, "step", "steps")+": "+what)
		}
	}
	group(metaOnly, "not in "+transcript.EventsFile+"; known from the meta file only")
	group(noMeta, "no meta file; cache tokens, model and session mode are unknown")
	group(badMeta, "the meta file does not decode (cut short?); ignored")
	group(noPrompt, "no prompt file")
}

// nextStep returns the step of s's agent that follows s, nil if none.
func (b *builder) nextStep(s *Step) *Step {
	names := b.agents[s.Agent].StepNames
	for i, n := range names {
		if n == s.Name && i+1 < len(names) {
			return b.steps[names[i+1]]
		}
	}
	return nil
}

// counted names a few items and counts the rest: "step a", "steps a, b and
// c", "7 steps: a, b, c and 4 more".
func counted(items []string, one, many string) string {
	switch n := len(items); {
	case n == 1:
		return one + " " + items[0]
	case n <= maxNamed:
		return many + " " + strings.Join(items[:n-1], ", ") + " and " + items[n-1]
	default:
		return fmt.Sprintf("%d %s: %s and %d more", n, many, strings.Join(items[:maxNamed], ", "), n-maxNamed)
	}
}
