package project

import (
	"context"
	"errors"
	"fmt"
	"time"

	"raymond/state"
	"raymond/workspace"
)

// DraftError refuses to publish or discard a run's draft, as one line
// saying why and what to do; the caller maps it to exit 1.
type DraftError struct{ Msg string }

func (e *DraftError) Error() string { return e.Msg }

func draftErr(format string, args ...any) error {
	return &DraftError{Msg: fmt.Sprintf(format, args...)}
}

// Published is what PublishRun did.
type Published struct {
	workspace.Publication
	// Kept are the refs left in place: workers' branches and salvage refs
	// with work the draft does not have.
	Kept []string
	// Finished is set when the run was published already and this call
	// only finished removing its worktrees and branches; Resumed when it
	// finished a publish that was interrupted.
	Finished bool
	Resumed  bool
}

// PublishRun publishes run id's draft (workspace.Publish) and then removes
// its worktrees and branches, but for the workers' branches and salvage
// refs whose work is not in the draft (a merge that conflicted, merge:
// none), which are kept for the user and listed; what a worktree holds
// that no commit has (a step cut short) is saved as a salvage ref first. It holds the run's lock
// throughout, so a run that is being driven is refused.
//
// The order makes it safe to kill at any point and run again: the intent
// (status publishing, the branch, squash) is written first, then the
// branch is moved (once, by compare-and-swap), then the publication is
// recorded (status published), then the worktrees and branches are
// removed. Run again, it finds what was done and finishes the rest. A
// publish that is refused (a conflict, a dirty checkout) changes nothing
// and leaves the run a draft.
func PublishRun(ctx context.Context, p *Project, id string, opts workspace.PublishOptions) (*state.Run, Published, error) {
	var res Published
	lock, err := p.Store.Lock(id)
	if err != nil {
		return nil, res, err
	}
	defer lock.Release()
	r, err := p.Store.Read(id)
	if err != nil {
		return nil, res, err
	}
	ws := r.Workspace
	if !ws.Worktree() {
		return r, res, draftErr("run %s works in the shared mode: its changes are in its folder already, and there is no draft to publish (only a run started with --workspace worktree has one)", id)
	}
	switch ws.Status {
	case state.DraftPublished:
		left, err := workspace.Leftovers(ctx, id, ws, keepUnmerged(ctx, ws))
		if err != nil {
			return r, res, err
		}
		if len(left) == 0 {
			return r, res, draftErr("run %s was published already, into %s%s as %s", id, ws.Into, when(ws.At), workspace.ShortCommit(ws.Published))
		}
		res.Publication = workspace.Publication{Into: ws.Into, Commit: ws.Published, Head: ws.Head, How: workspace.PublishUpToDate}
		res.Finished = true
		return r, res, publishCleanup(ctx, id, ws, &res)
	case state.DraftDiscarded:
		return r, res, draftErr("run %s was discarded%s: it has no draft to publish", id, when(ws.At))
	case state.DraftDiscarding:
		return r, res, draftErr("run %s is being discarded (a discard was interrupted): finish it with raymond discard %s", id, id)
	case state.DraftPublishing:
		// An interrupted publish: finish it as it was asked.
		if opts.Into != "" && opts.Into != ws.Into || opts.Squash != ws.Squash {
			return r, res, draftErr("run %s was being published into %s%s when it was interrupted: finish that with raymond publish %s%s",
				id, ws.Into, squashWord(ws.Squash), id, publishFlags(ws))
		}
		opts.Into, opts.Squash = ws.Into, ws.Squash
		res.Resumed = true
	}
	into := opts.Into
	if into == "" {
		into = ws.BaseBranch
	}
	prev := *ws
	ws.Status, ws.Into, ws.Squash = state.DraftPublishing, into, opts.Squash
	if err := p.Store.Write(r); err != nil {
		return r, res, err
	}
	workspace.Crash("publish-intent")
	pub, err := workspace.Publish(ctx, id, ws, opts)
	if err != nil {
		// Nothing was changed: the run is a draft again.
		*ws = prev
		if werr := p.Store.Write(r); werr != nil {
			return r, res, fmt.Errorf("%w (and the run could not be set back to a draft: %v)", err, werr)
		}
		return r, res, err
	}
	res.Publication = pub
	workspace.Crash("publish-merged")
	ws.Status, ws.Published, ws.Into, ws.Head, ws.At = state.DraftPublished, pub.Commit, pub.Into, pub.Head, time.Now().UTC()
	if err := p.Store.Write(r); err != nil {
		return r, res, err
	}
	workspace.Crash("publish-recorded")
	return r, res, publishCleanup(ctx, id, ws, &res)
}

// publishCleanup removes a published run's worktrees and branches, what
// they hold that no commit has saved first, and keeps the refs with work
// the draft does not have (keepUnmerged), which it lists in res.Kept.
func publishCleanup(ctx context.Context, id string, ws *state.Workspace, res *Published) error {
	if _, err := workspace.SalvageWorktrees(ctx, id, ws); err != nil {
		return err
	}
	var err error
	res.Kept, err = workspace.Cleanup(ctx, id, ws, keepUnmerged(ctx, ws))
	return err
}

