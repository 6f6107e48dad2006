package workspace

import (
	"context"
	"fmt"
	"slices"
)

// Merged is how a worker's branch came back into a workspace.
type Merged struct {
	// Head is the workspace's commit after the merge (the merge commit;
	// the same as before for a conflict).
	Head string
	// Already says the branch had been merged before (a merge done before
	// a kill, whose end was never recorded): nothing was done.
	Already bool
	// Conflicts are the paths that conflicted; the merge was left out and
	// the worktree is as it was.
	Conflicts []string
}

// Merge merges branch into the worktree dir, which holds its HEAD and no
// changes (Reconcile), as a merge commit (never a fast-forward: the
// history says where each worker's work came in) with message msg. A
// conflict is aborted, the worktree left clean, and its paths returned.
// A branch merged already is found (merge-base --is-ancestor) and not
// merged again, so Merge can be run again after a kill.
func Merge(ctx context.Context, dir, branch, msg string) (Merged, error) {
	defer lock(dir)()
	g := Git{Dir: dir}
	before, err := head(ctx, dir)
	if err != nil {
		return Merged{}, fmt.Errorf("merge %s: %w", branch, err)
	}
	if _, err := g.Run(ctx, "merge-base", "--is-ancestor", "refs/heads/"+branch, "HEAD"); err == nil {
		return Merged{Head: before, Already: true}, nil
	} else if e, ok := err.(*Error); !ok || e.Code != 1 {
		return Merged{}, fmt.Errorf("merge %s: %w", branch, err)
	}
	_, err = g.Run(ctx, "merge", "--no-ff", "--no-edit", "--no-verify", "--no-gpg-sign", "--quiet", "-m", msg, "refs/heads/"+branch)
	if err == nil {
		after, err := head(ctx, dir)
		return Merged{Head: after}, err
	}
	out, lerr := g.Run(ctx, "diff", "--name-only", "--diff-filter=U", "-z")
	paths := splitZ(out)
	// Whatever went wrong, the worktree goes back to what it held.
	if _, aerr := g.Run(context.WithoutCancel(ctx), "merge", "--abort"); aerr != nil {
		if _, rerr := g.Run(context.WithoutCancel(ctx), "reset", "--quiet", "--hard", before); rerr != nil {
			return Merged{}, fmt.Errorf("merge %s: %w; and the worktree could not be reset: %w", branch, err, rerr)
		}
	}
	if lerr != nil || len(paths) == 0 {
		return Merged{}, fmt.Errorf("merge %s: %w", branch, err)
	}
	slices.Sort(paths)
	return Merged{Head: before, Conflicts: paths}, nil
}
