package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"raymond/state"
)

// ListedWorktree is one worktree of a repository, as `git worktree list` gives
// it.
type ListedWorktree struct {
	// Path is its top level; Head the commit it is on.
	Path string
	Head string
	// Branch is the branch checked out in it (refs/heads/...), "" when
	// its HEAD is detached.
	Branch string
	// Bare is set for the repository itself when it is bare.
	Bare bool
}

// ListWorktrees lists the worktrees of the repository that holds dir, the
// main one first.
func ListWorktrees(ctx context.Context, dir string) ([]ListedWorktree, error) {
	out, err := Git{Dir: dir}.Run(ctx, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var (
		list []ListedWorktree
		cur  *ListedWorktree
	)
	for _, field := range strings.Split(out, "\x00") {
		key, value, _ := strings.Cut(field, " ")
		switch key {
		case "worktree":
			list = append(list, ListedWorktree{Path: value})
			cur = &list[len(list)-1]
		case "HEAD":
			if cur != nil {
				cur.Head = value
			}
		case "branch":
			if cur != nil {
				cur.Branch = value
			}
		case "bare":
			if cur != nil {
				cur.Bare = true
			}
		case "":
			cur = nil
		}
	}
	return list, nil
}

// checkedOut returns the worktree that has branch (refs/heads/...) checked
// out, if one has.
func checkedOut(list []ListedWorktree, branch string) (ListedWorktree, bool) {
	for _, w := range list {
		if w.Branch == branch && !w.Bare {
			return w, true
		}
	}
	return ListedWorktree{}, false
}

// RunRefs are the refs that belong to a run: its draft branch
// raymond/<run-id>, its workers' branches raymond/<run-id>.<agent-id> and
// its salvage refs under refs/raymond/salvage/<run-id>/.
func RunRefs(ctx context.Context, repo, runID string) ([]string, error) {
	out, err := Git{Dir: repo}.Run(ctx, "for-each-ref", "--format=%(refname)",
		"refs/heads/raymond/"+runID, "refs/heads/raymond/"+runID+".*", "refs/raymond/salvage/"+runID)
	if err != nil {
		return nil, err
	}
	return fields(out), nil
}

// runWorktrees returns the worktrees of the repository that belong to run
// runID: those under its worktrees folder (the parent of ws.Dir) and those
// on one of its branches.
func runWorktrees(list []ListedWorktree, runID string, ws *state.Workspace) []ListedWorktree {
	root := runRoot(runID, ws)
	var mine []ListedWorktree
	for _, w := range list {
		if w.Bare {
			continue
		}
		under := root != "" && (w.Path == root || strings.HasPrefix(w.Path, root+string(filepath.Separator)))
		if under || runBranch(w.Branch, runID) {
			mine = append(mine, w)
		}
	}
	return mine
}

// runRoot is the folder that holds the run's worktrees,
// .raymond/worktrees/<run-id>, or "" when ws.Dir is not laid out so.
func runRoot(runID string, ws *state.Workspace) string {
	if ws.Dir == "" {
		return ""
	}
	root := filepath.Dir(filepath.Clean(ws.Dir))
	if filepath.Base(root) != runID {
		return ""
	}
	return root
}

// runBranch reports whether ref is the draft branch of run runID,
// raymond/<run-id>, or one of its workers', raymond/<run-id>.<agent-id>.
// A run id has no dot, so no other run's branch matches.
func runBranch(ref, runID string) bool {
	name, ok := strings.CutPrefix(ref, "refs/heads/raymond/"+runID)
	return ok && (name == "" || strings.HasPrefix(name, "."))
}

// Leftovers lists what of run runID is still in the repository: its
// worktrees (registered or only a folder) and its refs. keep tells the
// refs that are meant to stay (see Cleanup) from those left over.
func Leftovers(ctx context.Context, runID string, ws *state.Workspace, keep func(ref string) bool) ([]string, error) {
	list, err := ListWorktrees(ctx, ws.Repo)
	if err != nil {
		return nil, err
	}
	var left []string
	for _, w := range runWorktrees(list, runID, ws) {
		left = append(left, "worktree "+w.Path)
	}
	if root := runRoot(runID, ws); root != "" && len(left) == 0 {
		if _, err := os.Stat(root); err == nil {
			left = append(left, "folder "+root)
		}
	}
	refs, err := RunRefs(ctx, ws.Repo, runID)
	if err != nil {
		return nil, err
	}
	for _, ref := range refs {
		if keep == nil || !keep(ref) {
			left = append(left, "ref "+ref)
		}
	}
	return left, nil
}

// Cleanup removes run runID's worktrees (git worktree remove --force, then
// prune, then the run's worktrees folder) and its refs, but those keep
// says to keep (nil keeps none) and a branch that is checked out in a
// worktree that is not the run's. It returns the refs it kept. Every part
// of it can be run again: after a kill, a second Cleanup finishes the job.
func Cleanup(ctx context.Context, runID string, ws *state.Workspace, keep func(ref string) bool) (kept []string, err error) {
	g := Git{Dir: ws.Repo}
	list, err := ListWorktrees(ctx, ws.Repo)
	if err != nil {
		return nil, err
	}
	mine := runWorktrees(list, runID, ws)
	for _, w := range mine {
		if _, statErr := os.Stat(w.Path); statErr != nil {
			continue // gone: prune forgets it
		}
		// Twice forced: a locked worktree goes too.
		if _, err := g.Run(ctx, "worktree", "remove", "--force", "--force", w.Path); err != nil {
			return nil, err
		}
		Crash("cleanup-worktree")
	}
	if _, err := g.Run(ctx, "worktree", "prune"); err != nil {
		return nil, err
	}
	if root := runRoot(runID, ws); root != "" {
		if err := os.RemoveAll(root); err != nil {
			return nil, fmt.Errorf("remove %s: %w", root, err)
		}
	}
	refs, err := RunRefs(ctx, ws.Repo, runID)
	if err != nil {
		return nil, err
	}
	// A worktree the user made on one of the run's branches keeps it.
	if list, err = ListWorktrees(ctx, ws.Repo); err != nil {
		return nil, err
	}
	var drop []string
	for _, ref := range refs {
		_, inUse := checkedOut(list, ref)
		if inUse || (keep != nil && keep(ref)) {
			kept = append(kept, ref)
			continue
		}
		drop = append(drop, ref)
	}
	if len(drop) > 0 {
		var in strings.Builder
		for _, ref := range drop {
			fmt.Fprintf(&in, "delete %s\n", ref)
		}
		if _, err := g.RunInput(ctx, []byte(in.String()), "update-ref", "--stdin"); err != nil {
			return kept, err
		}
	}
	return kept, nil
}

// Discard removes everything of run runID from its repository: worktrees,
// the draft branch, the workers' branches, even those with work the draft
// does not have, and the salvage refs. It can be run again after a kill.
func Discard(ctx context.Context, runID string, ws *state.Workspace) (kept []string, err error) {
	if !ws.Worktree() {
		return nil, errors.New("the run works in the shared mode: it has no draft to discard")
	}
	if ws.Repo == "" {
		return nil, errors.New("the run's workspace names no repository")
	}
	if _, err := os.Stat(ws.Repo); err != nil {
		return nil, fmt.Errorf("the run's repository %s is gone: %w", ws.Repo, err)
	}
	return Cleanup(ctx, runID, ws, nil)
}

// fields splits git's output into its non-empty lines.
func fields(out string) []string {
	return slices.DeleteFunc(strings.Split(out, "\n"), func(s string) bool { return s == "" })
}

// SalvageWorktrees saves what the run's worktrees hold that no commit has
// (a step cut short and never resumed) before they are removed, each as a
// commit on its HEAD under refs/raymond/salvage/<run-id>/<folder>/publish,
// and returns those refs. The worktree's index is used to make it (the
// worktree goes next); run again after a kill, it saves the same again.
func SalvageWorktrees(ctx context.Context, runID string, ws *state.Workspace) ([]string, error) {
	list, err := ListWorktrees(ctx, ws.Repo)
	if err != nil {
		return nil, err
	}
	var refs []string
	for _, w := range runWorktrees(list, runID, ws) {
		if _, err := os.Stat(w.Path); err != nil {
			continue
		}
		g := Git{Dir: w.Path}
		dirty, err := g.Run(ctx, "status", "--porcelain=v2", "-z", "--untracked-files=all")
		if err != nil {
			return refs, err
		}
		if dirty == "" {
			continue
		}
		if _, err := g.Run(ctx, "add", "--all"); err != nil {
			return refs, err
		}
		tree, err := g.Run(ctx, "write-tree")
		if err != nil {
			return refs, err
		}
		commit, err := g.Run(ctx, "commit-tree", tree, "-p", "HEAD", "-m",
			fmt.Sprintf("What worktree %s of run %s held uncommitted\n\nSaved by raymond before the worktree was removed.", filepath.Base(w.Path), runID))
		if err != nil {
			return refs, err
		}
		ref := fmt.Sprintf("refs/raymond/salvage/%s/%s/publish", runID, filepath.Base(w.Path))
		if _, err := g.Run(ctx, "update-ref", ref, commit); err != nil {
			return refs, err
		}
		refs = append(refs, ref)
	}
	return refs, nil
}
