package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"raymond/state"
)

// How a draft was published.
const (
	PublishFastForward = "fast-forward" // the branch moved to the draft's head
	PublishMerge       = "merge"        // a merge commit of the branch and the draft
	PublishSquash      = "squash"       // one commit with the draft's changes
	PublishNewBranch   = "new-branch"   // --into a branch that did not exist: made at the draft's head
	PublishUpToDate    = "up-to-date"   // the branch had the draft's changes already
)

// PublishTrailer is the trailer of the commit publish makes (a merge or a
// squash), naming the run: a second publish after a kill finds it and does
// not make another.
const PublishTrailer = "Raymond-Publish"

// PublishOptions say where and how to publish a draft.
type PublishOptions struct {
	// Into is the branch to publish into; "" is the branch the run started
	// from.
	Into string
	// Squash makes one commit of the draft's changes, whatever the history.
	Squash bool
	// Message is the squashed commit's body: the run's steps. "" lists the
	// draft's commits.
	Message string
}

// Publication is what Publish did.
type Publication struct {
	// Into is the branch (short name) published into; Commit the commit it
	// is on now; How one of the Publish* values.
	Into   string
	Commit string
	How    string
	// Checkout is the worktree whose checkout of Into was moved along, ""
	// when the branch is checked out nowhere.
	Checkout string
	// Head is the draft's head that was published.
	Head string
}

// ConflictError refuses to publish a draft whose branch moved since the
// run started in a way that conflicts with the draft: nothing was changed.
type ConflictError struct {
	Run, Into, Draft string
	Paths            []string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("cannot publish run %s: %s moved since the run started and conflicts with the draft in %s; nothing was changed. "+
		"Merge it by hand (git merge %s in a checkout of %s, then raymond discard %s), or publish into a new branch (raymond publish %s --into BRANCH)",
		e.Run, e.Into, strings.Join(e.Paths, ", "), e.Draft, e.Into, e.Run, e.Run)
}

// DirtyError refuses to publish into a branch checked out in a worktree
// whose uncommitted changes touch files the publish would change: the
// user's work is never overwritten.
type DirtyError struct {
	Run, Into, Checkout string
	Paths               []string
}

func (e *DirtyError) Error() string {
	return fmt.Sprintf("cannot publish run %s: %s is checked out in %s, whose uncommitted changes to %s the publish would overwrite; nothing was changed. "+
		"Commit or put those changes aside, then run raymond publish %s again",
		e.Run, e.Into, e.Checkout, strings.Join(e.Paths, ", "), e.Run)
}

