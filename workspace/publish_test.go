package workspace

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
)

// pubRepo is a scratch repository on main with a.txt and b.txt, and a draft
// branch raymond/r1 in a worktree under .raymond/worktrees/r1/main.
type pubRepo struct {
	t   *testing.T
	dir string
	ws  *state.Workspace
}

func newPubRepo(t *testing.T) *pubRepo {
	t.Helper()
	r := &pubRepo{t: t, dir: t.TempDir()}
	r.git(r.dir, "init", "-q", "-b", "main")
	r.write(r.dir, ".gitignore", ".raymond/\n")
	r.write(r.dir, "a.txt", "a\n")
	r.write(r.dir, "b.txt", "1\n2\n3\n")
	r.commit(r.dir, "base")
	base := r.git(r.dir, "rev-parse", "HEAD")
	r.ws = &state.Workspace{Mode: state.WorkspaceWorktree, Repo: r.dir, BaseBranch: "main", BaseCommit: base,
		Branch: "raymond/r1", Dir: filepath.Join(r.dir, ".raymond", "worktrees", "r1", "main"), Status: state.DraftOpen}
	r.git(r.dir, "worktree", "add", "-q", "-b", r.ws.Branch, r.ws.Dir, base)
	return r
}

func (r *pubRepo) git(dir string, args ...string) string {
	r.t.Helper()
	out, err := Git{Dir: dir}.Run(context.Background(), args...)
	require.NoError(r.t, err)
	return out
}

func (r *pubRepo) write(dir, name, text string) {
	r.t.Helper()
	require.NoError(r.t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
}

func (r *pubRepo) commit(dir, msg string) {
	r.git(dir, "add", "-A")
	r.git(dir, "commit", "-q", "-m", msg)
}

func TestPublishFastForwardKeepsOtherWork(t *testing.T) {
	r := newPubRepo(t)
	r.write(r.ws.Dir, "b.txt", "1\ntwo\n3\n")
	r.commit(r.ws.Dir, "step 1")
	head := r.git(r.ws.Dir, "rev-parse", "HEAD")
	// Staged and unstaged changes to a file the draft does not touch stay.
	r.write(r.dir, "a.txt", "mine\n")
	r.git(r.dir, "add", "a.txt")
	r.write(r.dir, "c.txt", "untracked\n")

	p, err := Publish(context.Background(), "r1", r.ws, PublishOptions{})
	require.NoError(t, err)
	assert.Equal(t, PublishFastForward, p.How)
	assert.Equal(t, head, p.Commit)
	assert.Equal(t, r.dir, p.Checkout)
	assert.Equal(t, head, r.git(r.dir, "rev-parse", "main"))
	assert.Equal(t, "M  a.txt\n?? c.txt", r.git(r.dir, "status", "--porcelain"))
	b, _ := os.ReadFile(filepath.Join(r.dir, "b.txt"))
	assert.Equal(t, "1\ntwo\n3\n", string(b))

	// Again: it finds the draft in main and changes nothing.
	p, err = Publish(context.Background(), "r1", r.ws, PublishOptions{})
	require.NoError(t, err)
	assert.Equal(t, PublishUpToDate, p.How)
}

func TestPublishRefusesDirtyFiles(t *testing.T) {
	r := newPubRepo(t)
	r.write(r.ws.Dir, "b.txt", "1\ntwo\n3\n")
	r.commit(r.ws.Dir, "step 1")
	r.write(r.dir, "b.txt", "1\n2\n3\nmine\n")
	before := r.git(r.dir, "rev-parse", "main")

	_, err := Publish(context.Background(), "r1", r.ws, PublishOptions{})
	var de *DirtyError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, []string{"b.txt"}, de.Paths)
	assert.Equal(t, before, r.git(r.dir, "rev-parse", "main"))
	b, _ := os.ReadFile(filepath.Join(r.dir, "b.txt"))
	assert.Equal(t, "1\n2\n3\nmine\n", string(b), "the user's change is untouched")
}

func TestPublishConflictNamesEveryPath(t *testing.T) {
	r := newPubRepo(t)
	r.write(r.ws.Dir, "a.txt", "draft\n")
	r.write(r.ws.Dir, "b.txt", "1\ndraft\n3\n")
	r.commit(r.ws.Dir, "step 1")
	r.write(r.dir, "a.txt", "user\n")
	r.write(r.dir, "b.txt", "1\nuser\n3\n")
	r.commit(r.dir, "user")
	before := r.git(r.dir, "rev-parse", "main")

	_, err := Publish(context.Background(), "r1", r.ws, PublishOptions{})
	var ce *ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, []string{"a.txt", "b.txt"}, ce.Paths)
	assert.Contains(t, err.Error(), "git merge raymond/r1")
	assert.Equal(t, before, r.git(r.dir, "rev-parse", "main"))
	assert.Empty(t, r.git(r.dir, "status", "--porcelain"))
}

