package project

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/state"
	"raymond/workspace"
)

// draftFixture is a project in a git repository with one run in the
// worktree mode, as the orchestrator leaves it when the run ends: the
// draft raymond/<id> with a checkpoint (new.txt), a worker's branch merged
// into it (merged.txt), a worker's branch left unmerged (kept.txt), a
// salvage ref; and since the run started the user committed on main
// (theirs.txt) and has an uncommitted file (notes.txt).
type draftFixture struct {
	t    *testing.T
	dir  string
	p    *Project
	id   string
	base string
}

func newDraftFixture(t *testing.T, id string) *draftFixture {
	t.Helper()
	dir := t.TempDir()
	f := &draftFixture{t: t, dir: dir, id: id}
	f.git(dir, "init", "-q", "-b", "main")
	f.write(dir, ".gitignore", ".raymond/\n")
	f.write(dir, "a.txt", "a\n")
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "-q", "-m", "base")
	f.base = f.git(dir, "rev-parse", "HEAD")
	require.NoError(t, os.MkdirAll(StateDir(dir), 0o700))
	p, err := Open(dir)
	require.NoError(t, err)
	f.p = p

	root := filepath.Join(dir, ".raymond", "worktrees", id)
	ws := &state.Workspace{Mode: state.WorkspaceWorktree, Repo: dir, BaseBranch: "main", BaseCommit: f.base,
		Branch: "raymond/" + id, Dir: filepath.Join(root, "main"), Status: state.DraftOpen}
	f.git(dir, "worktree", "add", "-q", "-b", ws.Branch, ws.Dir, f.base)
	f.write(ws.Dir, "new.txt", "new\n")
	f.commit(ws.Dir, "START.md (main, step 1)")
	for _, w := range []string{"w1", "w2"} {
		wdir := filepath.Join(root, w)
		f.git(dir, "worktree", "add", "-q", "-b", ws.Branch+"."+w, wdir, ws.Branch)
		name := map[string]string{"w1": "merged.txt", "w2": "kept.txt"}[w]
		f.write(wdir, name, w+"\n")
		f.commit(wdir, "WORK.md ("+w+", step 1)")
	}
	f.git(ws.Dir, "merge", "-q", "--no-ff", "-m", "merge w1", ws.Branch+".w1")
	f.git(dir, "update-ref", "refs/raymond/salvage/"+id+"/main/1", ws.Branch)

	f.write(dir, "theirs.txt", "theirs\n")
	f.commit(dir, "the user moves on")
	f.write(dir, "notes.txt", "my notes\n")

	r := &state.Run{WorkflowID: id, Status: state.StatusCompleted, Workspace: ws,
		Agents: []state.Agent{{ID: "main", Workspace: &state.AgentWorkspace{Dir: ws.Dir, Branch: ws.Branch, Owner: "main"}}}}
	require.NoError(t, p.Store.Create(r))
	return f
}

func (f *draftFixture) git(dir string, args ...string) string {
	f.t.Helper()
	out, err := workspace.Git{Dir: dir}.Run(context.Background(), args...)
	require.NoError(f.t, err)
	return out
}

