package workspace

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"raymond/state"
)

// Step names a step whose changes a checkpoint commits, for its message
// and trailers.
type Step struct {
	Run, Agent, State string
	Seq               int
	CostUSD           float64
	Model             string
}

// Message is the checkpoint commit's message: a subject naming the state,
// the agent and the step, a line naming the run, cost and model, and
// trailers a program can read (git interpret-trailers, git log
// --format=%(trailers)).
func (s Step) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, step %d)\n\n", s.State, s.Agent, s.Seq)
	fmt.Fprintf(&b, "Checkpoint of run %s: what step %d of %s changed, at a cost of $%.4f", s.Run, s.Seq, s.Agent, s.CostUSD)
	if s.Model != "" {
		fmt.Fprintf(&b, " on %s", s.Model)
	}
	b.WriteString(".\n\n")
	fmt.Fprintf(&b, "Raymond-Run: %s\nRaymond-Agent: %s\nRaymond-State: %s\nRaymond-Step: %d\nRaymond-Cost: %s\n",
		s.Run, s.Agent, s.State, s.Seq, strconv.FormatFloat(s.CostUSD, 'f', 6, 64))
	return b.String()
}

// Checkpoint commits everything the worktree dir holds that differs from
// its HEAD (git add --all: the ignored files stay out) on its branch, with
// s's message, and returns the commit with the files it changed; nil when
// nothing changed. Run again after a kill it commits what is left, or
// nothing.
func Checkpoint(ctx context.Context, dir string, s Step) (*state.Checkpoint, error) {
	defer lock(dir)()
	g := Git{Dir: dir}
	if _, err := g.Run(ctx, "add", "--all"); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	tree, err := g.Run(ctx, "write-tree")
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	out, err := g.Run(ctx, "rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--symbolic-full-name", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	f := strings.Fields(out)
	if len(f) < 2 {
		return nil, fmt.Errorf("checkpoint %s: cannot read HEAD from %q", dir, out)
	}
	parent, parentTree, ref := f[0], f[1], ""
	if len(f) > 2 {
		ref = f[2]
	}
	if tree == parentTree {
		// Nothing beyond HEAD; but HEAD may be this very step's checkpoint,
		// made by a raymond killed before it could record it (its step then
		// adopted and applied, not run again): that commit is the step's.
		return again(ctx, g, s, parent, ref)
	}
	commit, err := g.RunTrim(ctx, []byte(s.Message()), "commit-tree", "--no-gpg-sign", tree, "-p", parent, "-F", "-")
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	target := ref
	if target == "" || target == "HEAD" {
		target = "HEAD" // detached: HEAD itself moves
	}
	if _, err := g.Run(ctx, "update-ref", "-m", "raymond: checkpoint", target, commit, parent); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", dir, err)
	}
	files, err := Numstat(ctx, dir, parent, commit)
	if err != nil {
		return nil, err
	}
	return &state.Checkpoint{Commit: commit, Parent: parent, Branch: strings.TrimPrefix(ref, "refs/heads/"), Files: files}, nil
}

// Numstat lists the files that differ between the commits from and to,
// with the lines added and deleted.
func Numstat(ctx context.Context, dir, from, to string) ([]state.FileStat, error) {
	out, err := Git{Dir: dir}.Run(ctx, "diff-tree", "-r", "--no-renames", "--numstat", "-z", from, to)
	if err != nil {
		return nil, fmt.Errorf("list the changed files: %w", err)
	}
	var files []state.FileStat
	for _, rec := range splitZ(out) {
		// added TAB deleted TAB path
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		fs := state.FileStat{Path: parts[2]}
		if parts[0] == "-" {
			fs.Binary = true
		} else {
			fs.Added, _ = strconv.Atoi(parts[0])
			fs.Deleted, _ = strconv.Atoi(parts[1])
		}
		files = append(files, fs)
	}
	return files, nil
}

