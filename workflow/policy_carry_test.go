package workflow

import (
	"reflect"
	"strings"
	"testing"

	"raymond/parsing"
)

// Policy entries for the tags of issue 11, and the attributes an entry
// carries rather than compares (§6.5).

func TestRulesOfNewTags(t *testing.T) {
	const fm = "---\nallowed_transitions:\n"
	tests := []struct {
		name  string
		entry string
		want  Rule
	}{
		{"call-workflow", "{tag: call-workflow, target: ../lib/review/, return: SUM}",
			Rule{Tag: "call-workflow", Target: "../lib/review/", Return: "SUM"}},
		{"function-workflow carries input and cd", `{tag: function-workflow, target: ' ..\lib\x.zip ', return: R, input: "{{input}}", cd: sub}`,
			Rule{Tag: "function-workflow", Target: `..\lib\x.zip`, Return: "R",
				Attrs: []parsing.Attr{{Key: "input", Value: "{{input}}"}, {Key: "cd", Value: "sub"}}}},
		{"fork-workflow carries task and variables", "{tag: fork-workflow, target: ../w, next: J, task: inherit, item: a}",
			Rule{Tag: "fork-workflow", Target: "../w", Next: "J",
				Attrs: []parsing.Attr{{Key: "task", Value: "inherit"}, {Key: "item", Value: "a"}}}},
		{"fork carries a task variable", "{tag: fork, target: W, next: J, task: refactor, cd: ..}",
			Rule{Tag: "fork", Target: "W", Next: "J",
				Attrs: []parsing.Attr{{Key: "task", Value: "refactor"}, {Key: "cd", Value: ".."}}}},
		{"reset-workflow", "{tag: reset-workflow, target: /abs/flow.yaml, task: new}",
			Rule{Tag: "reset-workflow", Target: "/abs/flow.yaml", Attrs: []parsing.Attr{{Key: "task", Value: "new"}}}},
		{"reset carries task", "{tag: reset, target: A, task: new, input: x}",
			Rule{Tag: "reset", Target: "A", Attrs: []parsing.Attr{{Key: "task", Value: "new"}, {Key: "input", Value: "x"}}}},
		{"ask", "{tag: ask, next: ANSWERED, timeout: 48h, timeout_next: ' LATE '}",
			Rule{Tag: "ask", Next: "ANSWERED", TimeoutNext: "LATE", Attrs: []parsing.Attr{{Key: "timeout", Value: "48h"}}}},
		{"ask timeout in seconds", "{tag: ask, timeout: 3600}",
			Rule{Tag: "ask", Attrs: []parsing.Attr{{Key: "timeout", Value: "3600"}}}},
		{"goto carries input", "{tag: goto, target: A, input: hi}",
			Rule{Tag: "goto", Target: "A", Attrs: []parsing.Attr{{Key: "input", Value: "hi"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseState("X.md", []byte(fm+"  - "+tt.entry+"\n---\n"))
			must(t, err)
			if len(st.Policy.Rules) != 1 || !reflect.DeepEqual(st.Policy.Rules[0], tt.want) {
				t.Errorf("rules = %+v, want %+v", st.Policy.Rules, tt.want)
			}
		})
	}
}

func TestRuleErrorsOfNewTags(t *testing.T) {
	const fm = "---\nallowed_transitions:\n"
	tests := []struct {
		name, entry, want string
	}{
		{"cd on call-workflow", "{tag: call-workflow, target: ../x, cd: sub}",
			"X.md:3: allowed_transitions entry 1: cd is not allowed on <call-workflow>: its first step branches the caller's session"},
		{"cd on goto", "{tag: goto, target: A, cd: sub}",
			"X.md:3: allowed_transitions entry 1: cd is only allowed on <reset>, <fork>, <function-workflow>, <fork-workflow> and <reset-workflow>, not on <goto>"},
		{"input on ask", "{tag: ask, next: ANS, input: x}",
			"X.md:3: allowed_transitions entry 1: <ask> takes no input"},
		{"task inherit on reset", "{tag: reset, target: A, task: inherit}",
			`X.md:3: allowed_transitions entry 1: task="inherit" is not allowed on <reset>: it takes only task="new"`},
		{"task on call", "{tag: call, target: A, return: B, task: new}",
			"X.md:3: allowed_transitions entry 1: task is only allowed on <reset>, <fork>, <fork-workflow> and <reset-workflow>, not on <call>"},
		{"timeout on goto", "{tag: goto, target: A, timeout: 1h}",
			"X.md:3: allowed_transitions entry 1: timeout is only allowed on <ask>, not on <goto>"},
		{"bad timeout", "{tag: ask, next: ANS, timeout: soon}",
			`X.md:3: allowed_transitions entry 1: the timeout of <ask> is wrong: "soon" is not a duration`},
		{"reserved fork variable", "{tag: fork-workflow, target: ../x, next: J, agent_id: x}",
			"X.md:3: allowed_transitions entry 1: agent_id is a reserved name ({{agent_id}} is set by raymond), so a <fork-workflow> cannot set it"},
		{"variable on reset-workflow", "{tag: reset-workflow, target: ../x, item: a}",
			`X.md:3: allowed_transitions entry 1: unknown key "item" (want tag, target, return, next or payload)`},
		{"target on ask", "{tag: ask, target: A}", "X.md:3: allowed_transitions entry 1: target does not apply to ask"},
		{"timeout_next on fork", "{tag: fork, target: W, timeout_next: A}", "X.md:3: allowed_transitions entry 1: timeout_next does not apply to fork"},
		{"empty specifier", "{tag: call-workflow, target: ' ', return: R}", "X.md:3: allowed_transitions entry 1: invalid target: workflow specifier is empty"},
		{"unsafe timeout_next", "{tag: ask, next: ANS, timeout_next: ../L}", `X.md:3: allowed_transitions entry 1: invalid timeout_next: target "../L" contains "/"`},
		{"tag not a string", "{tag: yes}", "X.md:3: allowed_transitions entry 1: tag must be a string, not a boolean (quote it)"},
		{"force_implicit on an ask", "{tag: ask, next: ANS}\nforce_implicit: true", "X.md:4: force_implicit needs exactly one allowed transition that fixes everything"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := ParseState("X.md", []byte(fm+"  - "+tt.entry+"\n---\n"))
			if err == nil {
				t.Fatalf("got %+v, want error %q", st, tt.want)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error\n %q\nwant prefix\n %q", err, tt.want)
			}
		})
	}
}

func TestAllowsNewTags(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		tag  parsing.Tag
		want bool
	}{
		{"ask, next", Rule{Tag: "ask", Next: "N"}, tag("ask", "", "next", "N.md"), true},
		{"ask, other next", Rule{Tag: "ask", Next: "N"}, tag("ask", "", "next", "M.md"), false},
		{"ask, timeout_next", Rule{Tag: "ask", TimeoutNext: "L"}, tag("ask", "", "next", "N.md", "timeout", "1h", "timeout_next", "L.md"), true},
		{"ask, timeout_next missing", Rule{Tag: "ask", TimeoutNext: "L"}, tag("ask", "", "next", "N.md"), false},
		{"ask, timeout not compared", Rule{Tag: "ask", Attrs: []parsing.Attr{{Key: "timeout", Value: "1h"}}},
			tag("ask", "", "next", "N.md", "timeout", "2h"), true},
		{"call is not call-workflow", Rule{Tag: "call"}, tag("call-workflow", "../x", "return", "R.md"), false},
		{"call-workflow, return", Rule{Tag: "call-workflow", Return: "R"}, tag("call-workflow", "1_START.md", "return", "R.md"), true},
		{"fork-workflow, carried not compared", Rule{Tag: "fork-workflow", Next: "J", Attrs: []parsing.Attr{{Key: "item", Value: "a"}}},
			tag("fork-workflow", "START.md", "next", "J.md", "item", "b"), true},
		{"cross-workflow target as text without a resolver", Rule{Tag: "reset-workflow", Target: "../x"}, tag("reset-workflow", "../x"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (Policy{Rules: []Rule{tt.rule}}).Allows(tt.tag); got != tt.want {
				t.Errorf("Allows(%+v) = %v, want %v", tt.tag, got, tt.want)
			}
		})
	}
}