func (f *draftFixture) write(dir, name, text string) {
	f.t.Helper()
	require.NoError(f.t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
}

func (f *draftFixture) commit(dir, msg string) {
	f.git(dir, "add", "-A")
	f.git(dir, "commit", "-q", "-m", msg)
}

// checkPublished checks the repository after a publish of the fixture's
// run, however many times it was killed on the way: main has the draft's
// work once and the user's, the checkout is clean but for the user's
// uncommitted file, only the unmerged worker's branch is left, and the run
// is recorded published at main's head.
func (f *draftFixture) checkPublished(squash bool) {
	t := f.t
	t.Helper()
	for _, name := range []string{"a.txt", "new.txt", "merged.txt", "theirs.txt"} {
		assert.FileExists(t, filepath.Join(f.dir, name))
	}
	assert.NoFileExists(t, filepath.Join(f.dir, "kept.txt"))
	notes, err := os.ReadFile(filepath.Join(f.dir, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "my notes\n", string(notes))
	assert.Equal(t, "?? notes.txt", f.git(f.dir, "status", "--porcelain"))
	assert.Equal(t, "1", f.git(f.dir, "rev-list", "--count", "--first-parent", "--grep=Raymond-Publish: "+f.id, "main"),
		"one publish commit on main")
	parents := strings.Fields(f.git(f.dir, "log", "-1", "--format=%P", "main"))
	if squash {
		assert.Len(t, parents, 1)
	} else {
		assert.Len(t, parents, 2)
	}
	assert.Equal(t, "refs/heads/raymond/"+f.id+".w2", f.git(f.dir, "for-each-ref", "--format=%(refname)", "refs/heads/raymond", "refs/raymond"))
	assert.Equal(t, 1, strings.Count(f.git(f.dir, "worktree", "list", "--porcelain"), "worktree "))
	assert.NoDirExists(t, filepath.Join(f.dir, ".raymond", "worktrees", f.id))
	r, err := f.p.Store.Read(f.id)
	require.NoError(t, err)
	assert.Equal(t, state.DraftPublished, r.Workspace.Status)
	assert.Equal(t, f.git(f.dir, "rev-parse", "main"), r.Workspace.Published)
	assert.Equal(t, "main", r.Workspace.Into)
	assert.Equal(t, squash, r.Workspace.Squash)
}

// checkDiscarded checks the repository after a discard: nothing of the
// run is left, and main and the user's checkout are as they were.
func (f *draftFixture) checkDiscarded(mainBefore string) {
	t := f.t
	t.Helper()
	assert.Equal(t, mainBefore, f.git(f.dir, "rev-parse", "main"))
	assert.Equal(t, "?? notes.txt", f.git(f.dir, "status", "--porcelain"))
	assert.Empty(t, f.git(f.dir, "for-each-ref", "refs/heads/raymond", "refs/raymond"))
	assert.Equal(t, 1, strings.Count(f.git(f.dir, "worktree", "list", "--porcelain"), "worktree "))
	assert.NoDirExists(t, filepath.Join(f.dir, ".raymond", "worktrees", f.id))
	r, err := f.p.Store.Read(f.id)
	require.NoError(t, err)
	assert.Equal(t, state.DraftDiscarded, r.Workspace.Status)
}

func TestPublishRun(t *testing.T) {
	for _, squash := range []bool{false, true} {
		f := newDraftFixture(t, "r1")
		_, res, err := PublishRun(context.Background(), f.p, f.id, workspace.PublishOptions{Squash: squash})
		require.NoError(t, err)
		assert.Equal(t, []string{"refs/heads/raymond/r1.w2"}, res.Kept)
		f.checkPublished(squash)

		// Again: refused, and nothing changes.
		_, _, err = PublishRun(context.Background(), f.p, f.id, workspace.PublishOptions{Squash: squash})
		var de *DraftError
		require.ErrorAs(t, err, &de)
		assert.Contains(t, err.Error(), "run r1 was published already, into main on ")
		f.checkPublished(squash)
	}
}

func TestDiscardRun(t *testing.T) {
	f := newDraftFixture(t, "r1")
	before := f.git(f.dir, "rev-parse", "main")
	_, res, err := DiscardRun(context.Background(), f.p, f.id)
	require.NoError(t, err)
	assert.Len(t, res.Removed, 3+4, "3 worktrees, 4 refs")
	f.checkDiscarded(before)
}

// crashPoints are the points of PublishRun and DiscardRun at which
// RAYMOND_TEST_CRASH_AT ends the process.
var crashPoints = map[string][]string{
	"publish": {"publish-intent", "publish-commit", "publish-merged", "publish-recorded", "cleanup-worktree"},
	"discard": {"discard-intent", "cleanup-worktree", "discard-removed"},
}

// TestKilledHelper is the process the kill tests start and kill: it
// publishes or discards the run RAYMOND_KILL_RUN of the project in
// RAYMOND_KILL_DIR, and is not a test of its own.
func TestKilledHelper(t *testing.T) {
	dir := os.Getenv("RAYMOND_KILL_DIR")
	if dir == "" {
		t.Skip("run by the kill tests")
	}
	p, err := Open(dir)
	if err != nil {
		os.Exit(3)
	}
	ctx := context.Background()
	switch os.Getenv("RAYMOND_KILL_OP") {
	case "publish":
		_, _, err = PublishRun(ctx, p, os.Getenv("RAYMOND_KILL_RUN"), workspace.PublishOptions{Squash: os.Getenv("RAYMOND_KILL_SQUASH") != ""})
	case "discard":
		_, _, err = DiscardRun(ctx, p, os.Getenv("RAYMOND_KILL_RUN"))
	}
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Exit(0)
}

// helper returns the command that runs TestKilledHelper on f's run.
func (f *draftFixture) helper(op string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), "RAYMOND_KILL_DIR="+f.dir, "RAYMOND_KILL_RUN="+f.id, "RAYMOND_KILL_OP="+op)
	cmd.Env = append(cmd.Env, env...)
	return cmd
}

// TestCrashPoints ends publish and discard at each named point (squashed
// or not), then runs the same call again, and checks it finished the job.
func TestCrashPoints(t *testing.T) {
	for op, points := range crashPoints {
		for _, point := range points {
			for _, squash := range []bool{false, true} {
				if op == "discard" && squash {
					continue
				}
				name := op + "/" + point
				if squash {
					name += "/squash"
				}
				t.Run(name, func(t *testing.T) {
					f := newDraftFixture(t, "r1")
					before := f.git(f.dir, "rev-parse", "main")
					env := []string{"RAYMOND_TEST_CRASH_AT=" + point}
					if squash {
						env = append(env, "RAYMOND_KILL_SQUASH=1")
					}
					out, err := f.helper(op, env...).CombinedOutput()
					var ee *exec.ExitError
					require.ErrorAs(t, err, &ee, "the helper was to crash at %s: %s", point, out)
					require.Equal(t, 137, ee.ExitCode(), "%s", out)
					ctx := context.Background()
					if op == "publish" {
						_, _, err = PublishRun(ctx, f.p, f.id, workspace.PublishOptions{Squash: squash})
						require.NoError(t, err)
						f.checkPublished(squash)
					} else {
						_, _, err = DiscardRun(ctx, f.p, f.id)
						require.NoError(t, err)
						f.checkDiscarded(before)
					}
				})
			}
		}
	}
}

// A worktree that holds changes no checkpoint has (a step cut short, the
// run never resumed) is saved as a salvage ref, kept, before it goes.
func TestPublishSalvagesUncommitted(t *testing.T) {
	f := newDraftFixture(t, "r1")
	draft := filepath.Join(f.dir, ".raymond", "worktrees", "r1", "main")
	f.write(draft, "half.txt", "half done\n")
	_, res, err := PublishRun(context.Background(), f.p, f.id, workspace.PublishOptions{})
	require.NoError(t, err)
	assert.Contains(t, res.Kept, "refs/raymond/salvage/r1/main/publish")
	assert.Equal(t, "half done", f.git(f.dir, "show", "refs/raymond/salvage/r1/main/publish:half.txt"))
	assert.NoFileExists(t, filepath.Join(f.dir, "half.txt"), "what no step committed is not published")
}
