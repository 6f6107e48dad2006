package wftest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"raymond/analysis"
	"raymond/scripted"
)

// check compares a case's run with its expectations and returns what did
// not hold, the causes first: replies that ran out and, when anything
// failed, the answers the run refused; then status, paths, result, steps,
// reminders, retries, cost, unvisited states, asks (asker is nil when the
// case answers none), and replies and answers left over.
func check(c *Case, run *analysis.Run, runner *scripted.Runner, asker *caseAsker) []string {
	fails, explained := exhaustedMessages(runner.Exhausted(), run)
	causes := len(fails)
	e := c.Expect
	if run.Status != e.Status {
		fails = append(fails, fmt.Sprintf("status: got %s, want %s%s", run.Status, e.Status, why(run)))
	}
	if e.Paths != nil {
		fails = append(fails, checkPaths(e.Paths, run)...)
	}
	if e.Result != nil {
		if msg := checkResult(run, *e.Result); msg != "" {
			fails = append(fails, msg)
		}
	}
	if e.ResultMatches != nil {
		switch {
		case run.Result == nil:
			fails = append(fails, fmt.Sprintf("result: the run has no result (status %s), want one matching /%s/", run.Status, e.ResultMatches))
		case !e.ResultMatches.MatchString(strings.TrimSpace(*run.Result)):
			fails = append(fails, fmt.Sprintf("result: got %s, which does not match /%s/", quote(strings.TrimSpace(*run.Result)), e.ResultMatches))
		}
	}
	if e.Steps != nil && run.StepCount != *e.Steps {
		fails = append(fails, fmt.Sprintf("steps: got %d, want %d", run.StepCount, *e.Steps))
	}
	if e.Reminders != nil && run.Reminders != *e.Reminders {
		fails = append(fails, fmt.Sprintf("reminders: got %d, want %d", run.Reminders, *e.Reminders))
	}
	if e.Retries != nil && run.Retries != *e.Retries {
		fails = append(fails, fmt.Sprintf("retries: got %d, want %d", run.Retries, *e.Retries))
	}
	if e.CostUSD != nil && math.Abs(run.CostUSD-*e.CostUSD) > CostTolerance {
		fails = append(fails, fmt.Sprintf("cost: got %s USD, want %s", money(run.CostUSD), money(*e.CostUSD)))
	}
	for _, s := range e.Unvisited {
		if msg := checkUnvisited(run, s); msg != "" {
			fails = append(fails, msg)
		}
	}
	fails = append(fails, checkAsks(c, run, asker)...)
	if unused := runner.Unused(); len(unused) > 0 {
		fails = append(fails, unusedMessage(unused))
	}
	if len(fails) == 0 {
		return nil
	}
	// A refused answer is a cause too, often the only one: a reminder
	// that recovered from it leaves nothing else but a changed path.
	if msg := refusedMessage(run, explained); msg != "" {
		fails = slices.Insert(fails, causes, msg)
	}
	return fails
}

// exhaustedMessages say which steps found no reply, one message per
// state: the steps of a fan-out that all ran out are named together. When
// one step ran out because the answers before it were refused (a target
// the workflow no longer allows, a missing tag), the message says why:
// that is what the author needs to know; explained holds the names of the
// refused steps the messages name. run may be nil.
func exhaustedMessages(xs []scripted.Exhausted, run *analysis.Run) (msgs []string, explained map[string]bool) {
	type key struct {
		state  string
		listed bool
	}
	var order []key
	steps := make(map[key][]string)
	for _, x := range xs {
		k := key{x.State, x.Listed}
		if _, seen := steps[k]; !seen {
			order = append(order, k)
		}
		steps[k] = append(steps[k], x.Step)
	}
	explained = make(map[string]bool)
	for _, k := range order {
		which := "step " + steps[k][0]
		if n := len(steps[k]); n > 1 {
			which = fmt.Sprintf("%d steps (%s)", n, listed(steps[k], maxListed))
		}
		if k.listed {
			msg := fmt.Sprintf("replies for %s ran out: %s found none left", k.state, which)
			if len(steps[k]) == 1 {
				if prev := refusedBefore(run, steps[k][0]); prev != nil {
					msg += fmt.Sprintf("; the answer of %s before it was refused: %s", prev.Name, clip(prev.Refused, maxReason))
					explained[prev.Name] = true
				}
			}
			msgs = append(msgs, msg)
		} else {
			msgs = append(msgs, fmt.Sprintf("no replies for %s: %s found none; add %s to the case's replies", k.state, which, k.state))
		}
	}
	return msgs, explained
}

// why says why a run that did not complete ended as it did: the errors
// of its failed agents, the agents that failed with the same error named
// together, else the run's error.
func why(run *analysis.Run) string {
	var errs []string
	agents := make(map[string][]string) // error → the agents that failed with it
	for _, a := range run.Agents {
		if a.Status != "failed" || a.Error == "" {
			continue
		}
		if _, seen := agents[a.Error]; !seen {
			errs = append(errs, a.Error)
		}
		agents[a.Error] = append(agents[a.Error], a.ID)
	}
	if len(errs) == 0 {
		if run.Error == "" {
			return ""
		}
		return " (" + clip(run.Error, maxReason) + ")"
	}
	var reasons []string
	for _, e := range errs[:min(len(errs), maxReasons)] {
		reasons = append(reasons, listed(agents[e], maxListed)+" failed: "+clip(e, maxReason))
	}
	if len(errs) > maxReasons {
		others := 0
		for _, e := range errs[maxReasons:] {
			others += len(agents[e])
		}
		reasons = append(reasons, fmt.Sprintf("%s failed otherwise", count(others, "more agent", "more agents")))
	}
	return " (" + strings.Join(reasons, "; ") + ")"
}

