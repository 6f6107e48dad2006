package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"
	"time"

	"raymond/project"
	"raymond/state"
)

var listHelp = help{
	name:  "list",
	usage: "raymond list [--all] [--json]",
	text: `
List the runs of this project, newest first: id, workflow, status, agents
(active/total), cost and age. A run that says it is running but that no
process drives is shown as interrupted ('raymond recover' resumes it).
Without --all, completed runs are hidden.

--json prints an array of objects: {"run_id", "workflow", "scope_dir",
"status", "interrupted", "agents_active", "agents_total", "total_cost_usd",
"budget_usd", "created_at", "updated_at", "driven_by" (pid or null),
"pending_asks", "state_file", "transcript" ("" without one)}. The table
ends with the folders that hold the state files and the transcripts. A run whose agents wait for answers is shown as
"asking (N)", N the number of pending asks ('raymond status ID' shows them).`,
	examples: []string{
		"raymond list",
		"raymond list --all --json | jq '.[].run_id'",
	},
}

func runList(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("list")
	all := fs.Bool("all", false, "also show completed runs")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	projectDir := fs.String("project", "", "the project `DIR` that holds .raymond/ (default: found from the current folder)")
	if done, err := parseFlags(fs, args, listHelp, env.stdout); done || err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return errNoArgs(listHelp, fs.Args())
	}
	p, err := openProject(*projectDir, false)
	if err != nil {
		return err
	}
	runs, listErr := p.Runs()
	var rows []project.Listing
	for _, r := range runs {
		if !*all && r.Status == state.StatusCompleted {
			continue
		}
		row, err := project.Describe(p.Store, r)
		if err != nil {
			return err
		}
		rows = append(rows, row)
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
		if !*all && len(runs) > 0 {
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
