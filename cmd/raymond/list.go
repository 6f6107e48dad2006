package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"raymond/project"
	"raymond/state"
)

var listHelp = help{
	name:  "list",
	usage: "raymond list [--all] [--status S] [--workflow W] [--limit N] [--json]",
	text: `
List the runs of this project, newest first: id, workflow, status, agents
(active/total), cost and age. A run that says it is running but that no
process drives is shown as interrupted ('raymond recover' resumes it).
Without --all, completed runs are hidden.

--status keeps the runs whose shown status is one of those given (created,
running, interrupted, paused, waiting, asking, completed, failed,
budget_exceeded; repeat the flag or separate with commas); naming completed
shows completed runs without --all. --workflow keeps the runs of one
workflow, named as the WORKFLOW column shows it or by its last path element.
--limit shows at most N runs, the newest.

--json prints an array of objects: {"run_id", "workflow", "scope_dir",
"status", "interrupted", "agents_active", "agents_total", "total_cost_usd",
"budget_usd", "created_at", "updated_at", "driven_by" (pid or null),
"pending_asks", "state_file", "transcript" ("" without one)}. The table
ends with the folders that hold the state files and the transcripts. A run whose agents wait for answers is shown as
"asking (N)", N the number of pending asks ('raymond status ID' shows them).`,
	examples: []string{
		"raymond list",
		"raymond list --all --json | jq '.[].run_id'",
		"raymond list --status failed,interrupted --limit 5",
		"raymond list --all --workflow review",
	},
}

func runList(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("list")
	all := fs.Bool("all", false, "also show completed runs")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	statuses := fs.StringSlice("status", nil, "only runs whose status is one of `S` (e.g. failed,interrupted)")
	workflow := fs.String("workflow", "", "only runs of the workflow `W` (as the WORKFLOW column shows it, or its last path element)")
	limit := fs.Int("limit", 0, "show at most `N` runs, the newest (0: all)")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, listHelp, env.stdout); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errNoArgs(listHelp, fs.Args())
	}
	f, err := newListFilter(*statuses, *workflow, *limit, *all)
	if err != nil {
		return err
	}
	p, err := openProject(*projectDir, false)
	if err != nil {
		return err
	}
	runs, listErr := p.Runs()
	var rows []project.Listing
	for _, r := range runs {
		if !f.all && r.Status == state.StatusCompleted {
			continue
		}
		row, err := project.Describe(p.Store, r)
		if err != nil {
			return err
		}
		if !f.keep(row) {
			continue
		}
		rows = append(rows, row)
		if f.limit > 0 && len(rows) == f.limit {
			break
		}
	}
	switch {
	case *asJSON:
		if rows == nil {
			rows = []project.Listing{}
		}
		data, err := json.Marshal(rows)
		if err != nil {
			return fmt.Errorf("encode runs: %w", err)
		}
		fmt.Fprintf(env.stdout, "%s\n", data)
	case len(rows) == 0:
		msg := "no runs"
		if f.narrowed() && len(runs) > 0 {
			msg = "no runs match"
		} else if !*all && len(runs) > 0 {
			msg = "no runs in progress; 'raymond list --all' shows the completed ones"
		}
		fmt.Fprintln(env.stderr, msg)
	default:
		printList(env.stdout, rows, time.Now())
		fmt.Fprintf(env.stdout, "\nstate files: %s\ntranscripts: %s\n",
			filepath.Join(p.Store.Dir, "ID.json"), filepath.Join(project.DebugDir(p.Dir), "ID"))
	}
	return listErr
}

// printList writes rows as an aligned table.
func printList(w io.Writer, rows []project.Listing, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWORKFLOW\tSTATUS\tAGENTS\tCOST\tAGE")
	for _, l := range rows {
		status := l.ShownStatus()
		if l.PendingAsks > 0 {
			status += fmt.Sprintf(" (%d)", l.PendingAsks)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t$%.4f\t%s\n",
			l.RunID, l.Workflow, status, l.AgentsActive, l.AgentsTotal, l.TotalCostUSD, age(now.Sub(l.CreatedAt)))
	}
	tw.Flush()
}

// age writes a duration the way list shows it: 45s, 3m, 2h, 5d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	}
	return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
}

// listStatuses are the statuses list shows, in the order help names them.
var listStatuses = []string{"created", "running", "interrupted", "paused", "waiting", "asking", "completed", "failed", "budget_exceeded"}

// listFilter is what --status, --workflow and --limit keep.
type listFilter struct {
	statuses map[string]bool
	workflow string
	limit    int
	all      bool // completed runs are candidates
}

func newListFilter(statuses []string, workflow string, limit int, all bool) (listFilter, error) {
	f := listFilter{workflow: workflow, limit: limit, all: all}
	if limit < 0 {
		return f, listHelp.usageError("--limit %d: give a number of runs, 1 or more (0 shows all)", limit)
	}
	for _, s := range statuses {
		s = strings.TrimSpace(s)
		if !slices.Contains(listStatuses, s) {
			return f, listHelp.usageError("--status %q is not a status%s; give one of %s", s,
				didYouMean(s, "", listStatuses), strings.Join(listStatuses, ", "))
		}
		if f.statuses == nil {
			f.statuses = map[string]bool{}
		}
		f.statuses[s] = true
	}
	// Asking for completed runs by name shows them without --all.
	if f.statuses["completed"] {
		f.all = true
	}
	return f, nil
}

// narrowed reports whether a filter beyond --all was given.
func (f listFilter) narrowed() bool { return f.statuses != nil || f.workflow != "" }

func (f listFilter) keep(l project.Listing) bool {
	if f.statuses != nil && !f.statuses[l.ShownStatus()] {
		return false
	}
	if f.workflow != "" {
		name := strings.TrimRight(l.Workflow, "/")
		if name != f.workflow && path.Base(filepath.ToSlash(name)) != f.workflow {
			return false
		}
	}
	return true
}
