package workspace

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/state"
)

// repo makes a git repository in a new folder with one commit holding
// files, and returns its folder.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	dir, _ = filepath.EvalSymlinks(dir)
	gitT(t, dir, "init", "--quiet", "--initial-branch=trunk")
	write(t, dir, files)
	gitT(t, dir, "add", "--all")
	gitT(t, dir, "commit", "--quiet", "-m", "first")
	return dir
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

func gitT(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := Git{Dir: dir}.Run(context.Background(), args...)
	require.NoError(t, err, "git %s", strings.Join(args, " "))
	return out
}

func needGit(t testing.TB) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

// draft makes run r's draft in the repository dir and returns it.
func draft(t *testing.T, dir, run string, carry bool) *state.Workspace {
	t.Helper()
	ctx := context.Background()
	co, err := Inspect(ctx, dir, carry)
	require.NoError(t, err)
	ws := &state.Workspace{Mode: state.WorkspaceWorktree, Repo: co.Top, BaseBranch: co.Branch, BaseCommit: co.Commit,
		Branch: DraftBranch(run), Dir: WorktreeDir(dir, run, "main")}
	require.NoError(t, CreateDraft(ctx, co, ws, carry))
	return ws
}

func TestInspectRefuses(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	plain := t.TempDir()
	_, err := Inspect(ctx, plain, false)
	require.ErrorContains(t, err, "is not in one: run 'git init'")
	require.IsType(t, &UsageError{}, err)

	dir := repo(t, map[string]string{"a.txt": "a\n"})
	write(t, dir, map[string]string{"a.txt": "changed\n", "b.txt": "new\n", "c.txt": "", "d.txt": "", "e.txt": "", "f.txt": "",
		".raymond/config.toml": "", ".raymond/.gitignore": "*\n"})
	_, err = Inspect(ctx, dir, false)
	require.ErrorContains(t, err, "uncommitted changes (a.txt, b.txt, c.txt, d.txt, e.txt and 1 more): commit or stash them, or pass --workspace-from-dirty")
	co, err := Inspect(ctx, dir, true)
	require.NoError(t, err)
	require.Equal(t, "trunk", co.Branch)
	require.Len(t, co.Dirty, 6, "the .raymond folder is raymond's, not a change")
}

func TestDraftCarriesDirtyChanges(t *testing.T) {
	needGit(t)
	dir := repo(t, map[string]string{"a.txt": "a\n", ".gitignore": "*.log\n"})
	write(t, dir, map[string]string{"a.txt": "changed\n", "new.txt": "new\n", "x.log": "ignored\n"})
	ws := draft(t, dir, "r1", true)
	got, err := os.ReadFile(filepath.Join(ws.Dir, "a.txt"))
	require.NoError(t, err)
	require.Equal(t, "changed\n", string(got))
	require.FileExists(t, filepath.Join(ws.Dir, "new.txt"))
	require.NoFileExists(t, filepath.Join(ws.Dir, "x.log"))
	require.Equal(t, ws.BaseCommit, gitT(t, ws.Dir, "rev-parse", "HEAD^"), "the carried changes are the draft's first commit")
	// The user's checkout is as it was: same commit, same changes.
	require.Equal(t, ws.BaseCommit, gitT(t, dir, "rev-parse", "HEAD"))
	require.Contains(t, gitT(t, dir, "status", "--porcelain"), " M a.txt")
	// Made again (after a kill), nothing changes.
	require.NoError(t, CreateDraft(context.Background(), &Checkout{Top: dir, Commit: ws.BaseCommit, Dirty: []string{"a.txt"}}, ws, true))
	require.Equal(t, ws.BaseCommit, gitT(t, ws.Dir, "rev-parse", "HEAD^"))
}