// keepUnmerged keeps the refs of a published run whose commits are not in
// the draft that was published: a worker's branch whose merge conflicted
// or was not made (merge: none), a salvage ref. The draft branch itself
// goes, also when a squash left its commits out of the branch's history.
func keepUnmerged(ctx context.Context, ws *state.Workspace) func(string) bool {
	return func(ref string) bool {
		if ref == "refs/heads/"+ws.Branch || ws.Head == "" {
			return false
		}
		_, err := workspace.Git{Dir: ws.Repo}.Run(ctx, "merge-base", "--is-ancestor", ref, ws.Head)
		return err != nil
	}
}

// Discarded is what DiscardRun did.
type Discarded struct {
	// Removed lists the worktrees and refs there were to remove.
	Removed []string
	// Kept are the run's branches left because a worktree that is not
	// the run's has them checked out.
	Kept []string
	// Finished is set when the run was discarded already and this call
	// only finished removing what was left.
	Finished bool
}

// DiscardRun removes run id's worktrees and every branch and ref of it,
// and records the draft discarded. It holds the run's lock throughout, so
// a run that is being driven is refused. The intent (status discarding)
// is written first and the end last, so a kill at any point leaves a run
// that the same call finishes. Of a published run it removes what the
// publish kept (workers' branches with unmerged work), and the run stays
// published.
func DiscardRun(ctx context.Context, p *Project, id string) (*state.Run, Discarded, error) {
	var res Discarded
	lock, err := p.Store.Lock(id)
	if err != nil {
		return nil, res, err
	}
	defer lock.Release()
	r, err := p.Store.Read(id)
	if err != nil {
		return nil, res, err
	}
	ws := r.Workspace
	if !ws.Worktree() {
		return r, res, draftErr("run %s works in the shared mode: its changes are in its folder, and there is no draft to discard (raymond rm %s removes the run's records)", id, id)
	}
	if res.Removed, err = workspace.Leftovers(ctx, id, ws, nil); err != nil {
		return r, res, err
	}
	switch ws.Status {
	case state.DraftPublished, state.DraftDiscarded:
		if len(res.Removed) == 0 {
			if ws.Status == state.DraftPublished {
				return r, res, draftErr("run %s was published into %s%s as %s: there is nothing left to discard", id, ws.Into, when(ws.At), workspace.ShortCommit(ws.Published))
			}
			return r, res, draftErr("run %s was discarded already%s", id, when(ws.At))
		}
		res.Finished = ws.Status == state.DraftDiscarded
		res.Kept, err = workspace.Discard(ctx, id, ws)
		return r, res, err
	case state.DraftPublishing:
		return r, res, draftErr("run %s was being published into %s when it was interrupted: finish that with raymond publish %s%s (its branch may have the draft already)",
			id, ws.Into, id, publishFlags(ws))
	}
	ws.Status = state.DraftDiscarding
	if err := p.Store.Write(r); err != nil {
		return r, res, err
	}
	workspace.Crash("discard-intent")
	if res.Kept, err = workspace.Discard(ctx, id, ws); err != nil {
		return r, res, err
	}
	workspace.Crash("discard-removed")
	ws.Status, ws.At = state.DraftDiscarded, time.Now().UTC()
	if err := p.Store.Write(r); err != nil {
		return r, res, err
	}
	return r, res, nil
}

// DraftLeftovers lists what of run r's workspace is in its repository
// (worktrees, folders, refs): what rm removes with it.
func DraftLeftovers(ctx context.Context, r *state.Run) ([]string, error) {
	if !r.Workspace.Worktree() {
		return nil, nil
	}
	return workspace.Leftovers(ctx, r.WorkflowID, r.Workspace, nil)
}

// when is " on DATE" for a time that is set.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return " on " + t.Local().Format("2006-01-02 15:04")
}

func squashWord(squash bool) string {
	if squash {
		return " (squashed)"
	}
	return ""
}

// publishFlags are the flags of raymond publish that ask again what an
// interrupted publish of ws was asked.
func publishFlags(ws *state.Workspace) string {
	s := ""
	if ws.Into != "" && ws.Into != ws.BaseBranch {
		s += " --into " + ws.Into
	}
	if ws.Squash {
		s += " --squash"
	}
	return s
}

// RemoveDraft removes what run r has in its repository, as DiscardRun
// does, before rm removes the run's files; a draft published or discarded
// already with nothing left is no error. A publish that was interrupted is
// refused: the draft might be all there is of the run's work.
func RemoveDraft(ctx context.Context, p *Project, r *state.Run) error {
	if !r.Workspace.Worktree() {
		return nil
	}
	_, _, err := DiscardRun(ctx, p, r.WorkflowID)
	var de *DraftError
	if errors.As(err, &de) {
		if s := r.Workspace.Status; s == state.DraftPublished || s == state.DraftDiscarded {
			return nil
		}
	}
	return err
}
