package parsing

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// tg builds an expected tag; Offset is checked separately, against the text.
func tg(name, body, raw string, attrs ...Attr) Tag {
	t := Tag{Name: name, Raw: raw, Attrs: attrs}
	if name == Result {
		t.Payload = body
	} else {
		t.Target = body
	}
	return t
}

func at(key, value string) Attr { return Attr{Key: key, Value: value} }

// requireSameTag compares everything but Offset, and checks that Offset and
// Raw point at the same bytes of text.
func requireSameTag(t *testing.T, text string, want, got Tag) {
	t.Helper()
	gotOffset := got.Offset
	got.Offset = 0
	if len(got.Attrs) == 0 {
		got.Attrs = nil
	}
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("tag:\n got %+v\nwant %+v", got, want)
	}
	if end := gotOffset + len(got.Raw); gotOffset < 0 || end > len(text) || text[gotOffset:end] != got.Raw {
		t.Fatalf("Offset %d and Raw %q disagree with the text", gotOffset, got.Raw)
	}
}

// requireKind checks that err is an *Error of the given kind and message.
func requireKind(t *testing.T, err error, kind ErrorKind, msg string) *Error {
	t.Helper()
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if perr.Kind != kind {
		t.Errorf("kind = %v, want %v (message %q)", perr.Kind, kind, perr.Msg)
	}
	if msg != "" && perr.Msg != msg {
		t.Errorf("message:\n got %q\nwant %q", perr.Msg, msg)
	}
	return perr
}

