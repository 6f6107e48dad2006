package parsing

import (
	"reflect"
	"strings"
	"testing"
)

func TestTags(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Tag
	}{
		{"none", "plain text < > <<goto", nil},
		{"every name", "<goto>a</goto><reset>b</reset><call>c</call><function>d</function><fork>e</fork><result>f</result>", []Tag{
			tg(Goto, "a", "<goto>a</goto>"), tg(Reset, "b", "<reset>b</reset>"), tg(Call, "c", "<call>c</call>"),
			tg(Function, "d", "<function>d</function>"), tg(Fork, "e", "<fork>e</fork>"), tg(Result, "f", "<result>f</result>"),
		}},
		{"names are case-sensitive", "<Goto>a</Goto><GOTO>b</GOTO>", nil},
		{"name must end with space or >", "<gotoX>a</gotoX><goto-x>b</goto-x><goto/x>c</goto>", nil},
		{"tab and newline after the name", "<goto\tinput='a'>x</goto><reset\r\ninput='b'>y</reset>", []Tag{
			tg(Goto, "x", "<goto\tinput='a'>x</goto>", at("input", "a")),
			tg(Reset, "y", "<reset\r\ninput='b'>y</reset>", at("input", "b")),
		}},
		{"space around =", `<goto input = "a" >x</goto>`, []Tag{tg(Goto, "x", `<goto input = "a" >x</goto>`, at("input", "a"))}},
		{"both quote styles", `<fork a='say "hi"' b="it's">w</fork>`, []Tag{
			tg(Fork, "w", `<fork a='say "hi"' b="it's">w</fork>`, at("a", `say "hi"`), at("b", "it's")),
		}},
		{"key characters", `<fork a-b_C9="1">w</fork>`, []Tag{tg(Fork, "w", `<fork a-b_C9="1">w</fork>`, at("a-b_C9", "1"))}},
		{"angle brackets in values", `<goto input="a<b> and </goto>">x</goto>`, []Tag{
			tg(Goto, "x", `<goto input="a<b> and </goto>">x</goto>`, at("input", "a<b> and </goto>")),
		}},
		{"multi-line value", "<goto input=\"line 1\r\nline 2\">x</goto>", []Tag{
			tg(Goto, "x", "<goto input=\"line 1\r\nline 2\">x</goto>", at("input", "line 1\r\nline 2")),
		}},
		{"entities", `<goto input="&quot;&amp;&lt;&gt;&apos;&#65;&#x42;&#X43;&#x1F680;">x</goto>`, []Tag{
			tg(Goto, "x", `<goto input="&quot;&amp;&lt;&gt;&apos;&#65;&#x42;&#X43;&#x1F680;">x</goto>`, at("input", `"&<>'ABC🚀`)),
		}},
		{"unknown and broken entities stay", `<goto input="&nbsp; &amp &#; &#0; &#xD800; &#x110000; &#12a; & &&amp;">x</goto>`, []Tag{
			tg(Goto, "x", `<goto input="&nbsp; &amp &#; &#0; &#xD800; &#x110000; &#12a; & &&amp;">x</goto>`,
				at("input", "&nbsp; &amp &#; &#0; &#xD800; &#x110000; &#12a; & &&")),
		}},
		{"bodies are not decoded", "<goto>&amp;</goto>", []Tag{tg(Goto, "&amp;", "<goto>&amp;</goto>")}},
		{"first closing tag ends the body", "<result>a</result>b</result>", []Tag{tg(Result, "a", "<result>a</result>")}},
		{"closing tag with whitespace", "<goto>a</goto \n\t>", []Tag{tg(Goto, "a", "<goto>a</goto \n\t>")}},
		{"a false closing tag is body", "<goto>a</goto x></goto>", []Tag{tg(Goto, "a</goto x>", "<goto>a</goto x></goto>")}},
		{"nested same name", "<result>a <result>b</result> c</result>", []Tag{tg(Result, "a <result>b", "<result>a <result>b</result>")}},
		{"tags in a body are not tags", "<call return='R'>X <goto>Y</goto></call>", []Tag{
			tg(Call, "X <goto>Y</goto>", "<call return='R'>X <goto>Y</goto></call>", at("return", "R")),
		}},
		{"unclosed skipped", "<goto>a <reset>b</reset>", []Tag{tg(Reset, "b", "<reset>b</reset>")}},
		{"values kept as written", `<call return=" R ">X</call>`, []Tag{tg(Call, "X", `<call return=" R ">X</call>`, at("return", " R "))}},
		{"no rules applied", `<goto cd="x"></goto><call>../y</call>`, []Tag{
			tg(Goto, "", `<goto cd="x"></goto>`, at("cd", "x")), tg(Call, "../y", "<call>../y</call>"),
		}},
		{"quoted dropped", "`<reset>a</reset>`\n<goto>b</goto>\n```\n<call>c</call>\n```", []Tag{tg(Goto, "b", "<goto>b</goto>")}},
		{"quoted dropped beside unclosed-free text", "see `<goto>a</goto>` and <goto>b</goto>", []Tag{tg(Goto, "b", "<goto>b</goto>")}},
		{"all quoted kept", "`<reset>a</reset>`\n```\n<goto>b</goto>\n```", []Tag{
			{Name: Reset, Target: "a", Raw: "<reset>a</reset>", Quoted: true},
			{Name: Goto, Target: "b", Raw: "<goto>b</goto>", Quoted: true},
		}},
		{"quoted tag must close in its span", "`<goto>a` b</goto>", nil},
		{"unquoted tag may close in code", "<result>x `</result>` y", []Tag{tg(Result, "x `", "<result>x `</result>")}},
		{"fence closed by a longer fence", "````\n<goto>a</goto>\n`````\n<goto>b</goto>", []Tag{tg(Goto, "b", "<goto>b</goto>")}},
		{"unclosed fence runs to the end", "<goto>b</goto>\n```\n<goto>a</goto>", []Tag{tg(Goto, "b", "<goto>b</goto>")}},
		{"three backticks inline are a span", "```<goto>a</goto>``` <goto>b</goto>", []Tag{tg(Goto, "b", "<goto>b</goto>")}},
		{"lone backtick is text", "it`s <goto>b</goto>", []Tag{tg(Goto, "b", "<goto>b</goto>")}},
		{"span does not cross a blank line", "a `b\n\n<goto>c</goto> d` e", []Tag{tg(Goto, "c", "<goto>c</goto>")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Tags(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d tags %+v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				requireSameTag(t, tt.in, tt.want[i], got[i])
			}
		})
	}
}

