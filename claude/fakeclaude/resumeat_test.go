package fakeclaude

import (
	"testing"
)

// lastAssistantUUID is the uuid of the last assistant line of a call's stream.
func lastAssistantUUID(t *testing.T, o output) string {
	t.Helper()
	id := ""
	for _, l := range o.lines(t) {
		if l["type"] == "assistant" {
			id, _ = l["uuid"].(string)
		}
	}
	if id == "" {
		t.Fatalf("no assistant line in\n%s", o.stdout)
	}
	return id
}

// TestResumeSessionAt: --resume S --resume-session-at U --fork-session loads S
// only up to its message U (the uuid of an assistant line of S's stream, as
// the real CLI 2.1.330 takes it): the branch holds the turns up to U, the
// prompt after them, and S is untouched.
func TestResumeSessionAt(t *testing.T) {
	f := newFake(t, "replies:\n  - text: first\n  - text: second\n  - text: third\n")
	one := f.ask("one")
	root, at := one.sessionID(t), lastAssistantUUID(t, one)
	f.ask("two", "--resume", root)

	out := f.ask("again", "--resume", root, "--resume-session-at", at, "--fork-session")
	branch := out.sessionID(t)
	// The running cost is not cut: the real CLI 2.1.330 reports the whole
	// session's total plus this call's.
	near(t, "cut branch total_cost_usd", out.result(t)["total_cost_usd"], 3*defaultCost)
	if branch == root {
		t.Fatalf("the branch kept the session's id %s", root)
	}
	got, err := LoadSession(f.config, f.cwd, branch)
	must(t, err)
	check(t, "branch history", got.History, []Message{{"user", "one"}, {"assistant", "first"}, {"user", "again"}, {"assistant", "third"}})
	parent, err := LoadSession(f.config, f.cwd, root)
	must(t, err)
	check(t, "parent history length", len(parent.History), 4)
}

// TestResumeSessionAtUnknown: a message the session does not hold is refused as
// the real CLI refuses it, and uses no reply.
func TestResumeSessionAtUnknown(t *testing.T) {
	f := newFake(t, "replies:\n  - text: first\n  - text: second\n")
	root := f.ask("one").sessionID(t)
	const bad = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"
	out := f.ask("two", "--resume", root, "--resume-session-at", bad, "--fork-session")
	check(t, "exit status", out.code, 1)
	check(t, "stderr", out.stderr, "No message found with message.uuid of: "+bad+"\n")
	check(t, "next reply", f.ask("three").result(t)["result"], "second")
}