// checkPaths compares the path of every agent the case lists with the
// expected one.
func checkPaths(want []AgentStates, run *analysis.Run) []string {
	var fails []string
	for _, w := range want {
		a := agentOf(run, w.Agent)
		if a == nil {
			fails = append(fails, fmt.Sprintf("path of %s: the run has no agent %s (it has %s)", w.Agent, w.Agent, agentIDs(run)))
			continue
		}
		if msg := comparePath(w, a); msg != "" {
			fails = append(fails, msg)
		}
	}
	// Agents the case does not list are not checked: a case may follow
	// main and leave its workers alone (issue 12).
	return fails
}

// comparePath returns the diff of an agent's expected and actual paths,
// "" when they are the same: each visit in the state of its entry, and
// entered by the entry's tag when it names one. Lines are written as
// expect.path entries ("goto FIX"), a visit that ran no step marked so.
func comparePath(w AgentStates, a *analysis.Agent) string {
	edits := diffFunc(len(w.States), len(a.Path), func(i, j int) bool { return w.matches(i, a.Path[j]) })
	if !slices.ContainsFunc(edits, func(e edit) bool { return e.kind != ' ' }) {
		return ""
	}
	show := func(e edit) string {
		if e.kind == '-' {
			return w.entry(e.i)
		}
		k := e.i
		if e.kind == ' ' {
			k = e.j
		}
		return pathEntry(a.Path[k], k == 0) + notRunNote(a.Path[k].NotRun)
	}
	return fmt.Sprintf("path of %s (- expected, + actual):\n%s", w.Agent, formatDiff(edits, show, "states"))
}

// stateKey is how paths compare states: by name, with or without .md.
func stateKey(s string) string { return strings.TrimSuffix(s, ".md") }

func agentOf(run *analysis.Run, id string) *analysis.Agent {
	for _, a := range run.Agents {
		if a.ID == id {
			return a
		}
	}
	return nil
}

func agentIDs(run *analysis.Run) string {
	ids := make([]string, len(run.Agents))
	for i, a := range run.Agents {
		ids[i] = a.ID
	}
	if len(ids) == 0 {
		return "none"
	}
	return listed(ids, maxListed)
}

// maxQuoted is the longest result quoted on one line; longer or
// multi-line results are compared line by line.
const maxQuoted = 120

// checkResult compares main's result with want, both trimmed.
func checkResult(run *analysis.Run, want string) string {
	want = strings.TrimSpace(want)
	if run.Result == nil {
		return fmt.Sprintf("result: the run has no result (status %s), want %s", run.Status, quote(want))
	}
	got := strings.TrimSpace(*run.Result)
	if got == want {
		return ""
	}
	if !strings.Contains(got+want, "\n") && len(got) <= maxQuoted && len(want) <= maxQuoted {
		return fmt.Sprintf("result: got %s, want %s", quote(got), quote(want))
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	show := func(e edit) string {
		if e.kind == '+' {
			return b[e.i]
		}
		return a[e.i]
	}
	return "result (- expected, + actual):\n" + formatDiff(diff(a, b), show, "lines")
}

// quote quotes a result for a message, cut short when long.
func quote(s string) string {
	if r := []rune(s); len(r) > maxQuoted {
		return strconv.Quote(string(r[:maxQuoted-1])+"…") + fmt.Sprintf(" (%d characters)", len(r))
	}
	return strconv.Quote(s)
}

// money writes an amount in USD with the digits it needs.
func money(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64)
}

// checkUnvisited reports the first visit of state s, which should have
// had none.
func checkUnvisited(run *analysis.Run, s string) string {
	for _, a := range run.Agents {
		for _, v := range a.Path {
			if stateKey(v.State) != stateKey(s) {
				continue
			}
			step := ""
			if len(v.Steps) > 0 {
				step = " at step " + v.Steps[0]
			}
			return fmt.Sprintf("unvisited: %s was entered by %s%s", s, a.ID, step)
		}
	}
	return ""
}

// unusedMessage lists the replies no step used.
func unusedMessage(unused []scripted.Unused) string {
	parts := make([]string, min(len(unused), maxListed))
	for i := range parts {
		u := unused[i]
		parts[i] = fmt.Sprintf("%s #%d %s", u.State, u.Index, strconv.Quote(u.Text))
		switch {
		case u.Times == 0:
			parts[i] += " (repeat: true)"
		case u.Used > 0:
			parts[i] += fmt.Sprintf(" (used %d of %d times)", u.Used, u.Times)
		}
	}
	list := strings.Join(parts, ", ")
	if n := len(unused) - len(parts); n > 0 {
		list += fmt.Sprintf(", … and %d more", n)
	}
	return fmt.Sprintf("%s: %s", count(len(unused), "reply never used", "replies never used"), list)
}
