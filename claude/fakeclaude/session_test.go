package fakeclaude

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"raymond/claude/sessionfile"
)

const twoReplies = "replies:\n  - text: first\n  - text: second\n"

// near compares costs, which are sums of floats.
func near(t *testing.T, what string, got any, want float64) {
	t.Helper()
	g, ok := got.(float64)
	if !ok || math.Abs(g-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// costOf returns the costUSD of the only model in a modelUsage-like object.
func costOf(t *testing.T, v any) any {
	t.Helper()
	m, _ := v.(map[string]any)
	if len(m) != 1 {
		t.Fatalf("want one model in %v", v)
	}
	for _, u := range m {
		return u.(map[string]any)["costUSD"]
	}
	return nil
}

func TestProjectDir(t *testing.T) {
	tests := []struct{ cwd, want string }{
		{"/home/dev/project", "-home-dev-project"},
		{"/tmp/a_b.c d", "-tmp-a-b-c-d"},
		{"/srv/café", "-srv-caf-"},
		// As the real CLI 2.1.330 named them: an emoji is two UTF-16 code
		// units, and a name over 200 is cut and told apart by a hash.
		{"/tmp/sfv.r33U/ünï_😀.dir", "-tmp-sfv-r33U--n-----dir"},
		{"/tmp/sfv.r33U/" + strings.Repeat("a", 120) + "/" + strings.Repeat("B_", 60) + "/x.y",
			"-tmp-sfv-r33U-" + strings.Repeat("a", 120) + strings.Repeat("-B", 33) + "-q8xi97"},
	}
	for _, tt := range tests {
		check(t, tt.cwd, projectDir("D", tt.cwd), filepath.Join("D", "projects", tt.want))
	}
}

// TestUnusualCwd: a session made in a long or non-ASCII working directory is
// stored, and resumed, where the real CLI keeps it.
func TestUnusualCwd(t *testing.T) {
	for _, name := range []string{"ünï_😀.dir", strings.Repeat("long-folder-name.", 15)} {
		f := newFake(t, "replies: [{text: ok, repeat: true}]")
		f.cwd = filepath.Join(f.cwd, name)
		must(t, os.Mkdir(f.cwd, 0o755))
		out := f.ask("hi")
		check(t, "exit", out.code, 0)
		id := out.sessionID(t)
		if _, err := os.Stat(filepath.Join(f.config, "projects", sessionfile.Folder(f.cwd), id+".jsonl")); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		check(t, "resume exit", f.ask("again", "--resume", id).code, 0)
	}
}

func TestNewSession(t *testing.T) {
	f := newFake(t, "replies:\n  - text: hello\n")
	out := f.ask("hi")
	check(t, "exit", out.code, 0)
	id := out.sessionID(t)
	if !uuidPattern.MatchString(id) || id[14] != '4' {
		t.Errorf("session id %q is not a UUID v4", id)
	}
	check(t, "init session_id", out.lines(t)[0]["session_id"], id)
	if _, err := os.Stat(sessionPath(f.config, f.cwd, id)); err != nil {
		t.Errorf("session not stored where the real CLI keeps it: %v", err)
	}
	s, err := LoadSession(f.config, f.cwd, id)
	must(t, err)
	check(t, "history", s.History, []Message{{"user", "hi"}, {"assistant", "hello"}})
	near(t, "stored cost", s.CostUSD, defaultCost)
	check(t, "logged session", f.calls()[0].SessionID, id)
}

func TestSessionIDOption(t *testing.T) {
	f := newFake(t, twoReplies)
	const id = "0e6f9d43-57a4-4c8e-9b55-3a0a7c1d2e3f"
	out := f.ask("one", "--session-id", id)
	check(t, "session id", out.sessionID(t), id)

	again := f.ask("two", "--session-id", id)
	check(t, "exit", again.code, 1)
	check(t, "stdout", again.stdout, "")
	check(t, "stderr", again.stderr, "Error: Session ID "+id+" is already in use.\n")

	// The refused call used no reply.
	check(t, "next reply", f.ask("three").result(t)["result"], "second")
}

// TestLineage follows costs and histories through resume, fork and resume of the fork,
// as in fixtures session-new / session-resume / session-fork.
func TestLineage(t *testing.T) {
	f := newFake(t, "replies:\n  - text: ok\n    repeat: true\n")
	root := f.ask("one").sessionID(t)

	resumed := f.ask("two", "--resume", root)
	res := resumed.result(t)
	check(t, "resumed id", res["session_id"], root)
	near(t, "resumed total_cost_usd", res["total_cost_usd"], 2*defaultCost)
	near(t, "resumed modelUsage cost", costOf(t, res["modelUsage"]), 2*defaultCost)
	near(t, "resumed since-last cost", costOf(t, res["model_usage_since_last_result"]), defaultCost)
	near(t, "resumed usage input", res["usage"].(map[string]any)["input_tokens"], 1200)

	fork := f.ask("three", "--resume", root, "--fork-session")
	branch := fork.sessionID(t)
	if branch == root || !uuidPattern.MatchString(branch) {
		t.Fatalf("fork produced session %q from %q", branch, root)
	}
	near(t, "fork total_cost_usd", fork.result(t)["total_cost_usd"], 3*defaultCost)
	near(t, "fork since-last cost", costOf(t, fork.result(t)["model_usage_since_last_result"]), defaultCost)

	parent, err := LoadSession(f.config, f.cwd, root)
	must(t, err)
	check(t, "parent history length", len(parent.History), 4)
	near(t, "parent cost", parent.CostUSD, 2*defaultCost)
	child, err := LoadSession(f.config, f.cwd, branch)
	must(t, err)
	check(t, "branch forked_from", child.ForkedFrom, root)
	check(t, "branch history", child.History[:5], append(slices.Clone(parent.History), Message{"user", "three"}))

	const named = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	check(t, "fork with --session-id", f.ask("four", "--resume", root, "--fork-session", "--session-id", named).sessionID(t), named)
	near(t, "resumed branch total", f.ask("five", "--resume", branch).result(t)["total_cost_usd"], 4*defaultCost)

	calls := f.calls()
	check(t, "logged resumed", calls[2].Resumed, root)
	check(t, "logged forked", calls[2].Forked, true)
	check(t, "logged produced", calls[2].SessionID, branch)
	check(t, "plain resume not forked", calls[1].Forked, false)
}

// TestResumeUnknown compares with the real CLI's answer, captured in the fixtures.
func TestResumeUnknown(t *testing.T) {
	wantStderr, err := os.ReadFile(filepath.Join(fixturesDir, "resume-unknown.stderr.txt"))
	must(t, err)
	fixture := readFixture(t, "resume-unknown.stream.jsonl")

	f := newFake(t, twoReplies)
	const id = "11111111-2222-4333-8444-555555555555"
	out := f.ask("hi", "--resume", id)
	check(t, "exit", out.code, 1)
	check(t, "stderr", out.stderr, string(wantStderr))
	lines := out.lines(t)
	if len(lines) != 1 {
		t.Fatalf("want exactly one line, got %d:\n%s", len(lines), out.stdout)
	}
	check(t, "keys", keys(lines[0]), keys(fixture[0]))
	for _, k := range []string{"type", "subtype", "is_error", "num_turns", "session_id", "total_cost_usd", "errors", "stop_reason", "modelUsage"} {
		check(t, k, lines[0][k], fixture[0][k])
	}
	check(t, "next reply", f.ask("again").result(t)["result"], "first")
	call := f.calls()[0]
	check(t, "logged resumed", call.Resumed, id)
	check(t, "logged reply", call.Reply, -1)
}

// TestResumeFromAnotherCwd: as the real CLI 2.1.330 does (realclaude's
// TestWorktreeSessions), a session is resumed from any working directory:
// --resume appends to its file where it is, --fork-session writes the branch
// into the folder of the cwd it runs in. An id in no folder is still unknown.
func TestResumeFromAnotherCwd(t *testing.T) {
	f := newFake(t, "replies:\n  - text: ok\n    repeat: true\n")
	id := f.ask("hi").sessionID(t)
	elsewhere := t.TempDir()
	other := f.runInv(&invocation{cwd: elsewhere, args: slices.Concat(streamArgs, []string{"--resume", id, "--", "again"})}, nil)
	check(t, "exit", other.code, 0)
	check(t, "resumed", other.result(t)["session_id"], id)
	if _, err := os.Stat(sessionPath(f.config, elsewhere, id)); err == nil {
		t.Error("a resume from another folder must append to the session's own file, not make one there")
	}
	s, err := LoadSession(f.config, f.cwd, id)
	must(t, err)
	check(t, "appended where it was", len(s.History), 4)

	branch := f.runInv(&invocation{cwd: elsewhere, args: slices.Concat(streamArgs, []string{"--resume", id, "--fork-session", "--", "branch"})}, nil)
	check(t, "exit", branch.code, 0)
	bid, _ := branch.result(t)["session_id"].(string)
	if _, err := os.Stat(sessionPath(f.config, elsewhere, bid)); err != nil {
		t.Errorf("the branch is written in the folder of the cwd it ran in: %v", err)
	}

	unknown := "d2c02008-a268-42f3-a2fe-2022e502d864"
	none := f.runInv(&invocation{cwd: elsewhere, args: slices.Concat(streamArgs, []string{"--resume", unknown, "--", "again"})}, nil)
	check(t, "exit", none.code, 1)
	check(t, "stderr", none.stderr, "No conversation found with session ID: "+unknown+"\n")
}

// TestOldVersionCost: before 2.1.277 total_cost_usd is this call's cost only and
// there is no model_usage_since_last_result.
func TestOldVersionCost(t *testing.T) {
	f := newFake(t, "replies:\n  - text: ok\n    repeat: true\n")
	f.env = append(f.env, "FAKE_CLAUDE_VERSION=2.1.197")
	id := f.ask("one").sessionID(t)
	out := f.ask("two", "--resume", id)
	res := out.result(t)
	near(t, "total_cost_usd", res["total_cost_usd"], defaultCost)
	near(t, "modelUsage cost", costOf(t, res["modelUsage"]), defaultCost)
	if _, ok := res["model_usage_since_last_result"]; ok {
		t.Error("an old CLI has no model_usage_since_last_result")
	}
	check(t, "init version", out.lines(t)[0]["claude_code_version"], "2.1.197")
	s, err := LoadSession(f.config, f.cwd, id)
	must(t, err)
	near(t, "the store still adds up", s.CostUSD, 2*defaultCost)
}

func TestCumulativeCost(t *testing.T) {
	for v, want := range map[string]bool{
		"2.1.277": true, "2.1.330": true, "2.2.0": true, "3.0.0": true, "2.1.277-beta.1": true,
		"2.1.276": false, "2.1.197": false, "2.0.999": false, "1.9": false, "2": false, "nonsense": true,
	} {
		check(t, v, cumulativeCost(v), want)
	}
}

func TestScriptedCost(t *testing.T) {
	f := newFake(t, "replies:\n  - text: a\n    cost: 0.25\n  - text: b\n    cost: 0\n")
	id := f.ask("one").sessionID(t)
	res := f.ask("two", "--resume", id).result(t)
	near(t, "total", res["total_cost_usd"], 0.25)
	check(t, "logged cost", f.calls()[1].Cost, 0.0)
	near(t, "logged cost", f.calls()[0].Cost, 0.25)
}

// readFixture decodes the lines of a captured real output.
func readFixture(t *testing.T, name string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(fixturesDir, name))
	must(t, err)
	return output{stdout: string(data)}.lines(t)
}

// keys lists the keys of m, sorted.
func keys(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// jsonText encodes v for messages.
func jsonText(v any) string {
	data, _ := json.Marshal(v)
	return strings.TrimSpace(string(data))
}