func TestCheckpointAndMerge(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "one\ntwo\nthree\n", "b.txt": "b\n"})
	ws := draft(t, dir, "r2", false)

	cp, err := Checkpoint(ctx, ws.Dir, Step{Run: "r2", Agent: "main", State: "START.md", Seq: 1})
	require.NoError(t, err)
	require.Nil(t, cp, "nothing changed, no commit")

	write(t, ws.Dir, map[string]string{"a.txt": "one\ntwo\n3\n", "c.txt": "c\n"})
	cp, err = Checkpoint(ctx, ws.Dir, Step{Run: "r2", Agent: "main", State: "START.md", Seq: 1, CostUSD: 0.25, Model: "sonnet"})
	require.NoError(t, err)
	require.NotNil(t, cp)
	require.Equal(t, ws.BaseCommit, cp.Parent)
	require.Equal(t, "raymond/r2", cp.Branch)
	require.Equal(t, []state.FileStat{{Path: "a.txt", Added: 1, Deleted: 1}, {Path: "c.txt", Added: 1}}, cp.Files)
	require.Equal(t, cp.Commit, gitT(t, ws.Dir, "rev-parse", "refs/heads/raymond/r2"))
	require.Equal(t, "START.md (main, step 1)", gitT(t, ws.Dir, "log", "-1", "--format=%s"))
	require.Equal(t, "raymond", gitT(t, ws.Dir, "log", "-1", "--format=%an"))
	trailers := gitT(t, ws.Dir, "log", "-1", "--format=%(trailers:key=Raymond-Step,valueonly)%(trailers:key=Raymond-Cost,valueonly)")
	require.Equal(t, "1\n0.250000\n", trailers)

	// Two workers from that checkpoint: one changes b, one changes a
	// where main changes it too.
	w1, w2 := WorktreeDir(dir, "r2", "main_w1"), WorktreeDir(dir, "r2", "main_w2")
	require.NoError(t, AddWorktree(ctx, ws.Repo, w1, WorkerBranch("r2", "main_w1"), cp.Commit))
	require.NoError(t, AddWorktree(ctx, ws.Repo, w2, WorkerBranch("r2", "main_w2"), cp.Commit))
	require.NoError(t, AddWorktree(ctx, ws.Repo, w2, WorkerBranch("r2", "main_w2"), cp.Commit), "again: kept")
	write(t, w1, map[string]string{"b.txt": "b by w1\n"})
	write(t, w2, map[string]string{"a.txt": "ONE\ntwo\n3\n"})
	_, err = Checkpoint(ctx, w1, Step{Run: "r2", Agent: "main_w1", State: "W.md", Seq: 1})
	require.NoError(t, err)
	_, err = Checkpoint(ctx, w2, Step{Run: "r2", Agent: "main_w2", State: "W.md", Seq: 1})
	require.NoError(t, err)
	write(t, ws.Dir, map[string]string{"a.txt": "uno\ntwo\n3\n"})
	cp2, err := Checkpoint(ctx, ws.Dir, Step{Run: "r2", Agent: "main", State: "WAIT.md", Seq: 2})
	require.NoError(t, err)

	m, err := Merge(ctx, ws.Dir, WorkerBranch("r2", "main_w1"), "Merge main_w1")
	require.NoError(t, err)
	require.Empty(t, m.Conflicts)
	require.NotEqual(t, cp2.Commit, m.Head)
	again, err := Merge(ctx, ws.Dir, WorkerBranch("r2", "main_w1"), "Merge main_w1")
	require.NoError(t, err)
	require.True(t, again.Already)
	require.Equal(t, m.Head, again.Head)

	c, err := Merge(ctx, ws.Dir, WorkerBranch("r2", "main_w2"), "Merge main_w2")
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, c.Conflicts)
	require.Equal(t, m.Head, c.Head)
	require.Empty(t, gitT(t, ws.Dir, "status", "--porcelain"), "a conflict leaves the worktree clean")
	require.NotEmpty(t, gitT(t, dir, "rev-parse", "refs/heads/"+WorkerBranch("r2", "main_w2")), "the branch is kept")
}

