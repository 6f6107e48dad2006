package daemon

import (
	"context"
	"errors"

	"raymond/project"
	"raymond/state"
	"raymond/workspace"
)

// DiffPatchCap is how many bytes of a draft's patch GET
// /api/v1/runs/{id}/diff gives; past it the patch is cut at a line's end
// and the answer says so.
const DiffPatchCap = 1 << 20

// Diff is the draft of a run in the worktree mode against the commit it
// started from, as GET /api/v1/runs/{id}/diff gives it.
type Diff struct {
	RunID string `json:"run_id"`
	// Branch is the draft branch; Base the commit it started from; Head
	// the commit its changes end at.
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Head   string `json:"head"`
	// Status is draft, published or discarded (or publishing,
	// discarding); Into and Published where and as what it was published.
	Status    string `json:"status"`
	Into      string `json:"into,omitempty"`
	Published string `json:"published,omitempty"`
	// Files are the files changed, with lines added and removed; Added
	// and Deleted their sums.
	Files   []state.FileStat `json:"files"`
	Added   int              `json:"added"`
	Deleted int              `json:"deleted"`
	// Patch is the patch (git diff), cut at DiffPatchCap bytes when
	// Truncated, which Note then explains.
	Patch     string `json:"patch"`
	Truncated bool   `json:"truncated"`
	Note      string `json:"note,omitempty"`
}

// Published is what POST /api/v1/runs/{id}/publish did.
type Published struct {
	RunID    string   `json:"run_id"`
	Into     string   `json:"into"`
	Commit   string   `json:"commit"`
	How      string   `json:"how"`
	Head     string   `json:"head,omitempty"`
	Checkout string   `json:"checkout,omitempty"`
	Kept     []string `json:"kept"`
	Finished bool     `json:"finished,omitempty"`
}

// Discarded is what POST /api/v1/runs/{id}/discard did.
type Discarded struct {
	RunID    string   `json:"run_id"`
	Removed  []string `json:"removed"`
	Kept     []string `json:"kept"`
	Finished bool     `json:"finished,omitempty"`
}

// Diff returns run id's draft against the commit it started from. A run in
// the shared mode, or one whose draft is gone, is a conflict.
func (d *Daemon) Diff(ctx context.Context, id string) (Diff, error) {
	det, err := d.Detail(id)
	if err != nil {
		return Diff{}, err
	}
	ws := det.Run.Workspace
	if !ws.Worktree() {
		return Diff{}, errorf(ErrConflict, "run %s works in the shared mode: it has no draft, and its changes are in its folder", id)
	}
	out := Diff{RunID: id, Branch: ws.Branch, Base: ws.BaseCommit, Status: ws.Status, Into: ws.Into, Published: ws.Published}
	from, to, err := workspace.DraftRange(ctx, id, ws)
	if err != nil {
		return Diff{}, errorf(ErrConflict, "%s", err.Error())
	}
	out.Head = to
	if out.Files, err = workspace.Diffstat(ctx, ws.Repo, from, to); err != nil {
		return Diff{}, err
	}
	if out.Files == nil {
		out.Files = []state.FileStat{}
	}
	for _, f := range out.Files {
		out.Added += f.Added
		out.Deleted += f.Deleted
	}
	if out.Patch, out.Truncated, err = workspace.Patch(ctx, ws.Repo, from, to, DiffPatchCap); err != nil {
		return Diff{}, err
	}
	if out.Truncated {
		out.Note = "the patch is longer than 1 MiB and was cut at a line's end; the files list is whole, and 'raymond transcript " + id + " --diff' prints the patch whole"
	}
	return out, nil
}

// Publish publishes run id's draft (project.PublishRun). A run this
// daemon drives is refused: pause it first.
func (d *Daemon) Publish(ctx context.Context, id string, opts workspace.PublishOptions) (Published, error) {
	if err := d.notDriving(id, "published"); err != nil {
		return Published{}, err
	}
	_, res, err := project.PublishRun(ctx, d.p, id, opts)
	d.index.touch(id)
	if err != nil {
		return Published{}, draftError(err)
	}
	return Published{RunID: id, Into: res.Into, Commit: res.Commit, How: res.How, Head: res.Head,
		Checkout: res.Checkout, Kept: nonNil(res.Kept), Finished: res.Finished}, nil
}

// Discard discards run id's draft (project.DiscardRun). A run this daemon
// drives is refused: pause it first.
func (d *Daemon) Discard(ctx context.Context, id string) (Discarded, error) {
	if err := d.notDriving(id, "discarded"); err != nil {
		return Discarded{}, err
	}
	_, res, err := project.DiscardRun(ctx, d.p, id)
	d.index.touch(id)
	if err != nil {
		return Discarded{}, draftError(err)
	}
	return Discarded{RunID: id, Removed: nonNil(res.Removed), Kept: nonNil(res.Kept), Finished: res.Finished}, nil
}

// notDriving refuses a run this daemon drives, or that does not exist.
func (d *Daemon) notDriving(id, what string) error {
	if _, err := d.Detail(id); err != nil {
		return err
	}
	d.mu.Lock()
	_, driving := d.runs[id]
	d.mu.Unlock()
	if driving {
		return errorf(ErrConflict, "run %s is running in this daemon and cannot be %s while it runs: pause it first (POST /api/v1/runs/%s/pause)", id, what, id)
	}
	return nil
}

// draftError maps a refusal of publish or discard to a conflict.
func draftError(err error) error {
	var (
		de *project.DraftError
		ce *workspace.ConflictError
		xe *workspace.DirtyError
		le *state.LockedError
	)
	if errors.As(err, &de) || errors.As(err, &ce) || errors.As(err, &xe) || errors.As(err, &le) {
		return errorf(ErrConflict, "%s", err.Error())
	}
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
