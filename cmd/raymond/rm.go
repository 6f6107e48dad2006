package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"raymond/claude"
	"raymond/project"
	"raymond/state"
	"raymond/step"
)

var rmHelp = help{
	name:  "rm",
	usage: "raymond rm [--dry-run] RUN_ID... | raymond rm --finished [--older-than DUR] [--dry-run] [--yes]",
	text: `
Remove runs: each run's state file, its transcript folder and its agents'
task folders. A run that a process drives is refused, naming the process:
pause it first (Ctrl-C in its terminal), or wait for it to end. A run the
project's daemon drives is paused or removed from the daemon's page.

A run started with --workspace worktree loses its draft too, as 'raymond
discard' does: its worktrees, its branches raymond/RUN_ID and
raymond/RUN_ID.AGENT, its salvage refs. A run whose publish was
interrupted is refused: finish it with 'raymond publish RUN_ID' first.

A RUN_ID may be a unique prefix of a run's id, or 'last' for the newest run.

--finished removes every run that has ended (completed, failed or
budget_exceeded); with --older-than, only those whose last change is older
than DUR (90m, 36h, 7d). Runs that can still go on (created, running,
paused, waiting, asking) are never taken by --finished.

--dry-run prints the ids that would be removed, and what goes with each on
stderr (worktrees and refs included), and removes nothing. At a terminal (stdin and stderr both
terminals), --finished lists the runs it would take and asks before
removing them; --yes, or a stdin that is not a terminal (a script, a pipe),
removes them without asking.`,
	examples: []string{
		"raymond rm 20261121-154012-123456-3f9a2c",
		"raymond rm last",
		"raymond rm --finished --older-than 7d",
		"raymond rm --finished --dry-run",
	},
}

func runRm(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("rm")
	finished := fs.Bool("finished", false, "remove every run that has ended")
	olderThan := fs.String("older-than", "", "with --finished, only runs last changed more than `DUR` ago (90m, 36h, 7d)")
	dryRun := fs.Bool("dry-run", false, "print what would be removed and remove nothing")
	yes := fs.Bool("yes", false, "with --finished at a terminal, remove without asking")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, rmHelp, env.stdout); done || err != nil {
		return err
	}
	var age time.Duration
	if fs.Changed("older-than") {
		if !*finished {
			return rmHelp.usageError("--older-than selects among --finished runs; give --finished too")
		}
		var err error
		if age, err = parseAge(*olderThan); err != nil {
			return rmHelp.usageError("--older-than: %v", err)
		}
	}
	switch {
	case *finished && fs.NArg() > 0:
		return rmHelp.usageError("give run ids or --finished, not both")
	case !*finished && fs.NArg() == 0:
		return rmHelp.usageError("missing RUN_ID (or --finished)")
	}
	p, err := openProject(*projectDir, false)
	if err != nil {
		return err
	}
	var runs []*state.Run
	if *finished {
		all, listErr := p.Runs()
		cutoff := time.Now().Add(-age)
		for _, r := range all {
			if project.Ended(r.Status) && r.UpdatedAt.Before(cutoff) {
				runs = append(runs, r)
			}
		}
		if listErr != nil {
			fmt.Fprintf(env.stderr, "raymond: %v\n", listErr)
		}
		if len(runs) == 0 {
			fmt.Fprintln(env.stderr, "raymond: no finished runs to remove")
			return nil
		}
	} else {
		for _, arg := range fs.Args() {
			if err := state.ValidID(arg); err != nil {
				return rmHelp.usageError("%v", err)
			}
			id, err := resolveRunID(p.Store, arg)
			if err != nil {
				return err
			}
			r, err := p.Store.Read(id)
			if err != nil {
				return notFound(p.Store, id, err)
			}
			runs = append(runs, r)
		}
	}
	if *dryRun {
		dryRunRm(ctx, env, p, runs)
		return nil
	}
	if *finished && !*yes && isTerminal(env.stdin) && isTerminal(env.stderr) && !confirmRm(env, runs) {
		return &exitError{code: exitFailed, msg: "nothing removed"}
	}
	var errs []error
	for _, r := range runs {
		endSteps(env, p, r)
		if err := project.RemoveDraft(ctx, p, r); err != nil {
			errs = append(errs, draftFailed(p.Dir, err))
			continue
		}
		if err := project.RemoveRun(p, r); err != nil {
			errs = append(errs, rmRefused(p.Dir, err))
			continue
		}
		fmt.Fprintf(env.stdout, "%s\n", r.WorkflowID)
	}
	if len(errs) > 0 {
		return &exitError{code: exitFailed, msg: errors.Join(errs...).Error()}
	}
	return nil
}