func TestReconcileSalvages(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	ws := draft(t, dir, "r3", false)
	saved, err := Reconcile(ctx, ws.Dir, ws.BaseCommit, SalvageRef("r3", "main", 2))
	require.NoError(t, err)
	require.Empty(t, saved, "nothing to do")

	write(t, ws.Dir, map[string]string{"a.txt": "half done\n", "new.txt": "x\n"})
	saved, err = Reconcile(ctx, ws.Dir, ws.BaseCommit, SalvageRef("r3", "main", 2))
	require.NoError(t, err)
	require.Equal(t, "refs/raymond/salvage/r3/main/2", saved)
	require.Empty(t, gitT(t, ws.Dir, "status", "--porcelain"))
	require.Equal(t, ws.BaseCommit, gitT(t, ws.Dir, "rev-parse", "HEAD"))
	require.Equal(t, "half done\n", gitT(t, dir, "show", saved+":a.txt")+"\n")

	// A checkpoint committed but never recorded: saved too, then reset.
	write(t, ws.Dir, map[string]string{"a.txt": "committed\n"})
	cp, err := Checkpoint(ctx, ws.Dir, Step{Run: "r3", Agent: "main", State: "S.md", Seq: 2})
	require.NoError(t, err)
	saved, err = Reconcile(ctx, ws.Dir, ws.BaseCommit, SalvageRef("r3", "main", 2))
	require.NoError(t, err)
	require.Equal(t, "refs/raymond/salvage/r3/main/2-2", saved, "a second salvage of the same step gets its own ref")
	require.Equal(t, cp.Commit, gitT(t, dir, "rev-parse", saved))
	require.Equal(t, ws.BaseCommit, gitT(t, ws.Dir, "rev-parse", "HEAD"))
}

// TestAddWorktreeRepairs: a kill while a worktree was made leaves a folder
// without a checkout, or git's record of a worktree whose folder is gone;
// made again, the worktree is whole, on the branch as it was.
func TestAddWorktreeRepairs(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	head := gitT(t, dir, "rev-parse", "HEAD")
	w := WorktreeDir(dir, "r4", "main_w1")
	branch := WorkerBranch("r4", "main_w1")

	write(t, w, map[string]string{"partial": "x"}) // a folder, no checkout
	require.NoError(t, AddWorktree(ctx, dir, w, branch, head))
	require.FileExists(t, filepath.Join(w, "a.txt"))
	require.NoFileExists(t, filepath.Join(w, "partial"))

	write(t, w, map[string]string{"b.txt": "b\n"})
	cp, err := Checkpoint(ctx, w, Step{Run: "r4", Agent: "main_w1", State: "W.md", Seq: 1})
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(w)) // git still lists it
	require.NoError(t, AddWorktree(ctx, dir, w, branch, head))
	require.Equal(t, cp.Commit, gitT(t, w, "rev-parse", "HEAD"), "the branch that exists is checked out as it is")
	require.FileExists(t, filepath.Join(w, "b.txt"))
}

// TestMergeAll merges three branches in one go: the first clean, the second
// conflicting (left out), the third clean on top of the first; the worktree
// follows, and running it again merges nothing more.
func TestMergeAll(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	ws := draft(t, dir, "r5", false)
	for _, w := range []struct{ agent, file, text string }{{"w1", "b.txt", "b\n"}, {"w2", "a.txt", "two\n"}, {"w3", "c.txt", "c\n"}} {
		wd := WorktreeDir(dir, "r5", w.agent)
		require.NoError(t, AddWorktree(ctx, dir, wd, WorkerBranch("r5", w.agent), ws.BaseCommit))
		write(t, wd, map[string]string{w.file: w.text})
		_, err := Checkpoint(ctx, wd, Step{Run: "r5", Agent: w.agent, State: "W.md", Seq: 1})
		require.NoError(t, err)
	}
	write(t, ws.Dir, map[string]string{"a.txt": "one\n"})
	_, err := Checkpoint(ctx, ws.Dir, Step{Run: "r5", Agent: "main", State: "M.md", Seq: 1})
	require.NoError(t, err)
	items := []MergeItem{{WorkerBranch("r5", "w1"), "Merge w1"}, {WorkerBranch("r5", "w2"), "Merge w2"}, {WorkerBranch("r5", "w3"), "Merge w3"}}
	res, err := MergeAll(ctx, ws.Dir, items)
	require.NoError(t, err)
	require.Empty(t, res[0].Conflicts)
	require.Equal(t, []string{"a.txt"}, res[1].Conflicts)
	require.Equal(t, res[0].Head, res[1].Head)
	require.Empty(t, res[2].Conflicts)
	require.Equal(t, res[2].Head, gitT(t, ws.Dir, "rev-parse", "HEAD"))
	require.Equal(t, "Merge w3\nMerge w1\nM.md (main, step 1)", gitT(t, ws.Dir, "log", "--first-parent", "--format=%s", "-3"))
	require.Empty(t, gitT(t, ws.Dir, "status", "--porcelain"), "the worktree follows the branch")
	require.FileExists(t, filepath.Join(ws.Dir, "b.txt"))
	require.FileExists(t, filepath.Join(ws.Dir, "c.txt"))
	got, _ := os.ReadFile(filepath.Join(ws.Dir, "a.txt"))
	require.Equal(t, "one\n", string(got))

	again, err := MergeAll(ctx, ws.Dir, items)
	require.NoError(t, err)
	require.True(t, again[0].Already && again[2].Already)
	require.Equal(t, res[2].Head, gitT(t, ws.Dir, "rev-parse", "HEAD"))
}

