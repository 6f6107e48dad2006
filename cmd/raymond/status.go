package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"raymond/daemon"
	"raymond/project"
	"raymond/state"
	"raymond/workspace"
)

var statusHelp = help{
	name:  "status",
	usage: "raymond status RUN_ID [--json]",
	text: `
Show one run in detail: its status, workflow, cost and budget, result or
error, the usage-limit wait it is in, the process driving it, the paths of
its state file and transcript folder, and for each
agent its status, state, stack depth, session, attempts and last error, and
the asks that wait for an answer.

--json prints the run's state file as it is, plus "driven_by": the pid of the
process driving it, or null, "state_file" and "transcript": the paths of its
state file and transcript folder ("" without one), and "asks": the pending asks, oldest first, each
{"ask_id", "agent_id", "state", "prompt", "asked_at", "deadline",
"timeout_next", "answer"} (deadline and timeout_next null without a timeout).`,
	examples: []string{
		"raymond status 20261121-154012-123456-3f9a2c",
		"raymond status nightly-1 --json | jq .total_cost_usd",
	},
}

func runStatus(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("status")
	asJSON := fs.Bool("json", false, "print the run as JSON")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, statusHelp, env.stdout); done || err != nil {
		return err
	}
	id, err := oneArg(fs.Args(), statusHelp, "RUN_ID")
	if err != nil {
		return err
	}
	p, err := openProject(*projectDir, false)
	if err != nil {
		return err
	}
	if err := state.ValidID(id); err != nil {
		return statusHelp.usageError("%v", err)
	}
	if id, err = resolveRunID(p.Store, id); err != nil {
		return err
	}
	r, err := p.Store.Read(id)
	if err != nil {
		return notFound(p.Store, id, err)
	}
	row, err := project.Describe(p.Store, r)
	if err != nil {
		return err
	}
	if *asJSON {
		data, err := json.Marshal(project.NewDetail(r, row))
		if err != nil {
			return fmt.Errorf("encode run %s: %w", id, err)
		}
		fmt.Fprintf(env.stdout, "%s\n", data)
		return nil
	}
	var served *daemon.Info
	if info, ok := daemon.Running(filepath.Join(p.Dir, ".raymond")); ok && row.DrivenBy != nil && *row.DrivenBy == info.PID {
		served = &info
	}
	printStatus(env.stdout, r, row, served, time.Now())
	return nil
}

// printStatus writes run r in detail.
// served is the project's daemon when it is what drives the run.
func printStatus(w io.Writer, r *state.Run, row project.Listing, served *daemon.Info, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	field := func(name, format string, args ...any) {
		fmt.Fprintf(tw, "%s:\t%s\n", name, fmt.Sprintf(format, args...))
	}
	field("run", "%s", r.WorkflowID)
	status := string(r.Status)
	if row.Interrupted {
		status += " (interrupted: no process drives it; 'raymond recover' resumes it)"
	}
	field("status", "%s", status)
	if r.ScopeURL != "" {
		field("workflow", "%s (cached as %s)", r.ScopeURL, r.ScopeDir)
	} else {
		field("workflow", "%s", r.ScopeDir)
	}
	field("entry", "%s", r.EntryState)
	field("created", "%s (%s ago)", r.CreatedAt.Local().Format(time.DateTime), age(now.Sub(r.CreatedAt)))
	field("updated", "%s (%s ago)", r.UpdatedAt.Local().Format(time.DateTime), age(now.Sub(r.UpdatedAt)))
	if r.BudgetUSD > 0 {
		field("cost", "$%.4f of a $%.4f budget", r.TotalCostUSD, r.BudgetUSD)
	} else {
		field("cost", "$%.4f (no budget)", r.TotalCostUSD)
	}
	if r.Result != nil {
		field("result", "%s", oneLine(*r.Result))
	}
	if r.Error != "" {
		field("error", "%s", oneLine(r.Error))
	}
	if r.Wait != nil {
		on := ""
		if r.Wait.Model != "" {
			on = " (" + r.Wait.Model + ")"
		}
		field("wait", "until %s%s: %s", r.Wait.Until.Local().Format(time.DateTime), on, oneLine(r.Wait.Reason))
	}
	for _, h := range r.Holds {
		// The usage limits of single models: steps on them wait.
		field("held", "%s until %s: %s", h.Model, h.Until.Local().Format(time.DateTime), oneLine(h.Reason))
	}
	if served != nil {
		field("driven by", "raymond serve (process %d; its page: %s)", served.PID, served.URL)
	} else if row.DrivenBy != nil {
		field("driven by", "process %d", *row.DrivenBy)
	} else {
		field("driven by", "no process")
	}
	if ws := r.Workspace; ws.Worktree() {
		field("workspace", "%s", draftLine(r.WorkflowID, ws))
	}
	field("state file", "%s", row.StateFile)
	if row.Transcript != "" {
		field("transcript", "%s", row.Transcript)
	} else {
		field("transcript", "none (started with --no-debug)")
	}
	tw.Flush()

	fmt.Fprintln(w, "\nagents:")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  ID\tSTATUS\tSTATE\tDEPTH\tSESSION\tATTEMPTS\tLAST ERROR")
	for _, a := range r.Agents {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\n",
			a.ID, a.Status, a.CurrentState, len(a.Stack), orDash(a.SessionID), a.Attempts, orDash(oneLine(a.LastError)))
	}
	tw.Flush()
	printVisits(w, r)
	printAsks(w, r, served != nil)
}

