package workspace

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"raymond/state"
)

// Diffstat returns the files that changed from commit from to commit to in
// the repository that holds dir, with the lines added and removed (git
// diff --numstat), in git's order. Renames are a removal and an addition.
func Diffstat(ctx context.Context, dir, from, to string) ([]state.FileStat, error) {
	out, err := Git{Dir: dir}.Run(ctx, "diff", "--numstat", "-z", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil {
		return nil, err
	}
	var files []state.FileStat
	for _, rec := range strings.Split(out, "\x00") {
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 {
			return nil, fmt.Errorf("git diff --numstat: cannot read %q", rec)
		}
		fs := state.FileStat{Path: f[2]}
		if f[0] == "-" && f[1] == "-" {
			fs.Binary = true
		} else {
			fs.Added, _ = strconv.Atoi(f[0])
			fs.Deleted, _ = strconv.Atoi(f[1])
		}
		files = append(files, fs)
	}
	return files, nil
}

// Patch returns the patch from commit from to commit to (git diff, no
// colour, binary files named but not spelled out). With limit > 0 a patch
// longer than limit bytes is cut at the last whole line before it, and cut
// is set.
func Patch(ctx context.Context, dir, from, to string, limit int) (patch string, cut bool, err error) {
	out, err := Git{Dir: dir}.RunInput(ctx, nil, "-c", "core.quotepath=off", "diff", "--no-color", "--no-ext-diff", "--no-renames", from, to, "--")
	if err != nil {
		return "", false, err
	}
	if limit <= 0 || len(out) <= limit {
		return out, false, nil
	}
	out = out[:limit]
	if i := strings.LastIndexByte(out, '\n'); i >= 0 {
		out = out[:i+1]
	}
	for !utf8.ValidString(out) && out != "" {
		out = out[:len(out)-1]
	}
	return out, true, nil
}

// DraftRange returns the commits a run's whole draft is seen between: the
// commit it started from, and its draft branch's head; for a published
// run whose branch is gone, the commit it was published as. A discarded
// run has no draft to see.
func DraftRange(ctx context.Context, runID string, ws *state.Workspace) (from, to string, err error) {
	if !ws.Worktree() {
		return "", "", fmt.Errorf("run %s works in the shared mode: it has no draft, and its changes are in its folder", runID)
	}
	g := Git{Dir: ws.Repo}
	if head, err := g.Run(ctx, "rev-parse", "--verify", "--quiet", "refs/heads/"+ws.Branch+"^{commit}"); err == nil {
		return ws.BaseCommit, head, nil
	}
	switch ws.Status {
	case state.DraftPublished:
		if ws.Published != "" {
			return ws.BaseCommit, ws.Published, nil
		}
	case state.DraftDiscarded:
		return "", "", fmt.Errorf("run %s was discarded: its draft is gone", runID)
	}
	return "", "", errors.New("the run's draft branch " + ws.Branch + " is gone")
}

// ShortCommit is the first 7 characters of a commit id, as git shows them.
func ShortCommit(commit string) string {
	if len(commit) > 7 {
		return commit[:7]
	}
	return commit
}
