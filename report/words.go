package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"raymond/claude"
	"raymond/parsing"
	"raymond/transcript"
)

// show says whether an event has a progress line, and how important it is.
type show int

const (
	// showNone: no progress line; other lines already say it.
	showNone show = iota
	// showNormal: a progress line that --quiet drops.
	showNormal
	// showImportant: a progress line shown even with --quiet.
	showImportant
)

// waitAdvice ends the progress line of a usage-limit wait: it speaks to the
// person at the terminal of the run, not to one following it from another.
const waitAdvice = ". Ctrl-C pauses the run; resume it later."

// Progress words e as a progress line, without the agent's tag or the
// "raymond: " of run lines (Printer adds them). It returns "" for an event
// that has no progress line. important marks the lines --quiet keeps. A line
// may hold several lines: a print, the run's summary.
func Progress(e *transcript.Event) (line string, important bool) {
	text, s := words(e, keep)
	if s == showNone || text == "" {
		return "", false
	}
	if e.Type == transcript.EventWait {
		text += waitAdvice
	}
	return text, s == showImportant
}

// FollowLine words e in one line, as `raymond transcript --follow` prints
// it: the local time, the agent in brackets, and what happened, in the
// words of the progress lines.
func FollowLine(e *transcript.Event) string {
	var b strings.Builder
	b.WriteString(e.Time.Local().Format("15:04:05"))
	b.WriteByte(' ')
	if e.Agent != "" {
		b.WriteString("[" + e.Agent + "] ")
	}
	short := *e
	short.Vars = nil // a fork's variables stay in the progress line and the transcript
	text, _ := words(&short, claude.OneLine)
	text, _, _ = strings.Cut(text, "\n") // the run's summary, were it followed
	b.WriteString(text)
	return b.String()
}

// Words words e as the progress and follow lines do, whether or not it has
// a progress line of its own: for reports that list such events.
func Words(e *transcript.Event) string {
	text, _ := words(e, keep)
	return text
}

// keep leaves free text as it is.
func keep(s string) string { return s }

