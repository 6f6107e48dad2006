package fakeclaude

import (
	"testing"
)

// initModel is the model the init line of out names.
func initModel(t *testing.T, out output) string {
	t.Helper()
	ls := out.lines(t)
	if len(ls) == 0 || ls[0]["subtype"] != "init" {
		t.Fatalf("the first line is not the init line\nstdout: %s\nstderr: %s", out.stdout, out.stderr)
	}
	m, _ := ls[0]["model"].(string)
	return m
}

// TestResumeKeepsModel: as the real CLI 2.1.330 does, --resume and --resume
// --fork-session without --model run on the model the session answered with
// last, not on the default; --model still switches it, and "default" names
// the default.
func TestResumeKeepsModel(t *testing.T) {
	f := newFake(t, "replies: [{text: ok, repeat: true}]")
	root := f.ask("one", "--model", "haiku")
	check(t, "new session on --model", initModel(t, root), "claude-haiku-5-5")
	id := root.sessionID(t)

	resumed := f.ask("two", "--resume", id)
	check(t, "resume without --model", initModel(t, resumed), "claude-haiku-5-5")
	branch := f.ask("three", "--resume", id, "--fork-session")
	check(t, "fork without --model", initModel(t, branch), "claude-haiku-5-5")
	s, err := LoadSession(f.config, f.cwd, branch.sessionID(t))
	must(t, err)
	check(t, "branch's recorded model", s.Model, "claude-haiku-5-5")

	switched := f.ask("four", "--resume", id, "--model", "sonnet")
	check(t, "resume with --model", initModel(t, switched), "claude-sonnet-5-5")
	again := f.ask("five", "--resume", id)
	check(t, "resume after a switch keeps the last model", initModel(t, again), "claude-sonnet-5-5")
	back := f.ask("six", "--resume", id, "--model", "default")
	check(t, "--model default", initModel(t, back), defaultModel)
	check(t, "a new session", initModel(t, f.ask("seven")), defaultModel)
}

// TestBudgetPerCall: --max-budget-usd is compared with what this call spent,
// from $0 even on a resumed session, after each API request (one per tool
// call, one for the answer); going over ends the call with
// error_max_budget_usd, budget_exhausted, is_error and exit 1, having spent
// up to that request, while total_cost_usd stays the session lineage's.
func TestBudgetPerCall(t *testing.T) {
	const tools = "tools: [{name: Bash, input: {command: a}, result: a}, {name: Bash, input: {command: b}, result: b}, {name: Bash, input: {command: c}, result: c}]"
	f := newFake(t, "replies:\n  - {match: '^start', text: ok, cost: 0.064}\n  - {match: '^loop', text: done, cost: 0.104, repeat: true, "+tools+"}\n")
	id := f.ask("start").sessionID(t)

	// Four requests of $0.026: the cap is this call's, not the session's
	// $0.064 plus it, so $0.1 lets the whole call run.
	out := f.ask("loop", "--resume", id, "--max-budget-usd", "0.11")
	check(t, "under the cap", out.result(t)["subtype"], "success")
	near(t, "cumulative total", out.result(t)["total_cost_usd"], 0.168)

	// $0.036: the first request ($0.026) is under it, the second ($0.052)
	// over: the call stops there, its second tool call without a result.
	out = f.ask("loop", "--resume", id, "--max-budget-usd", "0.036")
	res := out.result(t)
	check(t, "exit", out.code, 1)
	check(t, "subtype", res["subtype"], "error_max_budget_usd")
	check(t, "terminal reason", res["terminal_reason"], "budget_exhausted")
	check(t, "is_error", res["is_error"], true)
	check(t, "errors", res["errors"], []any{"Reached maximum budget ($0.036)"})
	check(t, "stop reason", res["stop_reason"], "tool_use")
	check(t, "turns", res["num_turns"], float64(2))
	check(t, "lines", out.kinds(t), []string{"system/init", "assistant", "user", "assistant", "result/error_max_budget_usd"})
	near(t, "this call's spend", costOf(t, res["model_usage_since_last_result"]), 0.052)
	near(t, "cumulative total", res["total_cost_usd"], 0.168+0.052)

	// A cap under the first request stops after it, at its full cost.
	out = f.ask("loop", "--resume", id, "--max-budget-usd", "0.001")
	near(t, "one request", costOf(t, out.result(t)["model_usage_since_last_result"]), 0.026)
	check(t, "one tool call", out.kinds(t), []string{"system/init", "assistant", "result/error_max_budget_usd"})
}
