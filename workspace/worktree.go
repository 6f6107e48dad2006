package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"raymond/state"
)

// DraftBranch is the branch of run's draft: raymond/<run>.
func DraftBranch(run string) string { return "raymond/" + run }

// WorkerBranch is the branch of the worktree agent works in when it has
// one of its own: raymond/<run>.<agent> (state.Workspace.WorkerBranch
// says why not raymond/<run>/<agent>). Every branch of a run matches
// raymond/<run>*.
func WorkerBranch(run, agent string) string {
	return (&state.Workspace{Branch: DraftBranch(run)}).WorkerBranch(agent)
}

// WorktreesDir is the folder of run's worktrees in the project folder
// project (the one that holds .raymond/, whose .gitignore keeps them out
// of git).
func WorktreesDir(project, run string) string {
	return filepath.Join(project, ".raymond", "worktrees", run)
}

// WorktreeDir is the worktree of agent in run: <project>/.raymond/worktrees/<run>/<agent>.
func WorktreeDir(project, run, agent string) string {
	return filepath.Join(WorktreesDir(project, run), agent)
}

// locks serializes the git commands that would race on one repository's
// or one worktree's lock files (index.lock, the worktrees' admin folder):
// one mutex per absolute path.
var locks sync.Map

// lock takes the mutex of path and returns its unlock.
func lock(path string) func() {
	m, _ := locks.LoadOrStore(path, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	return mu.Unlock
}

// commonDir is the repository's own .git folder, shared by its worktrees;
// the key of the lock of what they share.
func commonDir(ctx context.Context, dir string) (string, error) {
	out, err := Git{Dir: dir}.Run(ctx, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return "", err
	}
	return out, nil
}

// AddWorktree makes sure dir is a worktree of the repository at repo on
// branch, made from the commit from when the branch does not exist yet. It
// can be run again after a kill at any point: a worktree that is there is
// kept as it is, a branch that is there is checked out as it is (it may
// hold checkpoints), and a half-made folder or a registration whose folder
// is gone is cleared first. Worktrees of one repository are made one at a
// time: while git makes one, its record under .git/worktrees is half
// written, and a `git worktree add` beside it that looks through the
// worktrees (one of an existing branch does, to see where it is checked
// out) dies on it ("failed to read .git/worktrees/X/commondir").
func AddWorktree(ctx context.Context, repo, dir, branch, from string) error {
	if ok, err := isWorktree(ctx, dir); err != nil || ok {
		return err
	}
	g := Git{Dir: repo}
	common, err := commonDir(ctx, repo)
	if err != nil {
		return fmt.Errorf("make the worktree %s: %w", dir, err)
	}
	defer lock(common)()
	// A folder left by a kill during the checkout is raymond's own, under
	// .raymond/worktrees: it goes.
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("worktree %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("worktree %s: %w", dir, err)
	}
	add := func() error {
		args := []string{"worktree", "add", "--quiet", "--no-track", "-b", branch, dir, from}
		if exists, err := branchExists(ctx, g, branch); err != nil {
			return err
		} else if exists {
			// --force: the branch may still be registered as checked out
			// in the folder a kill removed.
			args = []string{"worktree", "add", "--quiet", "--force", dir, branch}
		}
		_, err := g.Run(ctx, args...)
		return err
	}
	err = add()
	if err == nil {
		return nil
	}
	// Git's records may name worktrees that are gone, or one a kill cut
	// short while git made it: clear them, once, and try again.
	clearHalfMade(common)
	_, perr := g.Run(ctx, "worktree", "prune")
	_ = os.RemoveAll(dir)
	if perr != nil {
		return fmt.Errorf("make the worktree %s: %w", dir, err)
	}
	if err := add(); err != nil {
		return fmt.Errorf("make the worktree %s: %w", dir, err)
	}
	return nil
}

// clearHalfMade removes the records under common/worktrees of raymond's
// worktrees that a kill left half made: no commondir, or an empty one (git
// writes it after the gitdir file and the "initializing" lock, which keeps
// `git worktree prune` off it). Every other git command that looks through
// the worktrees dies on such a record. Only records whose gitdir points
// into a .raymond/worktrees folder, or that have none yet, are raymond's to
// clear; the caller holds the lock of common, so none is being made.
func clearHalfMade(common string) {
	admin := filepath.Join(common, "worktrees")
	ents, err := os.ReadDir(admin)
	if err != nil {
		return
	}
	for _, e := range ents {
		rec := filepath.Join(admin, e.Name())
		if b, err := os.ReadFile(filepath.Join(rec, "commondir")); err == nil && len(bytes.TrimSpace(b)) > 0 {
			continue
		}
		gitdir, err := os.ReadFile(filepath.Join(rec, "gitdir"))
		if err == nil && !strings.Contains(filepath.ToSlash(string(gitdir)), "/.raymond/worktrees/") {
			continue
		}
		_ = os.RemoveAll(rec)
	}
}

// isWorktree reports whether dir is the top level of a git worktree.
func isWorktree(ctx context.Context, dir string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	top, err := Git{Dir: dir}.Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return false, nil // a .git file whose repository is gone: made again
	}
	return sameDir(top, dir), nil
}