// words is what e says, without time and agent, and whether it has a
// progress line. free shapes free text (reasons, payloads, what the model
// said): kept whole in progress lines, one line in follow lines.
func words(e *transcript.Event, free func(string) string) (string, show) {
	because := func(what, message string) string {
		if message = free(message); message != "" {
			return what + ": " + message
		}
		return what
	}
	switch e.Type {
	case transcript.EventRunStarted, transcript.EventRunResumed:
		s := "run"
		if e.Run != "" {
			s += " " + e.Run
		}
		if e.Type == transcript.EventRunStarted {
			s += " started"
			if e.State != "" {
				s += " at " + e.State
			}
		} else {
			s += " resumed"
		}
		s = because(s, e.Message)
		if e.Scripted {
			s += " (scripted replies: no model runs; the tools, texts and costs shown are the replies')"
		}
		return s, showImportant
	case transcript.EventStepStarted:
		return stepStarted(e), showNormal
	case transcript.EventStepEnded:
		return stepEnded(e, free), showNone
	case transcript.EventTransition:
		to := e.Target
		if to == "" {
			to = "done"
		}
		return fmt.Sprintf("%s -> %s (%s)%s", e.State, to, e.Tag, costs(e)), showImportant
	case transcript.EventSpawn:
		s := fmt.Sprintf("started %s at %s", e.Child, e.State)
		if len(e.Vars) > 0 {
			s += " (" + vars(e.Vars) + ")"
		}
		return s, showNormal
	case transcript.EventRetry:
		if e.Outcome == "not started" {
			// Short of descriptors or processes: no attempt was spent.
			return fmt.Sprintf("%s: could not start (%s); trying again in %s", e.State, free(e.Message),
				time.Duration(e.DelayMS)*time.Millisecond), showImportant
		}
		s := fmt.Sprintf("%s: %s; retry %d", e.State, free(e.Message), max(e.Attempt-1, 1))
		if e.Max > 0 {
			s += fmt.Sprintf(" of %d", e.Max)
		}
		if e.DelayMS > 0 {
			s += fmt.Sprintf(" in %s", time.Duration(e.DelayMS)*time.Millisecond)
		}
		return s, showImportant
	case transcript.EventFallback:
		return fmt.Sprintf("%s: %s", e.State, free(e.Message)), showImportant
	case transcript.EventReminder:
		s := fmt.Sprintf("%s: %s; reminder %d", e.State, free(e.Message), max(e.Attempt-1, 1))
		if e.Max > 0 {
			s += fmt.Sprintf(" of %d", e.Max)
		}
		return s, showImportant
	case transcript.EventStepDeferred:
		return stepDeferred(e), showImportant
	case transcript.EventStepAdopted:
		if e.Outcome == "running" {
			return fmt.Sprintf("%s: adopted step %s, still running from the raymond that stopped; following it to its end", e.State, e.Step), showImportant
		}
		return fmt.Sprintf("%s: adopted step %s, which ended while no raymond drove the run; its answer is applied, not paid for again", e.State, e.Step), showImportant
	case transcript.EventAgentCompleted:
		s := "completed at " + e.State
		if e.Payload != nil {
			s = because(s, *e.Payload)
		}
		return s, showNone
	case transcript.EventAgentFailed:
		return because("failed", e.Message), showImportant
	case transcript.EventWait:
		return wait(e, free), showImportant
	case transcript.EventWaitTick:
		var until time.Time
		if e.Until != nil {
			until = *e.Until
		}
		return fmt.Sprintf("waiting for the usage limit to reset: %s left (until %s)",
			left(until.Sub(e.Time)), until.Local().Format("15:04:05")), showImportant
	case transcript.EventWaitOver:
		return "usage limit wait over; steps start again", showImportant
	case transcript.EventStillRunning:
		s := fmt.Sprintf("%s: still running after %s", e.State, Duration(time.Duration(e.DurationMS)*time.Millisecond))
		switch {
		case e.Tool != "" && e.Message != "":
			s += fmt.Sprintf(" (last tool: %s %s)", e.Tool, free(firstLine(e.Message)))
		case e.Tool != "":
			s += fmt.Sprintf(" (last tool: %s)", e.Tool)
		}
		return s, showImportant
	case transcript.EventWaitingFor:
		return "waiting for " + e.Message + " to end", showImportant
	case transcript.EventStopping:
		if e.Message != "" {
			return "cannot save the run's state: " + free(e.Message) + "; stopping", showImportant
		}
		return "stopping: no new steps start; the steps running now finish first (interrupt again to kill them)", showImportant
	case transcript.EventPaused:
		return because("paused", e.Message), showNone
	case transcript.EventBudgetExceeded:
		return because("stopped at the budget", e.Message), showNone
	case transcript.EventWarning:
		return "warning: " + free(Warning(e)), showImportant
	case transcript.EventTranscriptFailed:
		return fmt.Sprintf("warning: cannot write the transcript (%s); the run goes on without it", free(e.Message)), showImportant
	case transcript.EventRunEnded:
		s := "run ended: " + e.Status
		if e.TotalCostUSD != nil {
			s += ", " + Money(*e.TotalCostUSD)
			if e.Scripted {
				s += " (scripted)"
			}
		}
		return because(s, e.Message), showNone
	case transcript.EventSummary:
		return summary(e, free), showImportant
	case transcript.EventText:
		t := untagged(claude.FirstLine(e.Message))
		if t == "" {
			return "", showNone
		}
		return fmt.Sprintf("%s: %s", e.State, cut(t, 100)), showNormal
	case transcript.EventToolUse:
		return fmt.Sprintf("%s: %s%s %s", e.State, scriptedMark(e), e.Tool, cut(e.Message, 80)), showNormal
	case transcript.EventToolFailed:
		return fmt.Sprintf("%s: %s%s failed: %s", e.State, scriptedMark(e), e.Tool, cut(e.Message, 80)), showNormal
	case transcript.EventPrint:
		return free(e.Message), showImportant
	case transcript.EventAsk:
		return ask(e, free), showImportant
	case transcript.EventAnswered:
		s := fmt.Sprintf("%s answered", e.AskID)
		if e.Payload != nil {
			// One line: an answer of several would break the progress.
			s += ": " + free(strings.Join(strings.Fields(*e.Payload), " "))
		}
		return s + "; goes on at " + e.Target, showImportant
	case transcript.EventAskExpired:
		if e.Target == "" {
			return fmt.Sprintf("%s expired unanswered", e.AskID), showImportant
		}
		return fmt.Sprintf("%s expired unanswered; goes on at %s", e.AskID, e.Target), showImportant
	case transcript.EventAsking:
		return because("waiting for answers", e.Message), showNone
	case transcript.EventToolRepeated, transcript.EventLoopWarning:
		// The live line is the progress line; the persisted one, written
		// when the step ends, is what --follow and the transcript show.
		text := fmt.Sprintf("%s called %d times in this step (loop_warn)", free(e.Message), e.Count)
		if e.Max > 0 {
			text += fmt.Sprintf("; it stops the step at %d (loop_stop)", e.Max)
		}
		if e.Type == transcript.EventLoopWarning {
			return e.State + ": loop warning: " + text, showNone
		}
		return "warning: " + e.State + ": " + text, showImportant
	case transcript.EventCycle:
		// The agent_failed after it says the same, with what to do.
		return fmt.Sprintf("%s: %s (cycle_stop)", e.State, free(e.Message)), showNone
	case transcript.EventVisitCap:
		return fmt.Sprintf("%s: visit cap %d reached; %s", e.State, e.Max, VisitCapTaken(e)), showImportant
	case transcript.EventAPIRetry:
		return fmt.Sprintf("%s: API error %d, claude retries (attempt %d)", e.State, e.Code, e.Attempt), showNormal
	case transcript.EventCheckpoint:
		return checkpoint(e), showNormal
	case transcript.EventMerged:
		return fmt.Sprintf("merged %s (%s)", e.Child, e.Branch), showNormal
	case transcript.EventMergeConflict:
		return fmt.Sprintf("merge of %s (%s) conflicts in %s; left out, the branch is kept", e.Child, e.Branch, strings.Join(e.Paths, ", ")), showImportant
	case transcript.EventSalvaged:
		return "warning: " + free(e.Message), showImportant
	}
	return e.Type, showNone
}

