package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"text/tabwriter"
	"time"

	"golang.org/x/sync/errgroup"

	"raymond/machine"
	"raymond/project"
	"raymond/state"
)

var recoverHelp = help{
	name:  "recover",
	usage: "raymond recover [--yes] [--all] [RUN_ID...]",
	text: `
Find the runs that were interrupted: their state says running (or waiting on a
usage limit) but no process holds their lock, because the process driving
them died. Without arguments, list them and change nothing. Given run ids, or
with --yes all of them, resume them concurrently, each run's progress lines
prefixed with its id.

--all also counts paused runs (stopped by a signal or a usage limit with
--no-wait) as ones to recover. Each run is resumed with the options it was
started with. The exit status is the worst of the runs': 2, then 1, 7, 5,
4, 3, 6, then 0 (see 'raymond run --help'). Runs whose agents wait for
answers (status asking) are not interrupted: they are listed apart, with
how to answer them; resumed here, their asks keep waiting (exit 4).`,
	examples: []string{
		"raymond recover                 # what was interrupted?",
		"raymond recover --yes           # resume all of it",
		"raymond recover 20261121-154012-123456-3f9a2c",
	},
}

func runRecover(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlagSet("recover")
	yes := fs.Bool("yes", false, "resume every interrupted run without naming them")
	all := fs.Bool("all", false, "also recover paused runs")
	f := newRunFlags(fs, kindRecover)
	if done, err := parseFlags(fs, args, recoverHelp, env.stdout); done || err != nil {
		return err
	}
	if err := f.check(recoverHelp); err != nil {
		return err
	}
	p, err := openProject(f.project, false)
	if err != nil {
		return err
	}
	ids := fs.Args()
	if len(ids) == 0 {
		found, err := interrupted(p, *all)
		if err != nil {
			return err
		}
		if !*yes {
			listInterrupted(env, found, time.Now())
			return listAsking(env, p)
		}
		for _, r := range found {
			ids = append(ids, r.RunID)
		}
		if len(ids) == 0 {
			fmt.Fprintln(env.stderr, "no interrupted runs")
			return nil
		}
	}
	d, err := newDriving(ctx, env, p, f)
	if err != nil {
		return err
	}
	defer d.close()
	// A run named twice is driven once: a second driver would be refused
	// by the first one's lock.
	ids = unique(ids)
	if code := d.driveAll(ctx, ids); code != exitOK {
		return &exitError{code: code}
	}
	return nil
}

// interrupted returns the runs of p that no process drives although
// their state says one does; withPaused adds the paused runs.
func interrupted(p *project.Project, withPaused bool) ([]project.Listing, error) {
	runs, err := p.Runs()
	if err != nil {
		return nil, err
	}
	var found []project.Listing
	for _, r := range runs {
		row, err := project.Describe(p.Store, r)
		if err != nil {
			return nil, err
		}
		if r.Workspace.Closed() {
			continue // published or discarded: it cannot go on
		}
		if row.Interrupted || (withPaused && r.Status == state.StatusPaused && row.DrivenBy == nil) {
			found = append(found, row)
		}
	}
	return found, nil
}

// listInterrupted shows the runs recover would resume and how to.
func listInterrupted(env *cmdEnv, found []project.Listing, now time.Time) {
	if len(found) == 0 {
		fmt.Fprintln(env.stderr, "no interrupted runs")
		return
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tWORKFLOW\tSTATUS\tAGE\tAGENTS")
	for _, l := range found {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d/%d\n", l.RunID, l.Workflow, l.ShownStatus(), age(now.Sub(l.CreatedAt)), l.AgentsActive, l.AgentsTotal)
	}
	tw.Flush()
	fmt.Fprintln(env.stderr, "Resume them with 'raymond recover --yes', or some of them with 'raymond recover ID...'.")
}

// listAsking names, on stderr, the runs of p that wait for answers: they
// are not interrupted, a person has to answer them.
func listAsking(env *cmdEnv, p *project.Project) error {
	runs, err := p.Runs()
	if err != nil {
		return err
	}
	for _, r := range runs {
		if r.Status != state.StatusAsking {
			continue
		}
		fmt.Fprintf(env.stderr, "run %s is asking, not interrupted: %d pending asks; 'raymond status %s' shows them, 'raymond answer' answers them\n",
			r.WorkflowID, len(machine.PendingAsks(r)), r.WorkflowID)
	}
	return nil
}

// driveAll resumes the runs ids concurrently and returns the worst exit
// status among them. A signal stops them all.
func (d *driving) driveAll(ctx context.Context, ids []string) int {
	ctx, quiesce, stop := interrupts(ctx, d.env.stderr)
	defer stop()
	stderr := &syncWriter{w: d.env.stderr}
	var (
		mu    sync.Mutex
		worst = exitOK
	)
	var g errgroup.Group
	for _, id := range ids {
		g.Go(func() error {
			code := d.recoverOne(ctx, id, quiesce, stderr)
			mu.Lock()
			worst = worse(worst, code)
			mu.Unlock()
			return nil
		})
	}
	_ = g.Wait() // the goroutines report through their codes
	return worst
}

// recoverOne resumes run id, sharing stderr with the others, and returns its
// exit status.
func (d *driving) recoverOne(ctx context.Context, id string, quiesce <-chan struct{}, stderr io.Writer) int {
	if err := checkResumable(d.project.Store, id, nil); err != nil {
		return exitCode(stderr, err)
	}
	drv := d.driver(quiesce, id+" ")
	drv.Progress = stderr
	prepare := d.prepare(drv, id, false, stderr, id+" ")
	r, err := drv.Drive(ctx, id, func(r *state.Run) error {
		if err := prepare(r); err != nil {
			return err
		}
		// Runs driven at once cannot share the terminal: their asks wait.
		drv.OnAsk = askMode(r.Options.OnAsk, false, nil, nil)
		return nil
	})
	if err != nil {
		return exitCode(stderr, driveFailed(id, r, err))
	}
	for _, line := range nextSteps(r) {
		fmt.Fprintf(stderr, "raymond: %s\n", line)
	}
	return project.ExitFor(r.Status)
}

// unique returns ids without repeats, in the order of their first mention.
func unique(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// worse returns the worse of two exit statuses: bad usage, a failed run,
// a claude that cannot run, a budget reached, a run waiting for answers, a
// paused run, a run driven
// elsewhere or already ended, success.
func worse(a, b int) int {
	rank := func(code int) int {
		switch code {
		case exitOK:
			return 0
		case exitNotDriven:
			return 1
		case exitPaused:
			return 2
		case exitAsking:
			return 3
		case exitBudget:
			return 4
		case exitNoClaude:
			return 5
		case exitFailed:
			return 6
		}
		return 7
	}
	if rank(b) > rank(a) {
		return b
	}
	return a
}

// syncWriter serializes the writes of the runs driven at once, so that their
// lines do not interleave mid-line.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