func TestTagsOffsets(t *testing.T) {
	in := "héllo\r\n<goto>A</goto>\r\n`x` <print>p</print>"
	got, err := Tags(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Offset != strings.Index(in, "<goto>") {
		t.Fatalf("got %+v, want one tag at byte %d", got, strings.Index(in, "<goto>"))
	}
}

func TestTagsMalformed(t *testing.T) {
	tests := []struct {
		name string
		in   string
		msg  string
	}{
		{"self-closing", "<result/>", "<result/> has no body, but a transition tag needs one, as in <result>NAME</result>"},
		{"duplicate", `<fork a="1" b="2" a='3'>W</fork>`, `malformed tag <fork a="1" b="2" a='3'>: attribute a appears twice`},
		{"duplicate among many", `<fork a0="" a1="" a2="" a3="" a4="" a5="" a6="" a7="" a8="" a9="" a3="">W</fork>`,
			`malformed tag <fork a0="" a1="" a2="" a3="" a4="" a5="" a6="" a7="" a8="" a9="" a3="">: attribute a3 appears twice`},
		{"unquoted", "<goto input=x>N</goto>", "malformed tag <goto input=x>: the value of input is not in quotes"},
		{"first of several", "<goto a=1>x</goto><goto b=2>y</goto>", "malformed tag <goto a=1>: the value of a is not in quotes"},
		{"quoted when all are quoted", "`<goto a=1>x</goto>`", "malformed tag <goto a=1>: the value of a is not in quotes"},
		{"long tag is cut", `<goto input="` + strings.Repeat("é", 50) + `" x>N</goto>`,
			`malformed tag <goto input="` + strings.Repeat("é", 33) + `…: attribute x has no value (write x="…")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tags, err := Tags(tt.in)
			if tags != nil {
				t.Errorf("got tags %+v beside the error", tags)
			}
			requireKind(t, err, Malformed, tt.msg)
		})
	}
}

// AllTags goes on past a malformed tag: the well-formed tags around it,
// and the error of every malformed one, in order.
func TestAllTags(t *testing.T) {
	tags, errs := AllTags("<goto a=1>x</goto> then <goto>B</goto>, <call b=2 return=\"R\">y</call> or <result>r</result>")
	var names []string
	for _, tg := range tags {
		names = append(names, tg.Name+" "+tg.Target)
	}
	if want := []string{"goto B", "result "}; !reflect.DeepEqual(names, want) {
		t.Errorf("tags = %q, want %q", names, want)
	}
	if len(errs) != 2 || errs[0].Kind != Malformed || !strings.Contains(errs[0].Error(), "<goto a=1>") || !strings.Contains(errs[1].Error(), "<call b=2") {
		t.Errorf("errs = %v, want the two malformed tags", errs)
	}
	if tags, errs := AllTags("<goto>A</goto>"); len(tags) != 1 || errs != nil {
		t.Errorf("well-formed text: got %v, %v", tags, errs)
	}
}

func TestTagsNotMalformed(t *testing.T) {
	// Things that start like a tag but are prose, or malformed tags that
	// have no closing tag: none is a tag and none is an error.
	for _, in := range []string{
		"use a <goto tag to move",
		"<goto input=x> without closing",
		"<goto x <goto y",
		"a <fork and a </fork>",
		"<goto input=\"never closed",
		"`<goto/x>`",
	} {
		tags, err := Tags(in)
		if err != nil || len(tags) != 0 {
			t.Errorf("Tags(%q) = %+v, %v; want nothing", in, tags, err)
		}
	}
}

func TestCodeSpans(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"no code", nil},
		{"`a` and ``b ` c``", []string{"`a`", "``b ` c``"}},
		{"``a` b", nil},
		{"```\nx\n```\ny", []string{"```\nx\n```\n"}},
		{"```go\r\nx\r\n```\r\n", []string{"```go\r\nx\r\n```\r\n"}},
		{"  ~~~\nx\n~~\n~~~~ \ny", []string{"  ~~~\nx\n~~\n~~~~ \n"}},
		{"```\nx\n~~~\n", []string{"```\nx\n~~~\n"}},
		{"```a`b\n`x`", []string{"`b\n`"}},
		{"para `a\n\nb` c `d`", []string{"` c `"}},
		{"`a`\n```\n`b`\n```\n`c`", []string{"`a`", "```\n`b`\n```\n", "`c`"}},
		{"` `` ``` `` `", []string{"` `` ``` `` `"}},
		{"`` ` `` `", []string{"`` ` ``"}},
	}
	for _, tt := range tests {
		var got []string
		for _, s := range codeSpans(tt.in) {
			got = append(got, tt.in[s.start:s.end])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("codeSpans(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