// ask words an agent's question: "asks ask_main_1: Approve Acme? (answer
// within 48h)".
func ask(e *transcript.Event, free func(string) string) string {
	s := fmt.Sprintf("asks %s: %s", e.AskID, free(e.Message))
	switch {
	case e.Deadline != nil && e.TimeoutNext != "":
		s += fmt.Sprintf(" (answer within %s, else %s)", within(e.Deadline.Sub(e.Time)), e.TimeoutNext)
	case e.Deadline != nil:
		s += fmt.Sprintf(" (answer within %s)", within(e.Deadline.Sub(e.Time)))
	}
	return s
}

// within writes an ask's timeout as it was likely written: 48h, 90m, 30s.
func within(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	case d >= time.Second && d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return Duration(d)
}

// costs writes a step's cost and the run's total after it, when the event
// has them: "  $0.0500, total $0.1500".
func costs(e *transcript.Event) string {
	if e.CostUSD == nil {
		return ""
	}
	s := "  " + Money(*e.CostUSD)
	if e.TotalCostUSD != nil {
		s += ", total " + Money(*e.TotalCostUSD)
	}
	if e.Scripted {
		s += " (scripted)"
	}
	return s
}

// scriptedMark leads what a scripted step says it did: no tool ran.
func scriptedMark(e *transcript.Event) string {
	if e.Scripted {
		return "(scripted) "
	}
	return ""
}