// dryRunRm says what rm would do with runs: each id on stdout, as rm
// prints the ids it removes, and on stderr the folders that would go with
// it or why it would be refused.
func dryRunRm(ctx context.Context, env *cmdEnv, p *project.Project, runs []*state.Run) {
	for _, r := range runs {
		fmt.Fprintf(env.stdout, "%s\n", r.WorkflowID)
		if pid, held, err := p.Store.Holder(r.WorkflowID); err == nil && held {
			fmt.Fprintf(env.stderr, "would refuse %s: driven by process %d\n", r.WorkflowID, pid)
			continue
		}
		files := project.RunFiles(p, r)
		if left, err := project.DraftLeftovers(ctx, r); err == nil {
			files = append(files, left...)
		}
		fmt.Fprintf(env.stderr, "would remove %s: %s\n", r.WorkflowID, strings.Join(files, ", "))
	}
	fmt.Fprintf(env.stderr, "dry run: %d run(s) listed, nothing removed\n", len(runs))
}

// confirmRm lists runs on stderr and asks the person at the terminal
// whether to remove them; only y or yes goes on.
func confirmRm(env *cmdEnv, runs []*state.Run) bool {
	for _, r := range runs {
		fmt.Fprintf(env.stderr, "  %s  %s  %s\n", r.WorkflowID, r.Status, r.UpdatedAt.Local().Format("2006-01-02 15:04"))
	}
	fmt.Fprintf(env.stderr, "remove these %d run(s) with their transcripts and task folders? [y/N] ", len(runs))
	line, _ := bufio.NewReader(env.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// rmRefused says what to do about a run that cannot be removed because the
// project's daemon drives it: pausing the daemon's process, the advice for a
// run a terminal drives, would stop every run it drives. Other errors are
// returned as they are.
func rmRefused(dir string, err error) error {
	le, info, ok := servedBy(dir, err)
	if !ok {
		return err
	}
	return fmt.Errorf("run %s is driven by raymond serve (process %d); wait for it to end or pause it from the page (%s), then remove it there or with 'raymond rm %s'",
		le.ID, info.PID, info.URL, le.ID)
}

// parseAge reads a duration as Go writes one (90m, 36h) or a number of
// days (7d).
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.ParseFloat(n, 64)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("%q is not a duration; give one such as 90m, 36h or 7d", s)
		}
		return time.Duration(days * float64(24*time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration; give one such as 90m, 36h or 7d", s)
	}
	return d, nil
}

// endSteps ends the steps of run r that outlived the raymond that started
// them (steps run detached from their driver), before the run is removed:
// nothing would adopt them once it is gone. A run that a process drives is
// left alone (its removal is refused).
func endSteps(env *cmdEnv, p *project.Project, r *state.Run) {
	if _, held, err := p.Store.Holder(r.WorkflowID); err != nil || held {
		return
	}
	for _, a := range r.Agents {
		if a.Status != state.AgentRunning || a.Pending == nil {
			continue
		}
		pids, err := claude.Sweep(step.Marker(r.Options.ProjectDir, r.WorkflowID, a.ID, a.Steps), claude.DefaultKillGrace)
		name := step.Name(a.ID, a.Pending.State, a.Steps)
		switch {
		case err != nil:
			fmt.Fprintf(env.stderr, "raymond: cannot look for the processes of step %s: %v\n", name, err)
		case len(pids) > 0:
			fmt.Fprintf(env.stderr, "raymond: ended step %s of run %s, still running (pids %s)\n", name, r.WorkflowID, joinPids(pids))
		}
	}
}

func joinPids(pids []int) string {
	s := make([]string, len(pids))
	for i, pid := range pids {
		s[i] = strconv.Itoa(pid)
	}
	return strings.Join(s, " ")
}