// printVisits writes each agent's entries into the states that have a
// max_visits, when any agent has some.
func printVisits(w io.Writer, r *state.Run) {
	var lines []string
	for _, a := range r.Agents {
		for _, key := range slices.Sorted(maps.Keys(a.Visits)) {
			lines = append(lines, fmt.Sprintf("  %s\t%s\t%d", a.ID, key, a.Visits[key]))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nvisits (states with max_visits):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  AGENT\tSTATE\tENTRIES")
	for _, l := range lines {
		fmt.Fprintln(tw, l)
	}
	tw.Flush()
}

// printAsks writes the pending asks of run r, oldest first, and how to
// answer them. A run the daemon drives goes on by itself once answered
// (served): it is not resumed by hand.
func printAsks(w io.Writer, r *state.Run, served bool) {
	var answered []string
	for _, a := range r.Agents {
		if a.Status == state.AgentAsking && a.Ask != nil && a.Ask.Answer != nil {
			answered = append(answered, fmt.Sprintf("  %s  [%s] answered: %s", a.Ask.ID, a.ID, oneLine(*a.Ask.Answer)))
		}
	}
	if len(answered) > 0 {
		fmt.Fprintf(w, "\nanswered, used when the run is resumed (raymond resume %s):\n%s\n",
			project.ShellQuote(r.WorkflowID), strings.Join(answered, "\n"))
	}
	asks := project.NewAsking(r).Asks
	if len(asks) == 0 {
		return
	}
	byID := map[string]*state.Ask{}
	for i := range r.Agents {
		if k := r.Agents[i].Ask; k != nil {
			byID[k.ID] = k
		}
	}
	now, open := time.Now(), 0
	fmt.Fprintln(w, "\npending asks:")
	for _, k := range asks {
		fmt.Fprintf(w, "  %s  [%s] at %s, asked %s", k.AskID, k.AgentID, k.State, k.AskedAt)
		switch ask := byID[k.AskID]; {
		case ask != nil && ask.Deadline != nil && !now.Before(*ask.Deadline):
			// No process drove the run at the deadline: the next one
			// expires it (protocol §15.2); an answer now is refused.
			fmt.Fprintf(w, ", expired at %s: %s", *k.Deadline, project.AfterExpiry(ask))
		case k.Deadline != nil:
			open++
			fmt.Fprintf(w, ", answer by %s", *k.Deadline)
			if k.TimeoutNext != nil {
				fmt.Fprintf(w, " (else %s)", *k.TimeoutNext)
			}
		default:
			open++
		}
		fmt.Fprintln(w)
		for l := range strings.SplitSeq(strings.TrimRight(k.Prompt, "\n"), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if open == 0 {
		fmt.Fprintf(w, "\nnone can be answered any more: raymond resume %s goes on\n", project.ShellQuote(r.WorkflowID))
		return
	}
	if served {
		fmt.Fprintf(w, "\nanswer with: raymond answer %s ASK_ID TEXT (the daemon that drives it goes on by itself)\n",
			project.ShellQuote(r.WorkflowID))
		return
	}
	fmt.Fprintf(w, "\nanswer with: raymond answer %s ASK_ID TEXT, then: raymond resume %s\n",
		project.ShellQuote(r.WorkflowID), project.ShellQuote(r.WorkflowID))
}

// oneLine folds s onto one line, so a multi-line value cannot break the
// layout.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// notFound turns the error of reading run id from store into a usage error
// when the run does not exist.
func notFound(store *state.Store, id string, err error) error {
	if errors.Is(err, state.ErrNotFound) {
		return noRun(store, id)
	}
	return err
}

// noRun says that the project of store has no run id, naming the project:
// a run id given in the wrong folder is the usual cause.
func noRun(store *state.Store, id string) error {
	project := filepath.Dir(filepath.Dir(store.Dir))
	return &usageError{
		msg:  fmt.Sprintf("no run %s in the project at %s", id, project),
		hint: "Run 'raymond list --all' to see its runs, or give --project DIR for another project.",
	}
}

// draftLine says where the draft of a run in the worktree mode is, and
// what to do with it.
func draftLine(id string, ws *state.Workspace) string {
	from := ws.BaseBranch
	if from == "" {
		from = "a detached HEAD"
	}
	base := fmt.Sprintf("from %s at %s", from, workspace.ShortCommit(ws.BaseCommit))
	switch ws.Status {
	case state.DraftPublished:
		return fmt.Sprintf("published into %s as %s (the draft %s was %s)", ws.Into, workspace.ShortCommit(ws.Published), ws.Branch, base)
	case state.DraftDiscarded:
		return fmt.Sprintf("discarded (the draft %s was %s)", ws.Branch, base)
	case state.DraftPublishing, state.DraftDiscarding:
		verb := strings.TrimSuffix(ws.Status, "ing")
		return fmt.Sprintf("draft %s %s, %s interrupted: finish with raymond %s %s", ws.Branch, base, ws.Status, verb, id)
	}
	return fmt.Sprintf("draft %s %s in %s; raymond publish %s or raymond discard %s", ws.Branch, base, ws.Dir, id, id)
}