// stepStarted words a step_started event: which step, in which session,
// with which model, which retry. Events written before Seq was recorded
// name the step by its file name.
func stepStarted(e *transcript.Event) string {
	if e.Seq == 0 {
		s := fmt.Sprintf("%s: step %s started", e.State, e.Step)
		if e.Attempt > 1 {
			s += fmt.Sprintf(" (attempt %d)", e.Attempt)
		}
		return s
	}
	if e.Reminder {
		return fmt.Sprintf("%s: step %d (reminder)", e.State, e.Seq)
	}
	what := "new session"
	switch {
	case e.Mode == "script", strings.HasSuffix(e.State, ".sh"):
		// A script state (protocol §11.1) has no session; a transcript
		// written before the mode "script" existed records the one the
		// agent's next prompt would use.
		what = "script"
	case e.Mode == "resume":
		what = "resumed session"
	case e.Mode == "branch":
		what = "branch of the caller's session"
	}
	s := fmt.Sprintf("%s: step %d (%s", e.State, e.Seq, what)
	switch e.Model {
	case "":
	case "default":
		// The --model alias of Claude Code's own default, named before
		// the run has seen which model that is.
		s += ", Claude Code's default model"
	default:
		s += ", " + e.Model
	}
	if len(e.Fallbacks) > 0 {
		s += " then " + strings.Join(e.Fallbacks, ", ")
	}
	if len(e.MCPServers) > 0 {
		s += ", MCP " + strings.Join(e.MCPServers, ", ")
	}
	if e.Attempt > 1 {
		s += fmt.Sprintf(", retry %d", e.Attempt-1)
	}
	return s + ")"
}

// stepEnded words a step_ended event: how the step ended, how long it
// took and what it cost. A successful step whose answer was refused does
// not read as a success, and one under a millisecond not as "0s".
func stepEnded(e *transcript.Event, free func(string) string) string {
	took := Duration(time.Duration(e.DurationMS) * time.Millisecond)
	if e.DurationMS == 0 {
		took = "under 1ms" // the event holds whole milliseconds
	}
	s := fmt.Sprintf("%s: %s in %s", e.State, e.Outcome, took)
	if msg := free(e.Message); msg != "" {
		if e.Outcome == "success" {
			// The step ran well; its answer was not taken.
			s = fmt.Sprintf("%s: answered in %s, but the answer was refused", e.State, took)
		}
		s += ": " + msg
	}
	return s + costs(e)
}

// stepDeferred words a step that stopped and runs again later.
func stepDeferred(e *transcript.Event) string {
	switch e.Outcome {
	case "canceled":
		return e.State + ": step stopped; it runs again on resume"
	case "usage limit":
		return e.State + ": usage limit reached; the step runs again after the reset"
	case "exhausted":
		return e.State + ": stopped at the run's budget; it runs again when the run is resumed with a higher --budget"
	case "share":
		return e.State + ": stopped at its share of the budget; it runs again when the steps in flight end"
	}
	return fmt.Sprintf("%s: step stopped (%s); it runs again later", e.State, e.Outcome)
}

// wait words the start of a usage-limit wait: why, until when, and how
// long that is from the event.
func wait(e *transcript.Event, free func(string) string) string {
	s := "usage limit reached"
	if msg := free(e.Message); msg != "" {
		s += " (" + msg + ")"
	}
	starts := "no new step starts"
	if e.Model != "" {
		// One model's limit: steps on other models go on.
		starts = "no new step starts on " + e.Model
	}
	if e.Until == nil {
		return s + "; " + starts + " until the reset"
	}
	return fmt.Sprintf("%s; %s until %s (in %s)", s, starts,
		e.Until.Local().Format("Jan 2 15:04:05"), left(e.Until.Sub(e.Time)))
}

