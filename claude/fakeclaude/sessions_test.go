package fakeclaude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSessionFile: a session is a JSONL file where the real CLI keeps it, one line per
// message, and nothing of it is in FAKE_CLAUDE_DIR.
func TestSessionFile(t *testing.T) {
	f := newFake(t, "replies:\n  - text: hello\n")
	id := f.ask("hi").sessionID(t)
	path := filepath.Join(f.config, "projects", projectName(f.cwd), id+".jsonl")
	data, err := os.ReadFile(path)
	must(t, err)
	var types []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var line map[string]any
		must(t, json.Unmarshal(sc.Bytes(), &line))
		check(t, "sessionId", line["sessionId"], id)
		types = append(types, line["type"].(string))
		if line["type"] == "cost-state" {
			check(t, "cost-state", line, map[string]any{"type": "cost-state", "sessionId": id, "totalCostUSD": defaultCost})
			continue
		}
		check(t, "cwd", line["cwd"], f.cwd)
	}
	// The answer, then the running cost the CLI writes as it exits.
	check(t, "line types", types, []string{"user", "assistant", "cost-state"})
	if _, err := os.Stat(filepath.Join(f.dir, "projects")); err == nil {
		t.Error("the session store is still in FAKE_CLAUDE_DIR")
	}
}