// Reconcile makes the worktree dir hold exactly the commit head before a
// step starts there. A worktree that holds something else — changes no
// checkpoint took, or another commit — was left by a step cut short (a
// kill, a crash): what it holds is first saved as a commit on the ref
// salvage (refs/raymond/salvage/<run>/<agent>/<seq>, made unique), so
// nothing anyone could see is lost, then the worktree is reset to head
// (git reset --hard, git clean -d: ignored files stay). It returns the ref
// it saved to, "" when the worktree was as it should be.
func Reconcile(ctx context.Context, dir, head, salvage string) (string, error) {
	defer lock(dir)()
	g := Git{Dir: dir}
	out, err := g.Run(ctx, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")
	if err != nil {
		return "", fmt.Errorf("look at the worktree %s: %w", dir, err)
	}
	at, dirty := "", false
	for _, rec := range splitZ(out) {
		if oid, ok := strings.CutPrefix(rec, "# branch.oid "); ok {
			at = oid
		} else if !strings.HasPrefix(rec, "# ") {
			dirty = true
		}
	}
	merging := false
	if _, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "MERGE_HEAD"); err == nil {
		merging = true
	}
	if at == head && !dirty && !merging {
		return "", nil
	}
	saved := ""
	if dirty || at != head {
		if saved, err = save(ctx, g, at, salvage); err != nil {
			return "", fmt.Errorf("save what the worktree %s held: %w", dir, err)
		}
	}
	if _, err := g.Run(ctx, "reset", "--quiet", "--hard", head); err != nil {
		return "", fmt.Errorf("reset the worktree %s: %w", dir, err)
	}
	if _, err := g.Run(ctx, "clean", "-f", "-d", "--quiet"); err != nil {
		return "", fmt.Errorf("clean the worktree %s: %w", dir, err)
	}
	return saved, nil
}

// save commits the worktree as it is on top of at (its HEAD) and points a
// fresh ref named after ref at it.
func save(ctx context.Context, g Git, at, ref string) (string, error) {
	if _, err := g.Run(ctx, "add", "--all"); err != nil {
		return "", err
	}
	tree, err := g.Run(ctx, "write-tree")
	if err != nil {
		return "", err
	}
	commit := at
	if t, _ := g.Run(ctx, "rev-parse", "--verify", "--quiet", at+"^{tree}"); t != tree {
		msg := fmt.Sprintf("What a step cut short left in %s\n\nSaved by raymond before the step ran again.\n", g.Dir)
		args := []string{"commit-tree", "--no-gpg-sign", tree, "-F", "-"}
		if at != "" && at != "(initial)" {
			args = append(args, "-p", at)
		}
		if commit, err = g.RunTrim(context.WithoutCancel(ctx), []byte(msg), args...); err != nil {
			return "", err
		}
	}
	name := ref
	for n := 2; ; n++ {
		if _, err := g.Run(ctx, "update-ref", name, commit, ""); err == nil {
			return name, nil
		} else if n > 100 {
			return "", err
		}
		name = fmt.Sprintf("%s-%d", ref, n)
	}
}

// SalvageRef is where Reconcile saves what a step of agent in run left
// before its step seq ran again.
func SalvageRef(run, agent string, seq int) string {
	return fmt.Sprintf("refs/raymond/salvage/%s/%s/%d", run, agent, seq)
}

// Checkpoint commits what step seq of agent (at stateName, in run, at a
// cost of costUSD on model) changed in dir (Checkpoint), for the driver.
func (Worktrees) Checkpoint(ctx context.Context, dir, run, agent, stateName string, seq int, costUSD float64, model string) (*state.Checkpoint, error) {
	return Checkpoint(ctx, dir, Step{Run: run, Agent: agent, State: stateName, Seq: seq, CostUSD: costUSD, Model: model})
}

// again returns HEAD (head) as the checkpoint of step s when its message
// names s (run, agent and step), as a checkpoint a killed raymond made and
// never recorded; nil otherwise.
func again(ctx context.Context, g Git, s Step, head, ref string) (*state.Checkpoint, error) {
	msg, err := g.Run(ctx, "show", "-s", "--format=%B", head)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", g.Dir, err)
	}
	for _, want := range []string{"Raymond-Run: " + s.Run, "Raymond-Agent: " + s.Agent, fmt.Sprintf("Raymond-Step: %d", s.Seq)} {
		if !slices.Contains(strings.Split(msg, "\n"), want) {
			return nil, nil
		}
	}
	parent, err := g.Run(ctx, "rev-parse", head+"^")
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", g.Dir, err)
	}
	files, err := Numstat(ctx, g.Dir, parent, head)
	if err != nil {
		return nil, err
	}
	return &state.Checkpoint{Commit: head, Parent: parent, Branch: strings.TrimPrefix(ref, "refs/heads/"), Files: files}, nil
}