// summary words the run's last line: how it ended, how long it took, what
// it did and cost, and why agents failed.
func summary(e *transcript.Event, free func(string) string) string {
	took := time.Duration(e.DurationMS) * time.Millisecond
	total := 0.0
	if e.TotalCostUSD != nil {
		total = *e.TotalCostUSD
	}
	s := fmt.Sprintf("run %s %s in %s: %s, %s, %s", e.Run, e.Status, took,
		count(e.Steps, "step"), count(e.Agents, "agent"), Money(total))
	if e.BudgetUSD > 0 {
		s += " of " + Money(e.BudgetUSD)
	}
	if e.Scripted {
		s += " (scripted: no model ran, nothing was billed)"
	}
	if msg := free(e.Message); msg != "" {
		s += "\n" + msg
	}
	for _, f := range e.Failures {
		s += "\n  " + failure(f, free)
	}
	return s
}

// failure words why an agent failed, naming its state once. An agent's
// error names its workflow and then its state ("workflow review: CHECK.md:
// …"), or, from a raymond before that, starts with its state.
func failure(f transcript.Failure, free func(string) string) string {
	if wf, rest, ok := strings.Cut(f.Error, ": "); ok && strings.HasPrefix(wf, "workflow ") && f.State != "" && strings.HasPrefix(rest, f.State) {
		return fmt.Sprintf("%s failed: %s", f.Agent, free(f.Error))
	}
	return fmt.Sprintf("%s failed at %s: %s", f.Agent, f.State, free(strings.TrimPrefix(f.Error, f.State+": ")))
}

// Warning is a warning event's message led by its state, once:
// the warnings of package workflow already name their state.
func Warning(e *transcript.Event) string {
	if e.State == "" || strings.HasPrefix(e.Message, e.State+": ") {
		return e.Message
	}
	if e.Message == "" {
		return e.State
	}
	return e.State + ": " + e.Message
}

// vars writes fork variables as k="v", sorted by key.
func vars(v map[string]string) string {
	keys := slices.Sorted(maps.Keys(v))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%q", k, v[k])
	}
	return strings.Join(parts, " ")
}

// untagged is a line of what the model wrote, cut before its first
// transition tag: while the step runs, a tag is only text, and shown as it
// was written it would read as a transition taken. The transition line
// says it once the answer is accepted; a refusal or a retry says why not.
func untagged(line string) string {
	cut := len(line)
	for _, name := range append(parsing.Names[:len(parsing.Names):len(parsing.Names)], "await") {
		if i := strings.Index(line, "<"+name); i >= 0 && i < cut {
			rest := line[i+1+len(name):]
			if rest == "" || rest[0] == '>' || rest[0] == ' ' || rest[0] == '\t' {
				cut = i
			}
		}
	}
	return strings.TrimSpace(line[:cut])
}

// firstLine is the first line of s, cut at 80 bytes.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	if len(line) > 80 {
		line = strings.ToValidUTF8(line[:80], "") + "…"
	}
	return line
}

// VisitCapTaken says what a visit_cap event took instead of the entry:
// "goto ASK.md", "result \"gave up\"", or "the agent fails".
func VisitCapTaken(e *transcript.Event) string {
	switch {
	case e.Tag == "":
		return "the agent fails"
	case e.Payload != nil && e.Target == "":
		return fmt.Sprintf("%s %q", e.Tag, *e.Payload)
	case e.Payload != nil:
		return fmt.Sprintf("%s %q to %s", e.Tag, *e.Payload, e.Target)
	}
	return e.Tag + " " + e.Target
}

// checkpoint words a step's commit: "START.md: committed 3 files (+12 -4) as 1a2b3c4".
func checkpoint(e *transcript.Event) string {
	c := e.Checkpoint
	if c == nil {
		return e.State + ": checkpoint"
	}
	added, deleted := 0, 0
	for _, f := range c.Files {
		added += f.Added
		deleted += f.Deleted
	}
	files := "files"
	if len(c.Files) == 1 {
		files = "file"
	}
	return fmt.Sprintf("%s: committed %d %s (+%d -%d) as %.7s", e.State, len(c.Files), files, added, deleted, c.Commit)
}
