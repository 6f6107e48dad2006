package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"text/tabwriter"
	"time"

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
"budget_usd", "created_at", "updated_at", "driven_by" (pid or null)}.`,
	examples: []string{
		"raymond list",
		"raymond list --all --json | jq '.[].run_id'",
	},
}

// listed is one run as list shows it.
type listed struct {
	RunID        string       `json:"run_id"`
	Workflow     string       `json:"workflow"`
	ScopeDir     string       `json:"scope_dir"`
	Status       state.Status `json:"status"`
	Interrupted  bool         `json:"interrupted"`
	AgentsActive int          `json:"agents_active"`
	AgentsTotal  int          `json:"agents_total"`
	TotalCostUSD float64      `json:"total_cost_usd"`
	BudgetUSD    float64      `json:"budget_usd"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
	DrivenBy     *int         `json:"driven_by"`
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
	runs, listErr := listRuns(p.store)
	var rows []listed
	for _, r := range runs {
		if !*all && r.Status == state.StatusCompleted {
			continue
		}
		row, err := describe(p.store, r)
		if err != nil {
			return err
		}
		rows = append(rows, row)
	}
	switch {
	case *asJSON:
		if rows == nil {
			rows = []listed{}
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
	}
	return listErr
}

// listRuns returns the runs of store, none when its folder does not exist.
// Runs that could be read come with the error about those that could not.
func listRuns(store *state.Store) ([]*state.Run, error) {
	runs, err := store.List()
	if errors.Is(err, fs.ErrNotExist) && runs == nil {
		return nil, nil
	}
	return runs, err
}

// describe returns what list shows of run r, asking the store whether a
// process drives it.
func describe(store *state.Store, r *state.Run) (listed, error) {
	row := listed{
		RunID:        r.WorkflowID,
		Workflow:     filepath.Base(r.ScopeDir),
		ScopeDir:     r.ScopeDir,
		Status:       r.Status,
		AgentsTotal:  len(r.Agents),
		TotalCostUSD: r.TotalCostUSD,
		BudgetUSD:    r.BudgetUSD,
		CreatedAt:    r.CreatedAt,
		UpdatedAt:    r.UpdatedAt,
	}
	for _, a := range r.Agents {
		if !a.Status.Ended() {
			row.AgentsActive++
		}
	}
	pid, held, err := store.Holder(r.WorkflowID)
	if err != nil {
		return listed{}, err
	}
	if held {
		row.DrivenBy = &pid
	}
	row.Interrupted = !held && (r.Status == state.StatusRunning || r.Status == state.StatusWaiting)
	return row, nil
}

// shownStatus is the status column: a run's status, or interrupted.
func (l listed) shownStatus() string {
	if l.Interrupted {
		return "interrupted"
	}
	return string(l.Status)
}

// printList writes rows as an aligned table.
func printList(w io.Writer, rows []listed, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWORKFLOW\tSTATUS\tAGENTS\tCOST\tAGE")
	for _, l := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%d\t$%.4f\t%s\n",
			l.RunID, l.Workflow, l.shownStatus(), l.AgentsActive, l.AgentsTotal, l.TotalCostUSD, age(now.Sub(l.CreatedAt)))
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