// Publish merges run runID's draft into a branch: a fast-forward when the
// branch has not moved since, else a merge commit, or one squashed commit
// (opts). When the branch is checked out in a worktree (the user's
// checkout), that checkout is moved along as `git merge --ff-only` would,
// and only if its uncommitted changes touch none of the files that change.
//
// The branch is changed once, at the end, by compare-and-swap: a kill
// before leaves it as it was; a kill after leaves it published, and Publish
// run again finds that (the draft's head in the branch, or the commit with
// the run's PublishTrailer) and says up-to-date. The worktrees and branches
// are not touched: Cleanup removes them once the run records the
// publication.
func Publish(ctx context.Context, runID string, ws *state.Workspace, opts PublishOptions) (Publication, error) {
	if !ws.Worktree() {
		return Publication{}, errors.New("the run works in the shared mode: its changes are in its folder already, and there is no draft to publish")
	}
	if _, err := os.Stat(ws.Repo); err != nil {
		return Publication{}, fmt.Errorf("the run's repository %s is gone: %w", ws.Repo, err)
	}
	g := Git{Dir: ws.Repo}
	p := Publication{Into: opts.Into}
	if p.Into == "" {
		p.Into = ws.BaseBranch
	}
	if p.Into == "" {
		return p, fmt.Errorf("run %s started on a detached HEAD, so it has no branch to publish into: give one with --into BRANCH", runID)
	}
	if _, err := g.Run(ctx, "check-ref-format", "refs/heads/"+p.Into); err != nil || strings.HasPrefix(p.Into, "-") {
		return p, fmt.Errorf("--into %q is not a valid branch name", p.Into)
	}
	if runBranch("refs/heads/"+p.Into, runID) {
		return p, fmt.Errorf("cannot publish run %s into its own branch %s", runID, p.Into)
	}
	ref := "refs/heads/" + p.Into
	head, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+ws.Branch+"^{commit}")
	if err != nil {
		return p, fmt.Errorf("the run's draft branch %s is gone, so there is nothing to publish; raymond discard %s forgets the draft", ws.Branch, runID)
	}
	p.Head = head
	old, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		// A new branch: made at the draft's head, nothing to merge.
		if _, err := g.Run(ctx, "update-ref", "-m", "raymond publish "+runID, ref, head, ""); err != nil {
			return p, err
		}
		p.Commit, p.How = head, PublishNewBranch
		return p, nil
	}
	if done, ok, err := published(ctx, g, runID, old, head, ws.BaseCommit); err != nil || ok {
		p.Commit, p.How = done, PublishUpToDate
		return p, err
	}
	var next string
	switch ff := isAncestor(ctx, g, old, head); {
	case ff && !opts.Squash:
		next, p.How = head, PublishFastForward
	default:
		tree, conflicts, err := mergeTree(ctx, g, old, head)
		if err != nil {
			return p, err
		}
		if len(conflicts) > 0 {
			return p, &ConflictError{Run: runID, Into: p.Into, Draft: ws.Branch, Paths: conflicts}
		}
		args := []string{"commit-tree", tree, "-p", old}
		if opts.Squash {
			p.How = PublishSquash
			msg := opts.Message
			if msg == "" {
				if msg, err = commitList(ctx, g, ws.BaseCommit, head); err != nil {
					return p, err
				}
			}
			args = append(args, "-m", fmt.Sprintf("raymond: publish run %s (squashed)", runID), "-m", msg)
		} else {
			p.How = PublishMerge
			args = append(args, "-p", head, "-m", fmt.Sprintf("Merge %s: publish run %s", ws.Branch, runID))
		}
		args = append(args, "-m", PublishTrailer+": "+runID)
		if next, err = g.Run(ctx, args...); err != nil {
			return p, err
		}
	}
	Crash("publish-commit")
	list, err := ListWorktrees(ctx, ws.Repo)
	if err != nil {
		return p, err
	}
	if w, ok := checkedOut(list, ref); ok {
		if err := moveCheckout(ctx, runID, p.Into, w, old, next); err != nil {
			return p, err
		}
		p.Checkout = w.Path
	} else if _, err := g.Run(ctx, "update-ref", "-m", "raymond publish "+runID, ref, next, old); err != nil {
		return p, err
	}
	p.Commit = next
	return p, nil
}

// published reports whether branch tip old has run runID's draft head
// already, and the commit that published it: the head itself (a
// fast-forward), or the commit since base carrying the run's
// PublishTrailer.
func published(ctx context.Context, g Git, runID, old, head, base string) (string, bool, error) {
	if old == head {
		return head, true, nil
	}
	rng := old
	if base != "" && isAncestor(ctx, g, base, old) {
		rng = base + ".." + old
	}
	// The commit is near the branch's tip unless much happened since: a
	// thousand commits of the branch's own history are plenty.
	out, err := g.Run(ctx, "log", "--first-parent", "--max-count=1000", "--format=%H%x00%(trailers:key="+PublishTrailer+",valueonly,separator=%x00)%x01", rng)
	if err != nil {
		return "", false, err
	}
	for _, rec := range strings.Split(out, "\x01") {
		commit, trailers, _ := strings.Cut(strings.TrimSpace(rec), "\x00")
		for _, t := range strings.Split(trailers, "\x00") {
			if strings.TrimSpace(t) == runID {
				return commit, true, nil
			}
		}
	}
	if isAncestor(ctx, g, head, old) {
		// Merged by hand, a fast-forward after which the branch moved on,
		// or a draft that changed nothing: the branch has it all.
		return old, true, nil
	}
	return "", false, nil
}

// isAncestor reports whether commit a is an ancestor of b (or b itself).
func isAncestor(ctx context.Context, g Git, a, b string) bool {
	_, err := g.Run(ctx, "merge-base", "--is-ancestor", a, b)
	return err == nil
}

