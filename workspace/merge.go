package workspace

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// MergeItem is one branch to merge and the message of its merge commit.
type MergeItem struct {
	Branch, Message string
}

// Merge merges one branch into the worktree dir (MergeAll).
func Merge(ctx context.Context, dir, branch, msg string) (Merged, error) {
	m, err := MergeAll(ctx, dir, []MergeItem{{Branch: branch, Message: msg}})
	if err != nil {
		return Merged{}, err
	}
	return m[0], nil
}

// MergeAll merges branches, in order, into the worktree dir, which holds
// its HEAD and no changes (Reconcile). Each clean merge is a merge commit
// (never a fast-forward: the history says where each worker's work came
// in); a conflict is left out and its paths returned, and the next branch
// is merged on top of what came before. The merges are made without
// touching the worktree (git merge-tree --write-tree, then commit-tree);
// the branch then moves once (a compare-and-swap update-ref) and the
// worktree follows (read-tree -m -u). A branch merged already (before a
// kill) is found (merge-base --is-ancestor) and not merged again, so
// MergeAll can be run again after a kill.
func MergeAll(ctx context.Context, dir string, items []MergeItem) ([]Merged, error) {
	defer lock(dir)()
	g := Git{Dir: dir}
	out, err := g.Run(ctx, "rev-parse", "HEAD^{commit}", "HEAD^{tree}", "--symbolic-full-name", "HEAD")
	if err != nil {
		return nil, fmt.Errorf("merge into %s: %w", dir, err)
	}
	f := strings.Fields(out)
	if len(f) < 3 {
		return nil, fmt.Errorf("merge into %s: cannot read HEAD from %q", dir, out)
	}
	before, tree, ref := f[0], f[1], f[2]
	head := before
	results := make([]Merged, len(items))
	for i, it := range items {
		branch := "refs/heads/" + it.Branch
		res, err := g.Run(ctx, "merge-tree", "--write-tree", "-z", "--name-only", "--no-messages", head, branch)
		recs := splitZ(res)
		var gitErr *Error
		conflicted := errors.As(err, &gitErr) && gitErr.Code == 1 && len(recs) > 0
		if err != nil && !conflicted {
			return nil, fmt.Errorf("merge %s into %s: %w", it.Branch, dir, err)
		}
		if conflicted {
			var paths []string
			for _, p := range recs[1:] {
				if p != "" && !slices.Contains(paths, p) {
					paths = append(paths, p)
				}
			}
			slices.Sort(paths)
			results[i] = Merged{Head: head, Conflicts: paths}
			continue
		}
		merged := recs[0]
		if merged == tree {
			// Nothing new: merged before, or the branch holds nothing
			// that is not here.
			if _, err := g.Run(ctx, "merge-base", "--is-ancestor", branch, head); err == nil {
				results[i] = Merged{Head: head, Already: true}
				continue
			}
		}
		commit, err := g.RunTrim(ctx, []byte(it.Message), "commit-tree", "--no-gpg-sign", merged, "-p", head, "-p", branch, "-F", "-")
		if err != nil {
			return nil, fmt.Errorf("merge %s into %s: %w", it.Branch, dir, err)
		}
		head, tree = commit, merged
		results[i] = Merged{Head: head}
	}
	if head == before {
		return results, nil
	}
	target := ref
	if target == "HEAD" || target == "" {
		target = "HEAD"
	}
	if _, err := g.Run(ctx, "update-ref", "-m", "raymond: merge workers", target, head, before); err != nil {
		return nil, fmt.Errorf("merge into %s: %w", dir, err)
	}
	if _, err := g.Run(ctx, "read-tree", "-m", "-u", before, head); err != nil {
		return nil, fmt.Errorf("merge into %s: update the worktree: %w", dir, err)
	}
	return results, nil
}