func TestImplicitCarries(t *testing.T) {
	in := parsing.Attr{Key: "input", Value: "{{input}}"}
	cd := parsing.Attr{Key: "cd", Value: "sub"}
	newTask := parsing.Attr{Key: "task", Value: "new"}
	item := parsing.Attr{Key: "item", Value: "a"}
	tests := []struct {
		name string
		rule Rule
		want parsing.Tag
		ok   bool
	}{
		{"goto with input", Rule{Tag: "goto", Target: "A", Attrs: []parsing.Attr{in}},
			parsing.Tag{Name: "goto", Target: "A", Attrs: []parsing.Attr{in}}, true},
		{"reset with cd and task", Rule{Tag: "reset", Target: "A", Attrs: []parsing.Attr{cd, newTask}},
			parsing.Tag{Name: "reset", Target: "A", Attrs: []parsing.Attr{cd, newTask}}, true},
		{"fork with variables", Rule{Tag: "fork", Target: "W", Next: "J", Attrs: []parsing.Attr{item, in}},
			parsing.Tag{Name: "fork", Target: "W", Attrs: []parsing.Attr{{Key: "next", Value: "J"}, item, in}}, true},
		{"call-workflow", Rule{Tag: "call-workflow", Target: "../lib", Return: "R", Attrs: []parsing.Attr{in}},
			parsing.Tag{Name: "call-workflow", Target: "../lib", Attrs: []parsing.Attr{{Key: "return", Value: "R"}, in}}, true},
		{"call-workflow without return", Rule{Tag: "call-workflow", Target: "../lib"}, parsing.Tag{}, false},
		{"function-workflow", Rule{Tag: "function-workflow", Target: "../lib", Return: "R", Attrs: []parsing.Attr{cd}},
			parsing.Tag{Name: "function-workflow", Target: "../lib", Attrs: []parsing.Attr{{Key: "return", Value: "R"}, cd}}, true},
		{"fork-workflow", Rule{Tag: "fork-workflow", Target: "../w", Next: "J", Attrs: []parsing.Attr{newTask, item}},
			parsing.Tag{Name: "fork-workflow", Target: "../w", Attrs: []parsing.Attr{{Key: "next", Value: "J"}, newTask, item}}, true},
		{"fork-workflow without next", Rule{Tag: "fork-workflow", Target: "../w"}, parsing.Tag{}, false},
		{"reset-workflow", Rule{Tag: "reset-workflow", Target: "../w", Attrs: []parsing.Attr{newTask}},
			parsing.Tag{Name: "reset-workflow", Target: "../w", Attrs: []parsing.Attr{newTask}}, true},
		{"reset-workflow without target", Rule{Tag: "reset-workflow"}, parsing.Tag{}, false},
		{"an ask is never implicit", Rule{Tag: "ask", Next: "N", TimeoutNext: "L", Attrs: []parsing.Attr{{Key: "timeout", Value: "1h"}}},
			parsing.Tag{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Policy{Rules: []Rule{tt.rule}}.Implicit()
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Implicit() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestAcceptedWritesCarriedAttributes(t *testing.T) {
	p := Policy{Rules: []Rule{
		{Tag: "fork", Target: "W.md", Next: "J.md", Attrs: []parsing.Attr{{Key: "item", Value: `a"b`}, {Key: "task", Value: "inherit"}}},
		{Tag: "reset", Target: "A.md", Attrs: []parsing.Attr{{Key: "cd", Value: ".."}, {Key: "task", Value: "new"}}},
		{Tag: "ask", Next: "N.md", TimeoutNext: "L.md", Attrs: []parsing.Attr{{Key: "timeout", Value: "48h"}}},
		{Tag: "ask"},
		{Tag: "call-workflow", Target: "../lib/review", Return: "SUM.md", Attrs: []parsing.Attr{{Key: "input", Value: "{{input}}"}}},
		{Tag: "fork-workflow", Target: "../w"},
		{Tag: "reset-workflow"},
	}}
	want := []string{
		`<fork next="J.md" item="a&quot;b" task="inherit">W.md</fork>`,
		`<reset cd=".." task="new">A.md</reset>`,
		`<ask next="N.md" timeout_next="L.md" timeout="48h">…</ask>`,
		`<ask next="…">…</ask>`,
		`<call-workflow return="SUM.md" input="{{input}}">../lib/review</call-workflow>`,
		`<fork-workflow next="…">../w</fork-workflow>`,
		`<reset-workflow>…</reset-workflow>`,
	}
	if got := p.Accepted(); !reflect.DeepEqual(got, want) {
		t.Errorf("Accepted() =\n %q\nwant\n %q", got, want)
	}
	r := Reminder(errWrong, Policy{Rules: []Rule{{Tag: "fork-workflow", Target: "../w", Next: "J"}}})
	if !strings.HasSuffix(r, "or with several <fork> tags to start several agents.\n") {
		t.Errorf("a fork-workflow rule does not mention fan-out:\n%s", r)
	}
}

// errWrong is any reason for a reminder.
var errWrong = parsing.ValidTarget("")
