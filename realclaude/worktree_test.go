package realclaude

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"raymond/claude/sessionfile"
)

// claudeIn runs the CLI in dir with args, as a user would, and returns the
// session of its result line and whether it succeeded.
func (w *world) claudeIn(dir string, args ...string) (string, bool) {
	w.t.Helper()
	cmd := exec.Command(w.claude, append([]string{"-p", "--output-format", "json"}, args...)...)
	cmd.Dir, cmd.Env = dir, w.env()
	out, err := cmd.CombinedOutput()
	var r resultLine
	_ = json.Unmarshal(out, &r)
	if err != nil {
		w.t.Logf("claude %v in %s: %v\n%s", args, dir, err, out)
	}
	return r.SessionID, err == nil
}

// gitIn runs git in dir.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// sessionIn reports whether the store keeps session id in the folder of cwd.
func (w *world) sessionIn(cwd, id string) bool {
	_, err := os.Stat(filepath.Join(sessionfile.Dir(filepath.Join(w.home, ".claude"), cwd), id+".jsonl"))
	return err == nil
}

// TestWorktreeSessions finds out where the CLI looks for a session that
// another working directory made: the checkout and two worktrees of one
// repository, and a folder in no repository. It finds it from each:
// --resume appends to the session's file where it is, and --fork-session
// writes the branch into the folder of the directory it runs in. The fake
// claude keeps the same rule (fakeclaude's TestResumeFromAnotherCwd).
func TestWorktreeSessions(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(
		turn{prompt: "^First", text: "one", repeat: true},
		turn{prompt: "^Again", text: "two", repeat: true},
	))
	w.write(map[string]string{"a.txt": "a\n", ".gitignore": ".raymond/\nwt*/\n"})
	gitIn(t, w.dir, "init", "-q", "-b", "trunk")
	gitIn(t, w.dir, "add", "-A")
	gitIn(t, w.dir, "commit", "-qm", "base")
	wt1, wt2 := filepath.Join(w.dir, "wt1"), filepath.Join(w.dir, "wt2")
	gitIn(t, w.dir, "worktree", "add", "-q", "-b", "b1", wt1)
	gitIn(t, w.dir, "worktree", "add", "-q", "-b", "b2", wt2)

	checkout, ok := w.claudeIn(w.dir, "--", "First in the checkout")
	if !ok || checkout == "" {
		t.Fatal("no session made in the checkout")
	}
	if id, ok := w.claudeIn(wt1, "--resume", checkout, "--", "Again from wt1"); !ok || id != checkout {
		t.Errorf("the checkout's session was not resumed from another worktree (ok %v, session %q)", ok, id)
	}
	if w.sessionIn(wt1, checkout) || !w.sessionIn(w.dir, checkout) {
		t.Error("a resume from another worktree must append to the session's own file")
	}
	branch, ok := w.claudeIn(wt1, "--resume", checkout, "--fork-session", "--", "Again as a branch from wt1")
	if !ok || branch == "" || branch == checkout {
		t.Fatalf("the checkout's session was not branched from another worktree (ok %v, session %q)", ok, branch)
	}
	if !w.sessionIn(wt1, branch) {
		t.Error("a branch is written into the folder of the directory it ran in")
	}
	if id, ok := w.claudeIn(wt2, "--resume", branch, "--", "Again from wt2"); !ok || id != branch {
		t.Errorf("a worktree's session was not resumed from a sibling worktree (ok %v, session %q)", ok, id)
	}
	if id, ok := w.claudeIn(t.TempDir(), "--resume", checkout, "--", "Again from a folder in no repository"); !ok || id != checkout {
		t.Errorf("the session was not resumed from a folder outside the repository (ok %v, session %q)", ok, id)
	}
}

// TestWorktreeContinueSession: a run in the worktree mode works in its
// draft's worktree, and its first step branches, from there, the
// conversation the user had in the checkout (--continue-session).
func TestWorktreeContinueSession(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(
		turn{prompt: "^Earlier chat", text: "Noted."},
		turn{prompt: "^Go on from", text: "<result>continued</result>"},
	))
	w.write(map[string]string{"wf/START.md": "Go on from there.\n", ".gitignore": ".raymond/\n"})
	gitIn(t, w.dir, "init", "-q", "-b", "trunk")
	gitIn(t, w.dir, "add", "-A")
	gitIn(t, w.dir, "commit", "-qm", "base")
	user := w.userSession("Earlier chat.")
	o := w.must(0, "run", "--id", "wcs", "--workspace", "worktree", "--continue-session", "wf")
	if o.stdout != "continued\n" {
		t.Errorf("stdout %q", o.stdout)
	}
	steps := w.steps("wcs")
	if len(steps) != 1 || steps[0].ResumedSession != user {
		t.Fatalf("the first step did not continue the user's session %s: %+v", user, steps)
	}
	draft := filepath.Join(w.dir, ".raymond", "worktrees", "wcs", "main")
	if steps[0].Cwd != draft {
		t.Errorf("the step ran in %s, not in the draft's worktree %s", steps[0].Cwd, draft)
	}
	if !w.sessionIn(draft, steps[0].SessionID) {
		t.Errorf("the branch %s is not kept in the draft's folder of the store", steps[0].SessionID)
	}
}
