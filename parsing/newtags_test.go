package parsing

import (
	"reflect"
	"testing"
	"time"
)

// The tags of issue 11: ask (§15), the cross-workflow tags (§14) and task
// (§16).

func TestParseAskAndWorkflowTags(t *testing.T) {
	ask := func(question, raw string, attrs ...Attr) Tag {
		return Tag{Name: Ask, Payload: question, Raw: raw, Attrs: attrs}
	}
	tests := []struct {
		name string
		in   string
		want Tag
	}{
		{"call-workflow", `<call-workflow return="SUM">../lib/review</call-workflow>`,
			tg(CallWorkflow, "../lib/review", `<call-workflow return="SUM">../lib/review</call-workflow>`, at("return", "SUM"))},
		{"specifier trimmed, separators kept", "<function-workflow return=' R ' cd=\"sub\">\n ..\\lib\\review\\ \n</function-workflow>",
			tg(FunctionWorkflow, `..\lib\review\`, "<function-workflow return=' R ' cd=\"sub\">\n ..\\lib\\review\\ \n</function-workflow>",
				at("return", "R"), at("cd", "sub"))},
		{"absolute specifier with a state", `<function-workflow return="R" input="x">/wf/lib.zip/CHECK</function-workflow>`,
			tg(FunctionWorkflow, "/wf/lib.zip/CHECK", `<function-workflow return="R" input="x">/wf/lib.zip/CHECK</function-workflow>`,
				at("return", "R"), at("input", "x"))},
		{"reset-workflow", `<reset-workflow task="new" cd=".." input="i">~/flows/x.yaml</reset-workflow>`,
			tg(ResetWorkflow, "~/flows/x.yaml", `<reset-workflow task="new" cd=".." input="i">~/flows/x.yaml</reset-workflow>`,
				at("task", "new"), at("cd", ".."), at("input", "i"))},
		{"reset task=new", `<reset task="new">A</reset>`, tg(Reset, "A", `<reset task="new">A</reset>`, at("task", "new"))},
		{"ask", "<ask next=\" ANSWERED \" timeout=\"48h\" timeout_next='LATE'>\n Ship it? \n</ask>",
			ask("Ship it?", "<ask next=\" ANSWERED \" timeout=\"48h\" timeout_next='LATE'>\n Ship it? \n</ask>",
				at("next", "ANSWERED"), at("timeout", "48h"), at("timeout_next", "LATE"))},
		{"ask with attachments", `<ask next="N" upload_1="a.png" display_files="b">Which?</ask>`,
			ask("Which?", `<ask next="N" upload_1="a.png" display_files="b">Which?</ask>`,
				at("next", "N"), at("upload_1", "a.png"), at("display_files", "b"))},
		{"a tag inside a question", "<ask next=\"N\">May I <goto>END</goto>?</ask>",
			ask("May I <goto>END</goto>?", "<ask next=\"N\">May I <goto>END</goto>?</ask>", at("next", "N"))},
		{"longer names are not tags", "<call-workflows>x</call-workflows><asks>y</asks><goto-workflow>z</goto-workflow><call>A</call>",
			Tag{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse(tt.in)
			if tt.want.Name == "" {
				requireKind(t, err, MissingAttr, "")
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			requireSameTag(t, tt.in, tt.want, tr.Tag)
			if len(tr.Forks) != 0 {
				t.Errorf("forks %+v", tr.Forks)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{`<ask next="N">Q</ask>`, nil},
		{`<ask next="N" timeout="1h" timeout_next="L">Q</ask>`, nil},
		{`<ask next="N" timeout_next="L">Q</ask>`,
			[]string{"<ask> timeout_next ignored: without a timeout the ask waits until it is answered"}},
		{`<ask next="N" upload_a="x" display_files="y">Q</ask>`, []string{
			"<ask> attribute upload_a ignored: an ask is text only for now",
			"<ask> attribute display_files ignored: an ask is text only for now"}},
		{`<goto>N</goto>`, nil},
	}
	for _, tt := range tests {
		tr, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		if !reflect.DeepEqual(tr.Warnings, tt.want) {
			t.Errorf("%s: Warnings = %q, want %q", tt.in, tr.Warnings, tt.want)
		}
	}
}

func TestParseFanOutWithWorkflows(t *testing.T) {
	const (
		fw = `<fork-workflow next="JOIN" item="a" task="inherit">../review</fork-workflow>`
		fk = `<fork next="JOIN.md" task="refactor">W</fork>`
		fg = `<fork-workflow cd="sub">../review/CHECK</fork-workflow>`
	)
	forkWf := tg(ForkWorkflow, "../review", fw, at("next", "JOIN"), at("item", "a"), at("task", "inherit"))
	fork := tg(Fork, "W", fk, at("next", "JOIN.md"), at("task", "refactor"))
	plainWf := tg(ForkWorkflow, "../review/CHECK", fg, at("cd", "sub"))
	tests := []struct {
		name  string
		in    string
		tag   Tag
		forks []Tag
	}{
		{"single fork-workflow with next", fw, forkWf, []Tag{forkWf}},
		{"mixed with a common next", fw + fk, Tag{Name: Goto, Target: "JOIN", Raw: fw}, []Tag{forkWf, fork}},
		{"fork-workflow and goto", fg + "<goto>MAIN</goto>", tg(Goto, "MAIN", "<goto>MAIN</goto>"), []Tag{plainWf}},
		{"mixed with a goto", `<fork>W</fork>` + fg + "<goto>MAIN</goto>", tg(Goto, "MAIN", "<goto>MAIN</goto>"),
			[]Tag{tg(Fork, "W", `<fork>W</fork>`), plainWf}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			requireSameTag(t, tt.in, tt.tag, tr.Tag)
			if len(tr.Forks) != len(tt.forks) {
				t.Fatalf("got %d forks, want %d", len(tr.Forks), len(tt.forks))
			}
			for i := range tt.forks {
				requireSameTag(t, tt.in, tt.forks[i], tr.Forks[i])
			}
		})
	}
}

func TestVarsOfForks(t *testing.T) {
	tests := []struct {
		tag  Tag
		want map[string]string
	}{
		{tg(ForkWorkflow, "x", "", at("next", "J"), at("cd", "d"), at("input", "i"), at("task", "new"), at("item", "a")),
			map[string]string{"item": "a"}},
		{tg(ForkWorkflow, "x", "", at("task", "inherit")), nil},
		{tg(Fork, "x", "", at("task", "refactor")), map[string]string{"task": "refactor"}},
		{tg(ForkWorkflow, "x", "", at("task", "New"), at("return", "r")), map[string]string{"task": "New", "return": "r"}},
		{tg(CallWorkflow, "x", "", at("return", "R"), at("input", "i")), nil},
		{tg(Reset, "x", "", at("task", "new")), nil},
	}
	for _, tt := range tests {
		if got := tt.tag.Vars(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Vars(%v) = %v, want %v", tt.tag.Attrs, got, tt.want)
		}
	}
}

func TestParseNewTagErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind ErrorKind
		msg  string
	}{
		// Cross-workflow tags.
		{"empty specifier", "<call-workflow return=\"R\"> \n</call-workflow>", EmptyTarget,
			`<call-workflow return="R">  </call-workflow> names no workflow; put a workflow specifier (like ../review or ../review/CHECK) between <call-workflow> and </call-workflow>`},
		{"NUL in a specifier", "<reset-workflow>../a\x00b</reset-workflow>", UnsafeTarget,
			`the workflow specifier "../a\x00b" of <reset-workflow>../a\x00b</reset-workflow> contains a NUL byte`},
		{"invalid UTF-8 in a specifier", "<reset-workflow>../a\xffb</reset-workflow>", UnsafeTarget,
			"the workflow specifier \"../a\\xffb\" of <reset-workflow>../a\xffb</reset-workflow> is not valid UTF-8"},
		{"call-workflow without return", `<call-workflow>../x</call-workflow>`, MissingAttr,
			`<call-workflow> needs a return attribute naming the state to continue at when it returns, as in <call-workflow return="NEXT">../x</call-workflow>`},
		{"function-workflow without return", `<function-workflow cd="a">../x</function-workflow>`, MissingAttr,
			`<function-workflow> needs a return attribute naming the state to continue at when it returns, as in <function-workflow return="NEXT">../x</function-workflow>`},
		{"cd on call-workflow", `<call-workflow return="R" cd="sub">../x</call-workflow>`, Malformed,
			"cd is not allowed on <call-workflow>: its first step branches the caller's session, which must run in the folder where it was made; use <function-workflow> to start in another folder"},
		{"next on call-workflow", `<call-workflow return="R" next="N">../x</call-workflow>`, Malformed,
			"next is only allowed on <fork>, <ask> and <fork-workflow>, not on <call-workflow>"},
		{"variable on reset-workflow", `<reset-workflow item="a">../x</reset-workflow>`, Malformed,
			"<reset-workflow> has no attribute item; it takes only input, cd and task"},
		{"unsafe return of call-workflow", `<call-workflow return="../R">../x</call-workflow>`, UnsafeTarget,
			`return="../R" in <call-workflow return="../R">../x</call-workflow> contains "/", but it must be the bare name of a file in the workflow folder`},
		{"unsafe next of fork-workflow", `<fork-workflow next="a/J">../x</fork-workflow>`, UnsafeTarget,
			`next="a/J" in <fork-workflow next="a/J">../x</fork-workflow> contains "/", but it must be the bare name of a file in the workflow folder`},
		{"fork-workflow sets run_id", `<fork-workflow next="J" run_id="x">../x</fork-workflow>`, Malformed,
			"run_id is a reserved name ({{run_id}} is set by raymond), so a <fork-workflow> cannot set it; give the variable another name"},
		{"NUL in a fork-workflow variable", "<fork-workflow next=\"J\" item=\"\x00\">../x</fork-workflow>", Malformed,
			"the item attribute of <fork-workflow> holds a NUL byte, which cannot be passed on to a prompt; write it without one"},

		// Multi-fork with fork-workflow.
		{"lone fork-workflow", `<fork-workflow>../x</fork-workflow>`, MultiForkMismatch,
			`a <fork-workflow> without next must be accompanied by one <goto> saying where this agent continues (or give every <fork-workflow> next="STATE")`},
		{"mixed, different next", `<fork next="A">W</fork><fork-workflow next="B">../x</fork-workflow>`, MultiForkMismatch,
			`every fork must name the same next, but they name "A" and "B"`},
		{"mixed, some with next", `<fork-workflow next="A">../x</fork-workflow><fork>W</fork><goto>A</goto>`, MultiForkMismatch,
			"either every fork names the same next or none does, but 1 of 2 forks do"},
		{"fork-workflow with call-workflow", `<fork-workflow>../x</fork-workflow><call-workflow return="R">../y</call-workflow>`, MultiForkMismatch,
			`a <fork-workflow> without next may only be accompanied by exactly one <goto>, but the answer has <call-workflow return="R">../y</call-workflow>`},
		{"fork-workflow with next and ask", `<fork-workflow next="A">../x</fork-workflow><ask next="A">Q</ask>`, MultiForkMismatch,
			`a <fork-workflow> that names next must be the only kind of transition tag, but the answer also has <ask next="A">Q</ask>`},

		// Ask.
		{"ask without next", `<ask timeout="1h">Ship it?</ask>`, MissingAttr,
			`<ask> needs a next attribute naming the state to continue at once answered, as in <ask next="NEXT">Ship it?</ask>`},
		{"empty question", `<ask next="N">  </ask>`, Malformed,
			`<ask next="N">  </ask> has no question; put the question for the person between <ask …> and </ask>`},
		{"cd on ask", `<ask next="N" cd="x">Q</ask>`, Malformed, "<ask> takes no cd: the agent waits for the answer where it is"},
		{"input on ask", `<ask next="N" input="x">Q</ask>`, Malformed, "<ask> takes no input: the answer becomes {{input}} of the next state"},
		{"task on ask", `<ask next="N" task="new">Q</ask>`, Malformed, "<ask> takes no task: the agent keeps its task folder"},
		{"unknown on ask", `<ask next="N" to="bob">Q</ask>`, Malformed, "<ask> has no attribute to; it takes only next, timeout and timeout_next"},
		{"bad timeout", `<ask next="N" timeout="soon">Q</ask>`, Malformed,
			`the timeout of <ask> is wrong: "soon" is not a duration; write one like 90m, 48h or 7d, or a number of seconds`},
		{"zero timeout", `<ask next="N" timeout="0">Q</ask>`, Malformed, `the timeout of <ask> is wrong: "0" must be longer than zero`},
		{"unsafe timeout_next", `<ask next="N" timeout="1h" timeout_next="../L">Q</ask>`, UnsafeTarget,
			`timeout_next="../L" in <ask next="N" timeout="1h" timeout_next="../L">Q</ask> contains "/", but it must be the bare name of a file in the workflow folder`},
		{"empty next", `<ask next=" ">Q</ask>`, EmptyTarget, `the next attribute of <ask next=" ">Q</ask> is empty; it must name a state`},
		{"NUL in a question", "<ask next=\"N\">Q\x00</ask>", Malformed,
			"the question of <ask> holds a NUL byte, which cannot be passed on to a prompt; write it without one"},
		{"two asks", `<ask next="N">A</ask><ask next="N">B</ask>`, SeveralTags,
			`expected exactly one transition tag, but found 2: <ask next="N">A</ask>, <ask next="N">B</ask>`},
		{"input on result names ask", `<result input="x">P</result>`, Malformed,
			"input is allowed on every tag but <result> and <ask>, not on <result>"},

		// task.
		{"task on goto", `<goto task="new">N</goto>`, Malformed,
			"task is only allowed on <reset>, <fork>, <fork-workflow> and <reset-workflow>, not on <goto>"},
		{"task on call-workflow", `<call-workflow return="R" task="new">../x</call-workflow>`, Malformed,
			"task is only allowed on <reset>, <fork>, <fork-workflow> and <reset-workflow>, not on <call-workflow>"},
		{"inherit on reset", `<reset task="inherit">N</reset>`, Malformed,
			`task="inherit" is not allowed on <reset>: it takes only task="new", for a fresh task folder`},
		{"other task on reset-workflow", `<reset-workflow task="x">../x</reset-workflow>`, Malformed,
			`task="x" is not allowed on <reset-workflow>: it takes only task="new", for a fresh task folder`},
		{"timeout on goto", `<goto timeout="1h">N</goto>`, Malformed, "timeout is only allowed on <ask>, not on <goto>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse(tt.in)
			if !reflect.DeepEqual(tr, Transition{}) {
				t.Errorf("got a transition %+v beside the error", tr)
			}
			requireKind(t, err, tt.kind, tt.msg)
		})
	}
}

func TestStateAttrAllTags(t *testing.T) {
	yes := map[string][]string{
		"return":       {Call, Function, CallWorkflow, FunctionWorkflow},
		"next":         {Fork, ForkWorkflow, Ask},
		"timeout_next": {Ask},
	}
	for _, key := range []string{"return", "next", "timeout_next", "input", "cd", "task", "timeout"} {
		for _, name := range Names {
			want := false
			for _, n := range yes[key] {
				want = want || n == name
			}
			if got := StateAttr(name, key); got != want {
				t.Errorf("StateAttr(%s, %s) = %v, want %v", name, key, got, want)
			}
		}
	}
}

func TestCheckAttr(t *testing.T) {
	tests := []struct {
		name, key, value string
		msg              string
	}{
		{Fork, "item", "a", ""},
		{Fork, "task", "anything", ""},
		{ForkWorkflow, "cd", "x", ""},
		{Reset, "task", "new", ""},
		{Ask, "timeout", "7d", ""},
		{Ask, "upload_x", "f", ""},
		{Reset, "task", "inherit", `task="inherit" is not allowed on <reset>: it takes only task="new", for a fresh task folder`},
		{Ask, "timeout", "x", `the timeout of <ask> is wrong: "x" is not a duration; write one like 90m, 48h or 7d, or a number of seconds`},
		{Goto, "cd", "x", "cd is only allowed on <reset>, <fork>, <function-workflow>, <fork-workflow> and <reset-workflow>, not on <goto>"},
		// A name a script's environment keeps is a template variable like
		// any other; only the script runner leaves it out (protocol §11.3).
		{Fork, "PATH", "x", ""},
		{Fork, "RAYMOND_RUN_ID", "x", ""},
		{Goto, "input", "a\x00", "the input attribute of <goto> holds a NUL byte, which cannot be passed on to a prompt; write it without one"},
		{"jump", "input", "x", `"jump" is not a transition tag`},
	}
	for _, tt := range tests {
		err := CheckAttr(tt.name, tt.key, tt.value)
		switch {
		case tt.msg == "" && err != nil:
			t.Errorf("CheckAttr(%s, %s, %q): %v", tt.name, tt.key, tt.value, err)
		case tt.msg != "":
			requireKind(t, err, Malformed, tt.msg)
		}
	}
}

func TestParseTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		err  string
	}{
		{"90m", 90 * time.Minute, ""},
		{"48h", 48 * time.Hour, ""},
		{"7d", 7 * 24 * time.Hour, ""},
		{"1.5d", 36 * time.Hour, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"3600", time.Hour, ""},
		{" 45s ", 45 * time.Second, ""},
		{"0.5", 500 * time.Millisecond, ""},
		{"", 0, `"" is not a duration; write one like 90m, 48h or 7d, or a number of seconds`},
		{"d", 0, `"d" is not a duration; write one like 90m, 48h or 7d, or a number of seconds`},
		{"7 d", 0, `"7 d" is not a duration; write one like 90m, 48h or 7d, or a number of seconds`},
		{"-5m", 0, `"-5m" must be longer than zero`},
		{"0s", 0, `"0s" must be longer than zero`},
		{"99999999999d", 0, `"99999999999d" is not a duration; write one like 90m, 48h or 7d, or a number of seconds`},
	}
	for _, tt := range tests {
		got, err := ParseTimeout(tt.in)
		switch {
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("ParseTimeout(%q) error = %v, want %q", tt.in, err, tt.err)
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseTimeout(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