// mergeTree merges commits ours and theirs without a worktree and returns
// the tree of the result, or the paths that conflict.
func mergeTree(ctx context.Context, g Git, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := g.Run(ctx, "merge-tree", "--write-tree", "--name-only", "-z", "--no-messages", ours, theirs)
	var ge *Error
	if err != nil && !(errors.As(err, &ge) && ge.Code == 1) {
		return "", nil, err
	}
	parts := strings.Split(out, "\x00")
	tree = parts[0]
	if err != nil { // exit 1: conflicts, one path a field until an empty one
		for _, path := range parts[1:] {
			if path == "" {
				break
			}
			if len(conflicts) == 0 || conflicts[len(conflicts)-1] != path {
				conflicts = append(conflicts, path)
			}
		}
		if len(conflicts) == 0 {
			return "", nil, fmt.Errorf("git merge-tree %s %s: it reports a conflict and names no file", ours, theirs)
		}
	}
	return tree, conflicts, nil
}

// commitList is the body of a squashed commit when none is given: the
// draft's commits from base to head, oldest first, one a line.
func commitList(ctx context.Context, g Git, base, head string) (string, error) {
	out, err := g.Run(ctx, "-c", "core.quotepath=off", "log", "--reverse", "--no-merges", "--format=- %h %s", base+".."+head)
	if err != nil {
		return "", err
	}
	if out == "" {
		return "The draft changed nothing.", nil
	}
	return "Steps:\n" + out, nil
}

// moveCheckout moves the checkout w of branch into from old to next as
// `git merge --ff-only` does: its index and files follow, and uncommitted
// changes to other files stay. Uncommitted changes to files that change,
// and untracked files where a file comes, refuse it before anything moves.
func moveCheckout(ctx context.Context, runID, into string, w ListedWorktree, old, next string) error {
	g := Git{Dir: w.Path}
	if w.Head != old {
		return fmt.Errorf("%s moved while run %s was being published; run raymond publish %s again", into, runID, runID)
	}
	changed, err := g.Run(ctx, "diff", "--name-only", "-z", "--no-renames", old, next)
	if err != nil {
		return err
	}
	dirty, err := dirtyPaths(ctx, g)
	if err != nil {
		return err
	}
	var both []string
	for _, p := range strings.Split(changed, "\x00") {
		if p != "" && dirty[p] {
			both = append(both, p)
		}
	}
	if len(both) > 0 {
		return &DirtyError{Run: runID, Into: into, Checkout: w.Path, Paths: both}
	}
	_, err = g.Run(ctx, "merge", "--ff-only", "--no-edit", "--quiet", next)
	return err
}

// dirtyPaths returns the paths with uncommitted changes in worktree g,
// untracked files included, ignored ones not.
func dirtyPaths(ctx context.Context, g Git) (map[string]bool, error) {
	out, err := g.Run(ctx, "status", "--porcelain=v2", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, err
	}
	dirty := map[string]bool{}
	for _, rec := range strings.Split(out, "\x00") {
		switch {
		case strings.HasPrefix(rec, "1 "):
			// 1 XY sub mH mI mW hH hI path: the path is the 9th field.
			if f := strings.SplitN(rec, " ", 9); len(f) == 9 {
				dirty[f[8]] = true
			}
		case strings.HasPrefix(rec, "u "):
			// u XY sub m1 m2 m3 mW h1 h2 h3 path
			if f := strings.SplitN(rec, " ", 11); len(f) == 11 {
				dirty[f[10]] = true
			}
		case strings.HasPrefix(rec, "? "):
			dirty[rec[2:]] = true
		}
	}
	return dirty, nil
}

// Crash ends the process at the named point when RAYMOND_TEST_CRASH_AT
// names it, as kill -9 would (exit 137, nothing deferred runs): the hook
// by which the tests prove that publish and discard finish what a kill
// interrupted. It is not meant for users.
func Crash(point string) {
	if v := os.Getenv("RAYMOND_TEST_CRASH_AT"); v != "" && v == point {
		os.Exit(137)
	}
}
