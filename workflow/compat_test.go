package workflow

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"raymond/parsing"
)

// Policy entries written with the original Raymond's spellings read as
// raymond's, as the tags of an answer do (parsing/compat.go).

func TestRulesOfOldSpellings(t *testing.T) {
	const fm = "---\nallowed_transitions:\n"
	tests := []struct {
		name  string
		entry string
		want  Rule
	}{
		{"await is ask", "{tag: await, next: 3_REPORT.md}", Rule{Tag: parsing.Ask, Next: "3_REPORT.md"}},
		{"cwd on function-workflow is cd", "{tag: function-workflow, target: ../sub/, return: R, cwd: /tmp}",
			Rule{Tag: parsing.FunctionWorkflow, Target: "../sub/", Return: "R", Attrs: []parsing.Attr{{Key: "cd", Value: "/tmp"}}}},
		{"cwd on fork-workflow is cd, not a variable", "{tag: fork-workflow, target: ../sub/, next: J, cwd: w, item: a}",
			Rule{Tag: parsing.ForkWorkflow, Target: "../sub/", Next: "J",
				Attrs: []parsing.Attr{{Key: "cd", Value: "w"}, {Key: "item", Value: "a"}}}},
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

func TestRuleErrorsOfOldSpellings(t *testing.T) {
	const fm = "---\nallowed_transitions:\n  - "
	_, err := ParseState("X.md", []byte(fm+"{tag: function-workflow, target: ../x, return: R, cd: a, cwd: b}\n---\n"))
	want := `X.md:3: allowed_transitions entry 1: key "cd" and key "cwd", the original Raymond's name for it, are both given; keep only "cd"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want %q", err, want)
	}
}

// An answer's <await> is allowed by an entry that says await.
func TestAwaitAllowed(t *testing.T) {
	st, err := ParseState("REVIEW.md", []byte("---\nallowed_transitions:\n  - {tag: await, next: REPORT.md}\n---\nAsk.\n"))
	must(t, err)
	tr, err := parsing.Parse(`<await next="REPORT.md">Approve?</await>`)
	must(t, err)
	if !st.Policy.Allows(tr.Tag) {
		t.Errorf("%+v not allowed by %+v", tr.Tag, st.Policy.Rules)
	}
}

// A cross-workflow failure names the zip once, not once per layer: the
// original's reset_workflow_zip_caller gives an absolute, pinned path.
func TestUseErrorNamesThePathOnce(t *testing.T) {
	const zip = "/wf/x-0000.zip"
	reason := errors.New(zip + ": SHA-256 mismatch")
	tests := []struct {
		err  UseError
		want string
	}{
		{UseError{Spec: zip, Path: zip, Err: reason}, zip + ": SHA-256 mismatch"},
		{UseError{Spec: "../x-0000.zip", Path: zip, Err: reason}, "../x-0000.zip (" + zip + "): SHA-256 mismatch"},
		{UseError{Spec: "../lib", Path: "/wf/lib", Err: errors.New("no 1_START.md or START.md")},
			"../lib (/wf/lib): no 1_START.md or START.md"},
		{UseError{Spec: "https://h/x.zip", Err: errors.New("an absolute URL")}, "https://h/x.zip: an absolute URL"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("got  %q\nwant %q", got, tt.want)
		}
	}
}