func TestPublishIntoBranchCheckedOutNowhere(t *testing.T) {
	r := newPubRepo(t)
	r.git(r.dir, "branch", "release")
	r.write(r.dir, "a.txt", "moved\n")
	r.commit(r.dir, "main moves")
	r.git(r.dir, "update-ref", "refs/heads/release", "main") // release moves too, by the user
	r.write(r.ws.Dir, "new.txt", "new\n")
	r.commit(r.ws.Dir, "step 1")
	mainBefore := r.git(r.dir, "rev-parse", "main")

	p, err := Publish(context.Background(), "r1", r.ws, PublishOptions{Into: "release"})
	require.NoError(t, err)
	assert.Equal(t, PublishMerge, p.How)
	assert.Empty(t, p.Checkout)
	assert.Equal(t, "new\n", r.git(r.dir, "show", "release:new.txt")+"\n")
	assert.Equal(t, mainBefore, r.git(r.dir, "rev-parse", "main"))
	assert.Contains(t, r.git(r.dir, "log", "-1", "--format=%B", "release"), "Raymond-Publish: r1")
}

func TestDiscardRemovesWhatIsLeft(t *testing.T) {
	r := newPubRepo(t)
	worker := filepath.Join(filepath.Dir(r.ws.Dir), "w1")
	r.git(r.dir, "worktree", "add", "-q", "-b", "raymond/r1.w1", worker, "raymond/r1")
	r.git(r.dir, "update-ref", "refs/raymond/salvage/r1/w1/2", "raymond/r1")
	// Another run's branch, whose id starts the same, is not this run's.
	r.git(r.dir, "branch", "raymond/r10", "main")
	require.NoError(t, os.RemoveAll(worker)) // gone by hand: prune forgets it

	left, err := Leftovers(context.Background(), "r1", r.ws, nil)
	require.NoError(t, err)
	assert.Len(t, left, 2+3)
	kept, err := Discard(context.Background(), "r1", r.ws)
	require.NoError(t, err)
	assert.Empty(t, kept)
	assert.Equal(t, "refs/heads/main\nrefs/heads/raymond/r10", r.git(r.dir, "for-each-ref", "--format=%(refname)"))
	assert.Equal(t, 1, strings.Count(r.git(r.dir, "worktree", "list", "--porcelain"), "worktree "))
	left, err = Leftovers(context.Background(), "r1", r.ws, nil)
	require.NoError(t, err)
	assert.Empty(t, left)
}

func TestDiffstatAndPatch(t *testing.T) {
	r := newPubRepo(t)
	r.write(r.ws.Dir, "b.txt", "1\ntwo\n3\n")
	require.NoError(t, os.WriteFile(filepath.Join(r.ws.Dir, "bin"), []byte{0, 1, 2, 0}, 0o644))
	r.write(r.ws.Dir, "ünï code.txt", "x\n")
	r.commit(r.ws.Dir, "step 1")
	files, err := Diffstat(context.Background(), r.dir, r.ws.BaseCommit, "raymond/r1")
	require.NoError(t, err)
	assert.Equal(t, []state.FileStat{{Path: "b.txt", Added: 1, Deleted: 1}, {Path: "bin", Binary: true}, {Path: "ünï code.txt", Added: 1}}, files)

	patch, cut, err := Patch(context.Background(), r.dir, r.ws.BaseCommit, "raymond/r1", 0)
	require.NoError(t, err)
	assert.False(t, cut)
	assert.Contains(t, patch, "+++ b/ünï code.txt")
	short, cut, err := Patch(context.Background(), r.dir, r.ws.BaseCommit, "raymond/r1", 40)
	require.NoError(t, err)
	assert.True(t, cut)
	assert.LessOrEqual(t, len(short), 40)
	assert.True(t, strings.HasSuffix(short, "\n"), "cut at a line's end")

	from, to, err := DraftRange(context.Background(), "r1", r.ws)
	require.NoError(t, err)
	assert.Equal(t, r.ws.BaseCommit, from)
	assert.Equal(t, r.git(r.dir, "rev-parse", "raymond/r1"), to)
}

func TestPublishSharedModeRefused(t *testing.T) {
	_, err := Publish(context.Background(), "r1", &state.Workspace{Mode: state.WorkspaceShared}, PublishOptions{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shared mode")
	var ge *Error
	assert.False(t, errors.As(err, &ge))
}