func TestParseSingle(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Tag
	}{
		{"goto", "<goto>NEXT</goto>", tg(Goto, "NEXT", "<goto>NEXT</goto>")},
		{"goto with extension", "Done.\n<goto>REVIEW.md</goto>\n", tg(Goto, "REVIEW.md", "<goto>REVIEW.md</goto>")},
		{"tag in the middle of the text", "First.\n<goto>NEXT</goto>\nThen more prose.\n", tg(Goto, "NEXT", "<goto>NEXT</goto>")},
		{"tag at the very start", "<reset>A</reset> and prose", tg(Reset, "A", "<reset>A</reset>")},
		{"target trimmed", "<goto>\n  NEXT  \n</goto>", tg(Goto, "NEXT", "<goto>\n  NEXT  \n</goto>")},
		{"crlf", "text\r\n<goto>\r\nNEXT\r\n</goto>\r\n", tg(Goto, "NEXT", "<goto>\r\nNEXT\r\n</goto>")},
		{"crlf in closing tag", "<goto>NEXT</goto\r\n>", tg(Goto, "NEXT", "<goto>NEXT</goto\r\n>")},
		{"unicode target", "<goto>RÉSUMÉ_日本</goto>", tg(Goto, "RÉSUMÉ_日本", "<goto>RÉSUMÉ_日本</goto>")},
		{"space in target", "<goto>MY STATE</goto>", tg(Goto, "MY STATE", "<goto>MY STATE</goto>")},
		{"reset with cd and input", `<reset cd="../repo" input="go">BUILD</reset>`,
			tg(Reset, "BUILD", `<reset cd="../repo" input="go">BUILD</reset>`, at("cd", "../repo"), at("input", "go"))},
		{"call", `<call return="SUM">RESEARCH</call>`,
			tg(Call, "RESEARCH", `<call return="SUM">RESEARCH</call>`, at("return", "SUM"))},
		{"function with input", `<function input='x' return='SUM.md'>F</function>`,
			tg(Function, "F", `<function input='x' return='SUM.md'>F</function>`, at("input", "x"), at("return", "SUM.md"))},
		{"return trimmed", `<call return=" SUM ">R</call>`, tg(Call, "R", `<call return=" SUM ">R</call>`, at("return", "SUM"))},
		{"input not trimmed", `<goto input=" a ">N</goto>`, tg(Goto, "N", `<goto input=" a ">N</goto>`, at("input", " a "))},
		{"result", "<result>done</result>", tg(Result, "done", "<result>done</result>")},
		{"empty result", "<result></result>", tg(Result, "", "<result></result>")},
		{"result payload verbatim", "<result>\n  a &amp; b\n\n  c  \n</result>", tg(Result, "a &amp; b\n\n  c", "<result>\n  a &amp; b\n\n  c  \n</result>")},
		{"result holds other tags", "<result>use <goto>X</goto> or <reset>Y</reset></result>",
			tg(Result, "use <goto>X</goto> or <reset>Y</reset>", "<result>use <goto>X</goto> or <reset>Y</reset></result>")},
		{"result holds unclosed tags", "<result><goto>X</result>", tg(Result, "<goto>X", "<result><goto>X</result>")},
		{"result holds a fence", "<result>\n```go\nx := 1\n```\n</result>", tg(Result, "```go\nx := 1\n```", "<result>\n```go\nx := 1\n```\n</result>")},
		{"unicode payload", "<result>naïve 🚀 «ok»</result>", tg(Result, "naïve 🚀 «ok»", "<result>naïve 🚀 «ok»</result>")},
		{"prefix names are not tags", "<results>x</results><forked>y</forked><gotoX>z</gotoX><goto>N</goto>", tg(Goto, "N", "<goto>N</goto>")},
		{"print does not count", "<print>hi</print><goto>N</goto><print>bye</print>", tg(Goto, "N", "<goto>N</goto>")},
		{"prose that starts like a tag", "I will use a <goto tag now.\n<goto>N</goto>", tg(Goto, "N", "<goto>N</goto>")},
		{"unclosed ignored beside a tag", "<reset>A\n<goto>N</goto>", tg(Goto, "N", "<goto>N</goto>")},
		{"quoted example ignored", "Write `<reset>X</reset>` to restart.\n<goto>N</goto>", tg(Goto, "N", "<goto>N</goto>")},
		{"fenced example ignored", "```\n<reset>X</reset>\n```\n<goto>N</goto>", tg(Goto, "N", "<goto>N</goto>")},
		{"quoted malformed ignored", "Never write `<goto/>`.\n<goto>N</goto>", tg(Goto, "N", "<goto>N</goto>")},
		{"whole answer fenced", "```xml\n<goto>N</goto>\n```", Tag{Name: Goto, Target: "N", Raw: "<goto>N</goto>", Quoted: true}},
		{"whole answer inline code", "`<goto>N</goto>`", Tag{Name: Goto, Target: "N", Raw: "<goto>N</goto>", Quoted: true}},
		{"tilde fence", "~~~~\n<goto>N</goto>\n~~~~\n", Tag{Name: Goto, Target: "N", Raw: "<goto>N</goto>", Quoted: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			requireSameTag(t, tt.in, tt.want, tr.Tag)
			if len(tr.Forks) != 0 {
				t.Errorf("Forks = %+v, want none", tr.Forks)
			}
		})
	}
}