// A kill while git made a worker's worktree leaves its record under
// .git/worktrees half written, locked "initializing" (so `git worktree
// prune` keeps it) and with an empty commondir: every git command that
// looks through the worktrees then dies on it. AddWorktree clears it.
func TestAddWorktreeClearsHalfMadeRecord(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	head := gitT(t, dir, "rev-parse", "HEAD")
	branch := WorkerBranch("r5", "main_w1")
	gitT(t, dir, "branch", branch, head)
	cut := WorktreeDir(dir, "r5", "main_w2")
	write(t, filepath.Join(dir, ".git", "worktrees", "main_w2"), map[string]string{
		"locked":    "initializing",
		"gitdir":    filepath.Join(cut, ".git") + "\n",
		"commondir": "",
	})
	write(t, cut, map[string]string{".git": "gitdir: " + filepath.Join(dir, ".git", "worktrees", "main_w2") + "\n"})

	w := WorktreeDir(dir, "r5", "main_w1")
	require.NoError(t, AddWorktree(ctx, dir, w, branch, head))
	require.FileExists(t, filepath.Join(w, "a.txt"))
	require.NoError(t, AddWorktree(ctx, dir, cut, WorkerBranch("r5", "main_w2"), head))
	require.FileExists(t, filepath.Join(cut, "a.txt"))
	gitT(t, dir, "worktree", "list")
}

// TestCheckpointMadeBeforeAKill: a raymond killed after it made a step's
// checkpoint but before it recorded it leaves the branch on that commit; the
// step, adopted and applied on the resume, must get that commit as its
// checkpoint, not "nothing changed" (the worktree would then be reset to the
// old head before the next step, and the step's work left only on a salvage
// ref: the worktree kill trial found it). Another step's checkpoint is not
// taken for it.
func TestCheckpointMadeBeforeAKill(t *testing.T) {
	needGit(t)
	ctx := context.Background()
	dir := repo(t, map[string]string{"a.txt": "a\n"})
	ws := draft(t, dir, "rk", false)
	write(t, ws.Dir, map[string]string{"a.txt": "a1\n"})
	s := Step{Run: "rk", Agent: "main", State: "START.md", Seq: 2}
	first, err := Checkpoint(ctx, ws.Dir, s)
	require.NoError(t, err)
	require.NotNil(t, first)

	again, err := Checkpoint(ctx, ws.Dir, s)
	require.NoError(t, err)
	require.NotNil(t, again, "the step's own checkpoint, made before the kill")
	require.Equal(t, first.Commit, again.Commit)
	require.Equal(t, first.Parent, again.Parent)
	require.Equal(t, first.Files, again.Files)

	other, err := Checkpoint(ctx, ws.Dir, Step{Run: "rk", Agent: "main", State: "START.md", Seq: 3})
	require.NoError(t, err)
	require.Nil(t, other, "the next step changed nothing")
}