// sameDir reports whether a and b name the same folder, links resolved.
func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// branchExists reports whether refs/heads/branch exists.
func branchExists(ctx context.Context, g Git, branch string) (bool, error) {
	_, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	if err == nil {
		return true, nil
	}
	if e, ok := errors.AsType[*Error](err); ok && e.Code == 1 {
		return false, nil
	}
	return false, err
}

// head returns the commit HEAD of dir is on.
func head(ctx context.Context, dir string) (string, error) {
	return Git{Dir: dir}.Run(ctx, "rev-parse", "--verify", "HEAD^{commit}")
}

// splitZ splits the NUL-terminated records of a -z output.
func splitZ(out string) []string {
	out = strings.TrimSuffix(out, "\x00")
	if out == "" {
		return nil
	}
	return strings.Split(out, "\x00")
}

// Worktrees does a run's git work for the driver (orchestrator.Workspaces)
// with the functions of this package.
type Worktrees struct{}

// Draft checks the checkout cwd is in (Inspect), fills ws from it and
// makes the draft (CreateDraft); it returns the draft's first commit.
func (Worktrees) Draft(ctx context.Context, cwd string, carry bool, ws *state.Workspace) (string, error) {
	co, err := Inspect(ctx, cwd, carry)
	if err != nil {
		return "", err
	}
	ws.Repo, ws.BaseBranch, ws.BaseCommit = co.Top, co.Branch, co.Commit
	if err := CreateDraft(ctx, co, ws, carry); err != nil {
		return "", err
	}
	return head(ctx, ws.Dir)
}

// Worktree makes w's worktree when it is not there (AddWorktree).
func (Worktrees) Worktree(ctx context.Context, repo string, w *state.AgentWorkspace) error {
	return AddWorktree(ctx, repo, w.Dir, w.Branch, w.Head)
}

// Reconcile brings w's worktree back to w.Head (Reconcile).
func (Worktrees) Reconcile(ctx context.Context, w *state.AgentWorkspace, salvage string) (string, error) {
	return Reconcile(ctx, w.Dir, w.Head, salvage)
}

// Merge merges branches into the worktree dir, in order (MergeAll).
func (Worktrees) Merge(ctx context.Context, dir string, branches, msgs []string) ([]string, [][]string, error) {
	items := make([]MergeItem, len(branches))
	for i := range branches {
		items[i] = MergeItem{Branch: branches[i], Message: msgs[i]}
	}
	res, err := MergeAll(ctx, dir, items)
	if err != nil {
		return nil, nil, err
	}
	heads, conflicts := make([]string, len(res)), make([][]string, len(res))
	for i, m := range res {
		heads[i], conflicts[i] = m.Head, m.Conflicts
	}
	return heads, conflicts, nil
}

// SalvageRef is SalvageRef.
func (Worktrees) SalvageRef(run, agent string, seq int) string { return SalvageRef(run, agent, seq) }
