package server

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"raymond/daemon"
	"raymond/project"
	"raymond/state"
	"raymond/workspace"
)

// worktreeRun makes the project of e a git checkout on main and turns its
// completed run id into one in the worktree mode whose draft writes
// page.html (with markup in it), as the orchestrator leaves such a run.
func worktreeRun(t *testing.T, e *env, id string) {
	t.Helper()
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := workspace.Git{Dir: dir}.Run(context.Background(), args...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	write := func(path, text string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".git")); err != nil {
		git(e.dir, "init", "-q", "-b", "main")
		write(filepath.Join(e.dir, ".gitignore"), ".raymond/\nreplies.yaml\n")
		git(e.dir, "add", "-A")
		git(e.dir, "commit", "-q", "-m", "base")
	}
	base := git(e.dir, "rev-parse", "HEAD")
	store := &state.Store{Dir: project.StateDir(e.dir)}
	r, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	ws := &state.Workspace{Mode: state.WorkspaceWorktree, Repo: e.dir, BaseBranch: "main", BaseCommit: base,
		Branch: "raymond/" + id, Dir: filepath.Join(e.dir, ".raymond", "worktrees", id, "main"), Status: state.DraftOpen}
	git(e.dir, "worktree", "add", "-q", "-b", ws.Branch, ws.Dir, base)
	write(filepath.Join(ws.Dir, "page.html"), "<p>hi "+id+"</p>\n<script>window.pwned = true;</script>\n")
	git(ws.Dir, "add", "-A")
	git(ws.Dir, "commit", "-q", "-m", "START.md (main, step 1)")
	r.Workspace = ws
	if err := store.Write(r); err != nil {
		t.Fatal(err)
	}
}

// helloAgain answers hello's steps as often as asked.
const helloAgain = `replies:
  START.md:
    - text: "Hello. <goto>END.md</goto>"
      repeat: true
  END.md:
    - text: "<result>done</result>"
      repeat: true
`

func TestDraftEndpoints(t *testing.T) {
	e := newEnv(t, helloAgain, map[string]states{"hello": hello})
	shared := e.launch("hello")
	e.waitStatus(shared, "completed")
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	worktreeRun(t, e, id)

	var d daemon.Diff
	e.call(request{method: "GET", path: "/api/v1/runs/" + id + "/diff"}, http.StatusOK, &d)
	if d.Status != "draft" || len(d.Files) != 1 || d.Files[0].Path != "page.html" || d.Added != 2 || d.Truncated {
		t.Fatalf("diff: %+v", d)
	}
	if !strings.Contains(d.Patch, "+<script>window.pwned = true;</script>") {
		t.Errorf("patch: %q", d.Patch)
	}

	// A shared run has no draft; a bad body is refused; a page of another
	// site may not publish.
	e.call(request{method: "GET", path: "/api/v1/runs/" + shared + "/diff"}, http.StatusConflict, nil)
	e.call(request{method: "POST", path: "/api/v1/runs/" + shared + "/publish"}, http.StatusConflict, nil)
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/publish", body: `{"squash": "yes"}`}, http.StatusBadRequest, nil)
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/publish",
		header: map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}}, http.StatusForbidden, nil)
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/discard", noToken: true}, http.StatusUnauthorized, nil)

	var p daemon.Published
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/publish", body: `{"squash": false}`}, http.StatusOK, &p)
	if p.How != workspace.PublishFastForward || p.Into != "main" || p.Checkout != e.dir {
		t.Fatalf("publish: %+v", p)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "page.html")); err != nil {
		t.Errorf("the checkout did not move along: %v", err)
	}
	e.call(request{method: "GET", path: "/api/v1/runs/" + id + "/diff"}, http.StatusOK, &d)
	if d.Status != "published" || d.Published != p.Commit || len(d.Files) != 1 {
		t.Errorf("diff after publish: %+v", d)
	}
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/publish"}, http.StatusConflict, nil)
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/discard"}, http.StatusConflict, nil)
	// Published, it is never resumed: not asked, not by the recovery of a
	// daemon that finds it interrupted.
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/resume"}, http.StatusConflict, nil)
	store := &state.Store{Dir: project.StateDir(e.dir)}
	r, err := store.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	r.Status = state.StatusRunning
	if err := store.Write(r); err != nil {
		t.Fatal(err)
	}
	if rec := e.restart(context.Background()); slices.Contains(rec.Resumed, id) || rec.Failed[id] != "" {
		t.Errorf("the recovery took the published run: %+v", rec)
	}

	// Discard of a second worktree run removes its branch and worktree.
	other := e.launch("hello")
	e.waitStatus(other, "completed")
	worktreeRun(t, e, other)
	var x daemon.Discarded
	e.call(request{method: "POST", path: "/api/v1/runs/" + other + "/discard"}, http.StatusOK, &x)
	if len(x.Removed) != 2 {
		t.Errorf("discard removed %v, want the worktree and the branch", x.Removed)
	}
	if _, err := os.Stat(filepath.Join(e.dir, ".raymond", "worktrees", other)); !os.IsNotExist(err) {
		t.Errorf("the worktree is still there: %v", err)
	}
}