// projectName is the real CLI's folder name for a cwd, written out independently.
func projectName(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestHomeStore: without CLAUDE_CONFIG_DIR the store is $HOME/.claude; with neither
// the fake refuses to run.
func TestHomeStore(t *testing.T) {
	f := newFake(t, "replies:\n  - text: hello\n    repeat: true\n")
	home := t.TempDir()
	f.env = []string{"FAKE_CLAUDE_DIR=" + f.dir, "FAKE_CLAUDE_ROOT=0", "HOME=" + home}
	id := f.ask("hi").sessionID(t)
	if _, err := LoadSession(filepath.Join(home, ".claude"), f.cwd, id); err != nil {
		t.Errorf("session not in $HOME/.claude: %v", err)
	}

	f.env = []string{"FAKE_CLAUDE_DIR=" + f.dir, "FAKE_CLAUDE_ROOT=0", "HOME="}
	out := f.ask("hi")
	check(t, "exit", out.code, 1)
	check(t, "stderr", out.stderr, "fake claude: neither CLAUDE_CONFIG_DIR nor HOME is set: nowhere to keep sessions\n")
}

// TestMakeSession: a session made as the user's earlier claude would have left it can
// be branched with --resume ID --fork-session --session-id NEW, and stays as it was.
func TestMakeSession(t *testing.T) {
	f := newFake(t, "replies:\n  - text: branched\n")
	const user = "5d2c6a0e-1f3b-4a7c-9e8d-0b1a2c3d4e5f"
	made := f.run(makeSessionFlag, user, "--prompt", "fix the parser", "--reply", "done", "--cost", "0.5")
	check(t, "exit", made.code, 0)
	check(t, "stdout", made.stdout, user+"\n")
	check(t, "stderr", made.stderr, "")
	check(t, "calls logged", len(f.calls()), 0)

	const branch = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	res := f.ask("go on", "--resume", user, "--fork-session", "--session-id", branch).result(t)
	check(t, "branch", res["session_id"], branch)
	near(t, "total_cost_usd", res["total_cost_usd"], 0.5+defaultCost)
	near(t, "since-last cost", costOf(t, res["model_usage_since_last_result"]), defaultCost)

	s, err := LoadSession(f.config, f.cwd, branch)
	must(t, err)
	check(t, "branch history", s.History, []Message{{"user", "fix the parser"}, {"assistant", "done"}, {"user", "go on"}, {"assistant", "branched"}})
	check(t, "forked from", s.ForkedFrom, user)
	parent, err := LoadSession(f.config, f.cwd, user)
	must(t, err)
	check(t, "user's session untouched", parent.History, []Message{{"user", "fix the parser"}, {"assistant", "done"}})
	near(t, "user's cost", parent.CostUSD, 0.5)

	again := f.run(makeSessionFlag, user)
	check(t, "in use exit", again.code, 1)
	check(t, "in use stderr", again.stderr, "fake claude: make session: write session "+user+": the id is already in use in "+f.cwd+"\n")

	fresh := f.run(makeSessionFlag)
	check(t, "fresh exit", fresh.code, 0)
	id := strings.TrimSpace(fresh.stdout)
	if !uuidPattern.MatchString(id) {
		t.Fatalf("made session id %q is not a UUID", id)
	}
	s, err = LoadSession(f.config, f.cwd, id)
	must(t, err)
	check(t, "default history", s.History, []Message{{"user", madePrompt}, {"assistant", madeReply}})
	near(t, "default cost", s.CostUSD, defaultCost)

	check(t, "bad flag", f.run(makeSessionFlag, "--colour", "red").code, 2)
	check(t, "two ids", f.run(makeSessionFlag, user, branch).code, 2)
}

func TestWriteSession(t *testing.T) {
	dir, cwd := t.TempDir(), "/srv/some project"
	const id = "0e6f9d43-57a4-4c8e-9b55-3a0a7c1d2e3f"
	want := &Session{ID: id, Cwd: cwd, ForkedFrom: "11111111-2222-4333-8444-555555555555", CostUSD: 0.25,
		InputTokens: 10, OutputTokens: 3, History: []Message{{"user", "a"}, {"assistant", "b"}, {"user", "c"}}}
	must(t, WriteSession(dir, want))
	got, err := LoadSession(dir, cwd, id)
	must(t, err)
	check(t, "round trip", got, want)

	for name, s := range map[string]*Session{
		"in use":       want,
		"not a uuid":   {ID: "../x", Cwd: cwd},
		"cost no turn": {ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Cwd: cwd, CostUSD: 1, History: []Message{{"user", "a"}}},
		"bad role":     {ID: "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee", Cwd: cwd, History: []Message{{"system", "a"}}},
	} {
		if err := WriteSession(dir, s); err == nil {
			t.Errorf("%s: WriteSession succeeded", name)
		}
	}
}

// TestForkOfFork: a branch of a branch names its own parent and carries the whole
// lineage's cost.
func TestForkOfFork(t *testing.T) {
	f := newFake(t, "replies:\n  - text: ok\n    repeat: true\n")
	root := f.ask("one").sessionID(t)
	child := f.ask("two", "--resume", root, "--fork-session").sessionID(t)
	out := f.ask("three", "--resume", child, "--fork-session")
	near(t, "total", out.result(t)["total_cost_usd"], 3*defaultCost)
	s, err := LoadSession(f.config, f.cwd, out.sessionID(t))
	must(t, err)
	check(t, "forked from", s.ForkedFrom, child)
	check(t, "history length", len(s.History), 6)
}

// TestProcessesShareStore: fakes with separate FAKE_CLAUDE_DIRs (so no common lock)
// work at once on two sessions of one store, several on each; only the store's own
// locking keeps every message and cost.
func TestProcessesShareStore(t *testing.T) {
	const perSession = 4
	config, cwd := t.TempDir(), t.TempDir()
	var ids []string
	for range 2 {
		f := &fake{t: t, dir: t.TempDir(), config: config, cwd: cwd}
		f.env = []string{"FAKE_CLAUDE_DIR=" + f.dir, "CLAUDE_CONFIG_DIR=" + config, "FAKE_CLAUDE_ROOT=0"}
		out := f.run(makeSessionFlag)
		check(t, "make session", out.code, 0)
		ids = append(ids, strings.TrimSpace(out.stdout))
	}
	var cmds []*exec.Cmd
	for i := range 2 * perSession {
		f := newFake(t, "replies: [{text: ok, repeat: true}]")
		f.config, f.cwd = config, cwd
		f.env = []string{"FAKE_CLAUDE_DIR=" + f.dir, "CLAUDE_CONFIG_DIR=" + config, "FAKE_CLAUDE_ROOT=0"}
		cmd := f.command(slices.Concat(streamArgs, []string{"--resume", ids[i%2], "--", "more"})...)
		must(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		must(t, cmd.Wait())
	}
	for _, id := range ids {
		s, err := LoadSession(config, cwd, id)
		must(t, err)
		// A call that found another's prompt unanswered answered it first.
		synthetic := 0
		for _, m := range s.History {
			if m == (Message{"assistant", noResponse}) {
				synthetic++
			}
		}
		check(t, "history length", len(s.History), 2+2*perSession+synthetic)
		near(t, "cost", s.CostUSD, float64(1+perSession)*defaultCost)
	}
}
