package parsing

import "testing"

// The original Raymond's spellings read as raymond's (compat.go).

func TestParseOldSpellings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Tag
	}{
		{"await is ask", `<await next="REPORT.md">Approve the vendor?</await>`,
			Tag{Name: Ask, Payload: "Approve the vendor?", Raw: `<await next="REPORT.md">Approve the vendor?</await>`,
				Attrs: []Attr{at("next", "REPORT.md")}}},
		{"await with a timeout", "<await next=' N ' timeout=\"2h\" timeout_next=\"LATE\">\n Go? \n</await >",
			Tag{Name: Ask, Payload: "Go?", Raw: "<await next=' N ' timeout=\"2h\" timeout_next=\"LATE\">\n Go? \n</await >",
				Attrs: []Attr{at("next", "N"), at("timeout", "2h"), at("timeout_next", "LATE")}}},
		{"cwd on function-workflow is cd", `<function-workflow return="DONE.md" input="ping" cwd="/tmp">../sub/</function-workflow>`,
			tg(FunctionWorkflow, "../sub/", `<function-workflow return="DONE.md" input="ping" cwd="/tmp">../sub/</function-workflow>`,
				at("return", "DONE.md"), at("input", "ping"), at("cd", "/tmp"))},
		{"cwd on fork-workflow is cd", `<fork-workflow next="JOIN" cwd="w">../sub/</fork-workflow>`,
			tg(ForkWorkflow, "../sub/", `<fork-workflow next="JOIN" cwd="w">../sub/</fork-workflow>`,
				at("next", "JOIN"), at("cd", "w"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			requireSameTag(t, tt.in, tt.want, tr.Tag)
		})
	}
}

func TestOldCwdIsNotAForkVariable(t *testing.T) {
	tr, err := Parse(`<fork-workflow next="JOIN" cwd="w" item="a">../sub/</fork-workflow>`)
	if err != nil {
		t.Fatal(err)
	}
	vars := tr.Tag.Vars()
	if len(vars) != 1 || vars["item"] != "a" {
		t.Errorf("vars = %v, want only item", vars)
	}
	if cd, _ := tr.Tag.Attr("cd"); cd != "w" {
		t.Errorf("cd = %q, want w", cd)
	}
}

func TestParseOldSpellingErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		kind ErrorKind
		msg  string
	}{
		{"cd and cwd", `<function-workflow return="R" cd="a" cwd="b">../x</function-workflow>`, Malformed,
			"<function-workflow> has both cd and cwd, which is the original Raymond's name for cd; keep only cd"},
		{"cwd where the original never read it", `<reset-workflow cwd="/tmp">../x</reset-workflow>`, Malformed,
			"<reset-workflow> has no attribute cwd; it takes only input, cd and task"},
		{"cwd on call-workflow", `<call-workflow return="R" cwd="/tmp">../x</call-workflow>`, Malformed,
			"<call-workflow> has no attribute cwd; it takes only return, input and workspace"},
		{"await without next", `<await>Go?</await>`, MissingAttr,
			`<ask> needs a next attribute naming the state to continue at once answered, as in <ask next="NEXT">Go?</ask>`},
		{"await never closed", `<await next="N">Go?`, Unclosed, "<await> is never closed with </await>"},
		{"await and ask", `<await next="N">A?</await> <ask next="N">B?</ask>`, SeveralTags, ""},
		{"awaits is nothing", `<awaits next="N">A?</awaits>`, NoTag, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.in)
			requireKind(t, err, tt.kind, tt.msg)
		})
	}
}

func TestOldNames(t *testing.T) {
	if name, ok := OldTagName("await"); !ok || name != Ask {
		t.Errorf("OldTagName(await) = %q, %v", name, ok)
	}
	if _, ok := OldTagName("ask"); ok {
		t.Error("ask is not an old name")
	}
	for _, tag := range Names {
		key, ok := OldAttrName(tag, "cwd")
		want := tag == FunctionWorkflow || tag == ForkWorkflow
		if ok != want || (ok && key != "cd") {
			t.Errorf("OldAttrName(%s, cwd) = %q, %v", tag, key, ok)
		}
	}
}
