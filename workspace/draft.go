package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"raymond/state"
)

// Checkout is the user's checkout a run in the worktree mode starts from.
type Checkout struct {
	// Top is the absolute top level of the checkout.
	Top string
	// Branch is the branch it is on, "" when its HEAD is detached.
	Branch string
	// Commit is the commit it is on.
	Commit string
	// Dirty are the paths with uncommitted changes (untracked files that
	// are not ignored included), relative to Top; raymond's own .raymond
	// folders are left out.
	Dirty []string
}

// UsageError is a project the worktree mode cannot start from (no git, an
// old git, no repository, no commit, uncommitted changes): the user's to
// fix. Its message says what to do.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// maxDirtyShown is how many uncommitted paths a refusal names.
const maxDirtyShown = 5

// Inspect checks that dir can start a run in the worktree mode: git is
// there and new enough, dir is in a repository with a commit. It returns
// the checkout; when it is dirty and fromDirty is false, the error says
// which paths and what to do.
func Inspect(ctx context.Context, dir string, fromDirty bool) (*Checkout, error) {
	g := Git{Dir: dir}
	if _, err := g.Version(ctx); err != nil {
		if errors.Is(err, ErrNoGit) {
			return nil, &UsageError{Msg: err.Error()}
		}
		if _, ok := errors.AsType[*Error](err); ok {
			return nil, err
		}
		return nil, &UsageError{Msg: err.Error()}
	}
	top, err := g.Run(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("--workspace worktree needs a git repository, and %s is not in one: "+
			"run 'git init' and commit your files, or use --workspace shared", dir)}
	}
	if bare, _ := g.Run(ctx, "rev-parse", "--is-bare-repository"); bare == "true" {
		return nil, &UsageError{Msg: fmt.Sprintf("--workspace worktree needs a checkout, and %s is a bare repository", dir)}
	}
	co := &Checkout{Top: top}
	if co.Commit, err = g.Run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("--workspace worktree starts the run's draft from your checkout's commit, and the repository at %s has none yet: "+
			"commit your files first, or use --workspace shared", top)}
	}
	co.Branch, _ = g.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	out, err := Git{Dir: top}.Run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames")
	if err != nil {
		return nil, fmt.Errorf("look for uncommitted changes: %w", err)
	}
	for _, rec := range splitZ(out) {
		if len(rec) < 4 {
			continue
		}
		p := rec[3:]
		if raymonds(p) {
			continue
		}
		co.Dirty = append(co.Dirty, p)
	}
	if len(co.Dirty) > 0 && !fromDirty {
		shown := co.Dirty[:min(len(co.Dirty), maxDirtyShown)]
		more := ""
		if n := len(co.Dirty) - len(shown); n > 0 {
			more = fmt.Sprintf(" and %d more", n)
		}
		return nil, &UsageError{Msg: fmt.Sprintf("--workspace worktree starts the run's draft from your checkout's last commit, and %s has uncommitted changes (%s%s): "+
			"commit or stash them, or pass --workspace-from-dirty to carry them into the draft", top, strings.Join(shown, ", "), more)}
	}
	return co, nil
}

// raymonds reports whether a path of the checkout is in a .raymond folder:
// raymond's own (its config, its .gitignore, runs and worktrees), never a
// change of the user's work.
func raymonds(p string) bool {
	for part := range strings.SplitSeq(p, "/") {
		if part == ".raymond" {
			return true
		}
	}
	return false
}

// CreateDraft makes the run's draft from the checkout co: the branch
// ws.Branch and its worktree ws.Dir. With carry, the checkout's
// uncommitted changes become the draft's first commit; the checkout itself
// is not touched (they are read through a scratch index). Made again after
// a kill, it finishes what was left: a branch that exists is kept.
func CreateDraft(ctx context.Context, co *Checkout, ws *state.Workspace, carry bool) error {
	from := co.Commit
	g := Git{Dir: co.Top}
	exists, err := branchExists(ctx, g, ws.Branch)
	if err != nil {
		return err
	}
	if !exists && carry && len(co.Dirty) > 0 {
		if from, err = carryDirty(ctx, co, ws); err != nil {
			return fmt.Errorf("carry the uncommitted changes into the draft: %w", err)
		}
	}
	return AddWorktree(ctx, co.Top, ws.Dir, ws.Branch, from)
}

// carryDirty commits what the checkout holds, uncommitted changes and
// untracked files (not the ignored ones, nor .raymond folders), on top of
// its commit, through a scratch index, and returns that commit.
func carryDirty(ctx context.Context, co *Checkout, ws *state.Workspace) (string, error) {
	tmp, err := os.MkdirTemp("", "raymond-index-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	g := Git{Dir: co.Top, Env: []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")}}
	if _, err := g.Run(ctx, "read-tree", co.Commit); err != nil {
		return "", err
	}
	if _, err := g.Run(ctx, "add", "--all", "--", ".", ":(exclude,glob)**/.raymond/**"); err != nil {
		return "", err
	}
	tree, err := g.Run(ctx, "write-tree")
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Uncommitted changes carried into the draft\n\nThe checkout at %s had them when run %s started (--workspace-from-dirty).\n\nRaymond-Run: %s\n",
		co.Top, runOf(ws), runOf(ws))
	return g.RunTrim(ctx, []byte(msg), "commit-tree", "--no-gpg-sign", tree, "-p", co.Commit, "-F", "-")
}

// runOf is the run id of a draft, from its branch.
func runOf(ws *state.Workspace) string { return strings.TrimPrefix(ws.Branch, "raymond/") }

// RunTrim runs git with stdin and returns its stdout without its last
// newline.
func (g Git) RunTrim(ctx context.Context, stdin []byte, args ...string) (string, error) {
	out, err := g.RunInput(ctx, stdin, args...)
	return strings.TrimSuffix(out, "\n"), err
}
