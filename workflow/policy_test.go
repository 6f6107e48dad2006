package workflow

import (
	"reflect"
	"testing"

	"raymond/parsing"
)

func tag(name, target string, attrs ...string) parsing.Tag {
	t := parsing.Tag{Name: name, Target: target}
	if name == parsing.Result {
		t = parsing.Tag{Name: name, Payload: target}
	}
	for i := 0; i+1 < len(attrs); i += 2 {
		t.Attrs = append(t.Attrs, parsing.Attr{Key: attrs[i], Value: attrs[i+1]})
	}
	return t
}

func TestAllows(t *testing.T) {
	tests := []struct {
		name string
		rule Rule
		tag  parsing.Tag
		want bool
	}{
		{"same target", Rule{Tag: "goto", Target: "REVIEW.md"}, tag("goto", "REVIEW.md"), true},
		{"tag omits extension", Rule{Tag: "goto", Target: "REVIEW.md"}, tag("goto", "REVIEW"), true},
		{"rule omits extension", Rule{Tag: "goto", Target: "REVIEW"}, tag("goto", "REVIEW.md"), true},
		{"rule omits extension, script", Rule{Tag: "goto", Target: "REVIEW"}, tag("goto", "REVIEW.sh"), true},
		{"both omit extension", Rule{Tag: "goto", Target: "REVIEW"}, tag("goto", "REVIEW"), true},
		{"different extension", Rule{Tag: "goto", Target: "REVIEW.md"}, tag("goto", "REVIEW.sh"), false},
		{"dotted stem", Rule{Tag: "goto", Target: "v1.2"}, tag("goto", "v1.2.md"), true},
		{"other target", Rule{Tag: "goto", Target: "REVIEW.md"}, tag("goto", "DONE.md"), false},
		{"prefix is not a match", Rule{Tag: "goto", Target: "REVIEW"}, tag("goto", "REVIEW2.md"), false},
		{"other tag", Rule{Tag: "goto", Target: "REVIEW.md"}, tag("reset", "REVIEW.md"), false},
		{"free target", Rule{Tag: "reset"}, tag("reset", "ANY.md"), true},
		{"input and cd not compared", Rule{Tag: "reset", Target: "A"}, tag("reset", "A.md", "input", "x", "cd", "/tmp"), true},
		{"call with return", Rule{Tag: "call", Target: "R", Return: "S.md"}, tag("call", "R.md", "return", "S"), true},
		{"call with other return", Rule{Tag: "call", Target: "R", Return: "S.md"}, tag("call", "R.md", "return", "T.md"), false},
		{"call, return free", Rule{Tag: "call", Target: "R"}, tag("call", "R.md", "return", "T.md"), true},
		{"function is not call", Rule{Tag: "call", Target: "R"}, tag("function", "R.md", "return", "T.md"), false},
		{"fork with next", Rule{Tag: "fork", Target: "W", Next: "J"}, tag("fork", "W.md", "next", "J.md", "item", "a"), true},
		{"fork without next", Rule{Tag: "fork", Target: "W", Next: "J"}, tag("fork", "W.md"), false},
		{"fork, next free", Rule{Tag: "fork", Target: "W"}, tag("fork", "W.md"), true},
		{"fork, other next", Rule{Tag: "fork", Target: "W", Next: "J"}, tag("fork", "W.md", "next", "K.md"), false},
		{"result, free payload", Rule{Tag: "result"}, tag("result", "anything at all"), true},
		{"result, empty payload", Rule{Tag: "result"}, tag("result", ""), true},
		{"result, fixed payload", Rule{Tag: "result", Payload: ptr("done")}, tag("result", "done"), true},
		{"result, fixed payload trimmed", Rule{Tag: "result", Payload: ptr(" done\n")}, tag("result", "done"), true},
		{"result, other payload", Rule{Tag: "result", Payload: ptr("done")}, tag("result", "Done"), false},
		{"result, fixed empty payload", Rule{Tag: "result", Payload: ptr("")}, tag("result", "x"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Policy{Rules: []Rule{{Tag: "goto", Target: "UNRELATED.md"}, tt.rule}}
			if got := p.Allows(tt.tag); got != tt.want {
				t.Errorf("Allows(%+v) = %v, want %v", tt.tag, got, tt.want)
			}
		})
	}
	if (Policy{}).Allows(tag("goto", "A.md")) {
		t.Error("an empty policy allows nothing by itself; Decide skips the check when it is not restricted")
	}
}

func TestImplicit(t *testing.T) {
	tests := []struct {
		name  string
		rules []Rule
		want  parsing.Tag
		ok    bool
	}{
		{"no rules", nil, parsing.Tag{}, false},
		{"goto", []Rule{{Tag: "goto", Target: "A"}}, tag("goto", "A"), true},
		{"goto without target", []Rule{{Tag: "goto"}}, parsing.Tag{}, false},
		{"reset", []Rule{{Tag: "reset", Target: "A.md"}}, tag("reset", "A.md"), true},
		{"call", []Rule{{Tag: "call", Target: "A", Return: "B"}}, tag("call", "A", "return", "B"), true},
		{"call without return", []Rule{{Tag: "call", Target: "A"}}, parsing.Tag{}, false},
		{"function", []Rule{{Tag: "function", Target: "A", Return: "B"}}, tag("function", "A", "return", "B"), true},
		{"function without target", []Rule{{Tag: "function", Return: "B"}}, parsing.Tag{}, false},
		{"fork", []Rule{{Tag: "fork", Target: "W", Next: "J"}}, tag("fork", "W", "next", "J"), true},
		{"fork without next", []Rule{{Tag: "fork", Target: "W"}}, parsing.Tag{}, false},
		{"result with payload", []Rule{{Tag: "result", Payload: ptr(" done ")}}, tag("result", "done"), true},
		{"result with empty payload", []Rule{{Tag: "result", Payload: ptr("")}}, tag("result", ""), true},
		{"result without payload", []Rule{{Tag: "result"}}, parsing.Tag{}, false},
		{"two rules", []Rule{{Tag: "goto", Target: "A"}, {Tag: "goto", Target: "B"}}, parsing.Tag{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Policy{Rules: tt.rules}.Implicit()
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Implicit() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRestricted(t *testing.T) {
	if (Policy{Model: "opus"}).Restricted() {
		t.Error("a policy without rules is restricted")
	}
	if !(Policy{Rules: []Rule{{Tag: "result"}}}).Restricted() {
		t.Error("a policy with rules is not restricted")
	}
}
