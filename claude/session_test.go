package claude

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"raymond/claude/fakeclaude"
)

func TestProjectDir(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/work/x", "-work-x"},
		{"/home/dev/my_app.v2/some dir", "-home-dev-my-app-v2-some-dir"},
		{"/srv/café", "-srv-caf-"},
		{"/tmp/ünï_😀.dir", "-tmp--n-----dir"}, // an emoji is two UTF-16 code units
	}
	for _, tt := range tests {
		eq(t, tt.cwd, ProjectDir("/cfg", tt.cwd), filepath.Join("/cfg", "projects", tt.want))
	}
}

// session puts an empty session file for id in dir's store for cwd, modified at mtime.
func session(t *testing.T, dir, cwd, id string, mtime time.Time) {
	t.Helper()
	path := filepath.Join(ProjectDir(dir, cwd), id+".jsonl")
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte("{}\n"), 0o644))
	must(t, os.Chtimes(path, mtime, mtime))
}

func TestLatestSession(t *testing.T) {
	dir, cwd := t.TempDir(), "/work/x"
	const older, newer = "11111111-2222-4333-8444-555555555555", "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	base := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	session(t, dir, cwd, older, base)
	session(t, dir, cwd, newer, base.Add(time.Minute))
	// Newer still, but not sessions: a subagent's transcript, a session's folder, a
	// temporary file, a session of another directory.
	later := base.Add(time.Hour)
	project := ProjectDir(dir, cwd)
	for _, name := range []string{"agent-1234abcd.jsonl", ".tmp-99.jsonl"} {
		must(t, os.WriteFile(filepath.Join(project, name), nil, 0o644))
		must(t, os.Chtimes(filepath.Join(project, name), later, later))
	}
	must(t, os.Mkdir(filepath.Join(project, "bbbbbbbb-bbbb-4ccc-8ddd-eeeeeeeeeeee.jsonl"), 0o755))
	session(t, dir, "/work/y", "cccccccc-bbbb-4ccc-8ddd-eeeeeeeeeeee", later)

	id, err := LatestSession(dir, cwd, nil)
	must(t, err)
	eq(t, "latest", id, newer)

	// The user goes back to the older one.
	must(t, os.Chtimes(filepath.Join(project, older+".jsonl"), later, later))
	id, err = LatestSession(dir, cwd, nil)
	must(t, err)
	eq(t, "latest after touching the older", id, older)

	// Sessions a run made are passed over: the newest is then the other.
	id, err = LatestSession(dir, cwd, func(id string) bool { return id == older })
	must(t, err)
	eq(t, "latest of the person's", id, newer)
	_, err = LatestSession(dir, cwd, func(string) bool { return true })
	if !errors.Is(err, ErrNoSession) {
		t.Errorf("every session skipped: err = %v, want ErrNoSession", err)
	}
}

// TestLatestSessionNone: no folder, and a folder with no session file, say where
// they looked, with the home folder as ~ when the store is the default one.
func TestLatestSessionNone(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	const want = "no Claude Code session in ~/.claude/projects/-work-x; start one with claude in /work/x first"
	_, err := LatestSession("", "/work/x", nil)
	if !errors.Is(err, ErrNoSession) {
		t.Fatalf("err = %v, want ErrNoSession", err)
	}
	eq(t, "message", err.Error(), want)

	must(t, os.MkdirAll(filepath.Join(home, ".claude", "projects", "-work-x", "memory"), 0o755))
	_, err = LatestSession("", "/work/x", nil)
	eq(t, "message with an empty folder", err.Error(), want)

	other := t.TempDir()
	_, err = LatestSession(other, "/work/x", nil)
	eq(t, "message elsewhere", err.Error(),
		"no Claude Code session in "+filepath.Join(other, "projects", "-work-x")+"; start one with claude in /work/x first")
}

// TestLatestSessionEnv: "" means $CLAUDE_CONFIG_DIR when it is set.
func TestLatestSessionEnv(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", dir)
	t.Setenv("HOME", t.TempDir())
	const id = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	session(t, dir, "/work/x", id, time.Now())
	got, err := LatestSession("", "/work/x", nil)
	must(t, err)
	eq(t, "latest", got, id)
}

// TestLatestSessionFake: the fake claude's sessions, made in a directory whose name
// has dots, underscores and spaces, are found where LatestSession looks, also through
// a symbolic link to that directory; a step branched from the latest is newer still.
func TestLatestSessionFake(t *testing.T) {
	f := newFake(t, []fakeclaude.Reply{{Text: "ok", Repeat: true}})
	config := filepath.Join(f.dir, "config")
	f.cwd = filepath.Join(t.TempDir(), "my_app.v2 copy")
	must(t, os.Mkdir(f.cwd, 0o755))
	must(t, fakeclaude.WriteSession(config, &fakeclaude.Session{ID: "11111111-2222-4333-8444-555555555555", Cwd: f.cwd,
		History: []fakeclaude.Message{{Role: "user", Text: "hi"}}}))
	old := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(filepath.Join(ProjectDir(config, f.cwd), "11111111-2222-4333-8444-555555555555.jsonl"), old, old))

	res, _ := f.run(f.request("start"))
	eq(t, "Outcome", res.Outcome, Success)
	id, err := LatestSession(config, f.cwd, nil)
	must(t, err)
	eq(t, "latest", id, res.SessionID)

	link := filepath.Join(t.TempDir(), "link")
	must(t, os.Symlink(f.cwd, link))
	id, err = LatestSession(config, link, nil)
	must(t, err)
	eq(t, "latest through a link", id, res.SessionID)

	// File times are coarse (a few ms): make the branch's parent clearly older.
	must(t, os.Chtimes(filepath.Join(ProjectDir(config, f.cwd), id+".jsonl"), old, old))
	req := f.request("branch")
	req.Resume, req.Fork = id, true
	branch, _ := f.run(req)
	eq(t, "branch Outcome", branch.Outcome, Success)
	id, err = LatestSession(config, f.cwd, nil)
	must(t, err)
	eq(t, "latest after a branch", id, branch.SessionID)
}