func TestParseFork(t *testing.T) {
	const (
		f1 = `<fork next="JOIN" item="a">W</fork>`
		f2 = `<fork next='JOIN' item="b" cd="sub">W</fork>`
		g1 = `<fork item="a">W</fork>`
		g2 = `<fork input="x">V</fork>`
	)
	fork1 := tg(Fork, "W", f1, at("next", "JOIN"), at("item", "a"))
	fork2 := tg(Fork, "W", f2, at("next", "JOIN"), at("item", "b"), at("cd", "sub"))
	plain1 := tg(Fork, "W", g1, at("item", "a"))
	plain2 := tg(Fork, "V", g2, at("input", "x"))
	tests := []struct {
		name  string
		in    string
		tag   Tag
		forks []Tag
	}{
		{"single fork with next", "spawning\n" + f1, fork1, []Tag{fork1}},
		{"fan-out with common next", f1 + "\n" + f2, Tag{Name: Goto, Target: "JOIN", Raw: f1}, []Tag{fork1, fork2}},
		{"next compared after trimming", f1 + `<fork next=" JOIN ">W</fork>`, Tag{Name: Goto, Target: "JOIN", Raw: f1},
			[]Tag{fork1, tg(Fork, "W", `<fork next=" JOIN ">W</fork>`, at("next", "JOIN"))}},
		{"next with and without extension", f1 + `<fork next="JOIN.md">V</fork>`, Tag{Name: Goto, Target: "JOIN", Raw: f1},
			[]Tag{fork1, tg(Fork, "V", `<fork next="JOIN.md">V</fork>`, at("next", "JOIN.md"))}},
		{"return on a fork is a variable", `<fork next="J" return=" a/b ">W</fork>`,
			tg(Fork, "W", `<fork next="J" return=" a/b ">W</fork>`, at("next", "J"), at("return", " a/b ")),
			[]Tag{tg(Fork, "W", `<fork next="J" return=" a/b ">W</fork>`, at("next", "J"), at("return", " a/b "))}},
		{"names are case-sensitive", `<fork next="J" State="s" path="p" Run_ID="r">W</fork>`,
			tg(Fork, "W", `<fork next="J" State="s" path="p" Run_ID="r">W</fork>`, at("next", "J"), at("State", "s"), at("path", "p"), at("Run_ID", "r")),
			[]Tag{tg(Fork, "W", `<fork next="J" State="s" path="p" Run_ID="r">W</fork>`, at("next", "J"), at("State", "s"), at("path", "p"), at("Run_ID", "r"))}},
		{"single fork with goto", g1 + "<goto>MAIN</goto>", tg(Goto, "MAIN", "<goto>MAIN</goto>"), []Tag{plain1}},
		{"goto first", "<goto>MAIN</goto>" + g1 + g2, tg(Goto, "MAIN", "<goto>MAIN</goto>"), []Tag{plain1, plain2}},
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

	tr, err := Parse("x " + f1 + f2)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Tag.Offset != 2 {
		t.Errorf("synthetic goto at offset %d, want the first fork's, 2", tr.Tag.Offset)
	}
	if vars := tr.Forks[1].Vars(); !reflect.DeepEqual(vars, map[string]string{"item": "b"}) {
		t.Errorf("Vars() = %v", vars)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind ErrorKind
		msg  string
	}{
		// NoTag and Unclosed.
		{"empty", "", NoTag, "the answer has no transition tag"},
		{"prose", "All done, nothing else to do.", NoTag, "the answer has no transition tag"},
		{"prefix names only", "<results>x</results> <forked>y</forked>", NoTag, "the answer has no transition tag"},
		{"print only", "<print>hello</print>", NoTag, "the answer has no transition tag"},
		{"unclosed in code is a mention", "Use `<goto>` to move.", NoTag, "the answer has no transition tag"},
		{"closing only", "</goto>", NoTag, "the answer has no transition tag"},
		{"unclosed", "I am done.\n<goto>NEXT", Unclosed, "<goto> is never closed with </goto>"},
		{"unclosed with attributes", `<call return="X">Y`, Unclosed, "<call> is never closed with </call>"},
		{"wrong closing", "<goto>NEXT</reset>", Unclosed, "<goto> is never closed with </goto>"},
		{"closing of another name", "<goto>NEXT</gotoX>", Unclosed, "<goto> is never closed with </goto>"},
		{"quoted tag unclosed in its span", "`<goto>`N</goto>", NoTag, "the answer has no transition tag"},

		// SeveralTags.
		{"two gotos", "<goto>A</goto>\n<goto>B</goto>", SeveralTags,
			"expected exactly one transition tag, but found 2: <goto>A</goto>, <goto>B</goto>"},
		{"goto and result", "<result>x\ny</result><goto>A</goto>", SeveralTags,
			"expected exactly one transition tag, but found 2: <result>x y</result>, <goto>A</goto>"},
		{"all quoted count", "`<goto>A</goto>` `<goto>B</goto>`", SeveralTags,
			"expected exactly one transition tag, but found 2: <goto>A</goto>, <goto>B</goto>"},
		{"long tags are cut", "<goto>A</goto><result>" + strings.Repeat("x", 100) + "</result>", SeveralTags,
			"expected exactly one transition tag, but found 2: <goto>A</goto>, <result>" + strings.Repeat("x", 72) + "…"},

		// Malformed: grammar.
		{"self-closing", "<goto/>", Malformed, "<goto/> has no body, but a transition tag needs one, as in <goto>NAME</goto>"},
		{"self-closing with space", `<reset input="x" />`, Malformed, `<reset input="x" /> has no body, but a transition tag needs one, as in <reset>NAME</reset>`},
		{"duplicate attribute", `<call return="A" return="B">X</call>`, Malformed,
			`malformed tag <call return="A" return="B">: attribute return appears twice`},
		{"unquoted value", "<call return=A>X</call>", Malformed, "malformed tag <call return=A>: the value of return is not in quotes"},
		{"no value", "<fork next>X</fork>", Malformed, `malformed tag <fork next>: attribute next has no value (write next="…")`},
		{"unterminated value", `<goto input="x>N</goto>`, Malformed, `malformed tag <goto input="x>: the value of input has no closing "`},
		{"garbage", "<goto !>N</goto>", Malformed, `malformed tag <goto !>: '!' cannot appear there in an opening tag`},
		{"unicode garbage", "<goto é>N</goto>", Malformed, `malformed tag <goto é>: 'é' cannot appear there in an opening tag`},
		{"attributes not separated", `<goto input="a"cd="b">N</goto>`, Malformed,
			`malformed tag <goto input="a"cd="b">: attributes must be separated by whitespace`},
		{"malformed beside a good tag", "<goto>A</goto> <goto input=x>B</goto>", Malformed,
			"malformed tag <goto input=x>: the value of input is not in quotes"},

		// Malformed: attribute rules.
		{"cd on goto", `<goto cd="x">N</goto>`, Malformed, "cd is only allowed on <reset>, <fork>, <function-workflow>, <fork-workflow> and <reset-workflow>, not on <goto>"},
		{"cd on call", `<call return="R" cd="x">N</call>`, Malformed, "cd is only allowed on <reset>, <fork>, <function-workflow>, <fork-workflow> and <reset-workflow>, not on <call>"},
		{"return on goto", `<goto return="R">N</goto>`, Malformed, "return is only allowed on <call>, <function>, <call-workflow> and <function-workflow>, not on <goto>"},
		{"next on reset", `<reset next="R">N</reset>`, Malformed, "next is only allowed on <fork>, <ask> and <fork-workflow>, not on <reset>"},
		{"input on result", `<result input="x">P</result>`, Malformed,
			"input is allowed on every tag but <result> and <ask>, not on <result>"},
		{"unknown on result", `<result status="ok">P</result>`, Malformed, "<result> takes no attributes, but has status"},
		{"unknown on goto", `<goto item="x">N</goto>`, Malformed, "<goto> has no attribute item; it takes only input"},
		{"unknown on function", `<function return="R" x="1">N</function>`, Malformed, "<function> has no attribute x; it takes only return, input and workspace"},
		{"keys are case-sensitive", `<call Return="R">N</call>`, Malformed, "<call> has no attribute Return; it takes only return, input and workspace"},

		// Malformed: a fork variable with a reserved name (§7, §11.3).
		{"fork sets run_id", `<fork next="J" item="a" run_id="X">W</fork>`, Malformed,
			"run_id is a reserved name ({{run_id}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"fork sets agent_id", `<fork agent_id="Y">W</fork><goto>J</goto>`, Malformed, "agent_id is a reserved name ({{agent_id}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"fork sets state", `<fork next="J" state="Z">W</fork>`, Malformed, "state is a reserved name ({{state}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"fork sets workflow_id", `<fork next="J" workflow_id="Z">W</fork>`, Malformed, "workflow_id is a reserved name ({{workflow_id}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"fork sets result", `<fork next="J" result="Z">W</fork>`, Malformed, "result is a reserved name ({{result}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"fork sets task_folder", `<fork next="J" task_folder="Z">W</fork>`, Malformed, "task_folder is a reserved name ({{task_folder}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"fork sets ask_id", `<fork next="J" ask_id="Z">W</fork>`, Malformed, "ask_id is a reserved name ({{ask_id}} is set by raymond), so a <fork> cannot set it; give the variable another name"},
		{"second of a fan-out sets state", `<fork next="J" item="a">W</fork><fork next="J" state="s">W</fork>`, Malformed, "state is a reserved name ({{state}} is set by raymond), so a <fork> cannot set it; give the variable another name"},

		// Malformed: a NUL byte in a value that is passed on.
		{"NUL in input", "<goto input=\"a\x00b\">N</goto>", Malformed,
			"the input attribute of <goto> holds a NUL byte, which cannot be passed on to a prompt; write it without one"},
		{"NUL in a fork variable", "<fork next=\"J\" item=\"\x00\">W</fork>", Malformed,
			"the item attribute of <fork> holds a NUL byte, which cannot be passed on to a prompt; write it without one"},
		{"NUL in a payload", "<result>done\x00</result>", Malformed,
			"the payload of <result> holds a NUL byte, which cannot be passed on to a prompt; write it without one"},
		{"NUL in a target, quoted visibly", "<goto>A\x00B</goto>", UnsafeTarget,
			`the target "A\x00B" of <goto>A\x00B</goto> contains the control character U+0000, but a target must be the bare name of a file in the workflow folder`},

		// MissingAttr.
		{"call without return", "<call>X</call>", MissingAttr,
			`<call> needs a return attribute naming the state to continue at when it returns, as in <call return="NEXT">X</call>`},
		{"function without return", `<function input="i">X</function>`, MissingAttr,
			`<function> needs a return attribute naming the state to continue at when it returns, as in <function return="NEXT">X</function>`},

		// EmptyTarget.
		{"empty target", "<goto></goto>", EmptyTarget, "<goto></goto> has no target; put the name of a state between <goto> and </goto>"},
		{"blank target", "<reset> \r\n\t</reset>", EmptyTarget, "<reset>  \t</reset> has no target; put the name of a state between <reset> and </reset>"},
		{"empty return", `<call return="">X</call>`, EmptyTarget, `the return attribute of <call return="">X</call> is empty; it must name a state`},
		{"blank next", `<fork next="  ">W</fork>`, EmptyTarget, `the next attribute of <fork next="  ">W</fork> is empty; it must name a state`},

		// UnsafeTarget.
		{"parent path", "<goto>../x.md</goto>", UnsafeTarget,
			`the target "../x.md" of <goto>../x.md</goto> contains "/", but a target must be the bare name of a file in the workflow folder`},
		{"sub folder", "<goto>a/b.md</goto>", UnsafeTarget,
			`the target "a/b.md" of <goto>a/b.md</goto> contains "/", but a target must be the bare name of a file in the workflow folder`},
		{"backslash", `<goto>a\b.md</goto>`, UnsafeTarget,
			`the target "a\\b.md" of <goto>a\b.md</goto> contains "\", but a target must be the bare name of a file in the workflow folder`},
		{"absolute", "<reset>/abs.md</reset>", UnsafeTarget,
			`the target "/abs.md" of <reset>/abs.md</reset> contains "/", but a target must be the bare name of a file in the workflow folder`},
		{"dot", "<goto>.</goto>", UnsafeTarget,
			`the target "." of <goto>.</goto> names a folder, but a target must be the bare name of a file in the workflow folder`},
		{"dot dot", "<goto> .. </goto>", UnsafeTarget,
			`the target ".." of <goto> .. </goto> names a folder, but a target must be the bare name of a file in the workflow folder`},
		{"home", "<goto>~x</goto>", UnsafeTarget,
			`the target "~x" of <goto>~x</goto> starts with "~", but a target must be the bare name of a file in the workflow folder`},
		{"newline inside", "<goto>A\nB</goto>", UnsafeTarget,
			`the target "A\nB" of <goto>A B</goto> contains the control character U+000A, but a target must be the bare name of a file in the workflow folder`},
		{"unsafe return", `<call return="../R">X</call>`, UnsafeTarget,
			`return="../R" in <call return="../R">X</call> contains "/", but it must be the bare name of a file in the workflow folder`},
		{"unsafe next", `<fork next="a/J">W</fork>`, UnsafeTarget,
			`next="a/J" in <fork next="a/J">W</fork> contains "/", but it must be the bare name of a file in the workflow folder`},
		{"entity makes it unsafe", `<fork next="a&#x2F;J">W</fork>`, UnsafeTarget,
			`next="a/J" in <fork next="a&#x2F;J">W</fork> contains "/", but it must be the bare name of a file in the workflow folder`},
		{"unsafe fork target", `<fork next="J">../W</fork>`, UnsafeTarget,
			`the target "../W" of <fork next="J">../W</fork> contains "/", but a target must be the bare name of a file in the workflow folder`},

		// MultiForkMismatch.
		{"lone fork without next", `<fork item="a">W</fork>`, MultiForkMismatch,
			`a <fork> without next must be accompanied by one <goto> saying where this agent continues (or give every <fork> next="STATE")`},
		{"forks without next or goto", `<fork>W</fork><fork>W</fork>`, MultiForkMismatch,
			`forks without next must be accompanied by one <goto> saying where this agent continues (or give every <fork> next="STATE")`},
		{"different next", `<fork next="A">W</fork><fork next="B">W</fork>`, MultiForkMismatch,
			`every <fork> must name the same next, but they name "A" and "B"`},
		{"different extensions", `<fork next="J.md">W</fork><fork next="J.sh">W</fork>`, MultiForkMismatch,
			`every <fork> must name the same next, but they name "J.md" and "J.sh"`},
		{"some with next", `<fork next="A">W</fork><fork>W</fork><goto>A</goto>`, MultiForkMismatch,
			"either every <fork> names the same next or none does, but 1 of 2 forks do"},
		{"next and goto", `<fork next="A">W</fork><goto>A</goto>`, MultiForkMismatch,
			"a <fork> that names next must be the only kind of transition tag, but the answer also has <goto>A</goto>"},
		{"two gotos", `<fork>W</fork><goto>A</goto><goto>B</goto>`, MultiForkMismatch,
			"a <fork> without next may only be accompanied by exactly one <goto>, but the answer has <goto>A</goto>, <goto>B</goto>"},
		{"reset instead of goto", `<fork>W</fork><fork>W</fork><reset>A</reset>`, MultiForkMismatch,
			"forks without next may only be accompanied by exactly one <goto>, but the answer has <reset>A</reset>"},
		{"fork and result", `<fork>W</fork><result>x</result>`, MultiForkMismatch,
			"a <fork> without next may only be accompanied by exactly one <goto>, but the answer has <result>x</result>"},
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

func TestParseErrorTag(t *testing.T) {
	tests := []struct {
		in   string
		kind ErrorKind
		tag  string
	}{
		{"prose\n<goto>A</goto>\n<reset input='x'>B</reset>", SeveralTags, "<reset input='x'>B</reset>"},
		{"<goto>NEXT", Unclosed, "<goto>"},
		{"<goto input=x>N</goto> after", Malformed, "<goto input=x>N</goto>"},
		{"<goto cd='x'>N</goto>", Malformed, "<goto cd='x'>N</goto>"},
		{"<fork>W</fork>", MultiForkMismatch, "<fork>W</fork>"},
		{"<goto>a/b</goto>", UnsafeTarget, "<goto>a/b</goto>"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if perr := requireKind(t, err, tt.kind, ""); perr.Tag != tt.tag {
			t.Errorf("Parse(%q): Tag = %q, want %q", tt.in, perr.Tag, tt.tag)
		}
	}
}

// An unquoted tag that is never closed shows the model meant to answer outside
// code: a quoted example must not be taken for its answer.
func TestParseUnclosedOutsideCodeIgnoresQuoted(t *testing.T) {
	_, err := Parse("Example: `<goto>A</goto>`. My answer: <goto>B")
	var perr *Error
	if !errors.As(err, &perr) || perr.Kind != Unclosed {
		t.Fatalf("Parse = %v, want an Unclosed error", err)
	}
	// Every tag quoted and nothing unclosed outside: the quoted ones count.
	tr, err := Parse("```\n<goto>A</goto>\n```")
	if err != nil || tr.Tag.Target != "A" {
		t.Fatalf("Parse = %+v, %v, want goto A", tr, err)
	}
}
