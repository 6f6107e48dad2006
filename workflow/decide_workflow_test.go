package workflow

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"raymond/parsing"
)

// fakeResolver resolves the specifiers it knows, and says the others name
// nothing. It records the scope each call resolved from.
type fakeResolver struct {
	known map[string]fakeTarget
	from  []*Scope
}

type fakeTarget struct {
	scope *Scope
	state string
	err   error
}

func (f *fakeResolver) Workflow(from *Scope, spec string) (*Scope, string, error) {
	f.from = append(f.from, from)
	t, ok := f.known[spec]
	if !ok {
		return nil, "", &TargetError{Kind: NotFound, Target: spec, Msg: fmt.Sprintf("workflow %q does not exist", spec)}
	}
	return t.scope, t.state, t.err
}

// errBadZip stands for an error that keeps a target from use (§14.3).
var errBadZip = errors.New("../broken.zip: not a zip archive")

func newFakeResolver(t *testing.T) (*fakeResolver, *Scope) {
	lib := openScope(t, writeScope(t, map[string]string{"1_START.md": "", "CHECK.sh": ""}))
	return &fakeResolver{known: map[string]fakeTarget{
		"../lib":           {scope: lib, state: "1_START.md"},
		"/abs/lib/":        {scope: lib, state: "1_START.md"},
		`..\lib\1_START`:   {scope: lib, state: "1_START.md"},
		"../lib/CHECK":     {scope: lib, state: "CHECK.sh"},
		"../broken.zip":    {err: errBadZip},
		"../lib/SUMMARIZE": {scope: lib, state: "SUMMARIZE.md"},
	}}, lib
}

// askTag builds an ask with its question and attributes (key, value, …).
func askTag(question string, attrs ...string) parsing.Tag {
	t := tag(parsing.Ask, "", attrs...)
	t.Payload = question
	return t
}

func TestDecideCrossWorkflow(t *testing.T) {
	scope := decideScope(t)
	in := parsing.Attr{Key: "input", Value: "x"}
	tests := []struct {
		name   string
		policy Policy
		output string
		want   parsing.Transition // compared on names, targets, attributes, payloads
	}{
		{
			name: "call-workflow, return in the caller's scope", output: `<call-workflow return="SUMMARIZE" input="x">../lib</call-workflow>`,
			want: parsing.Transition{Tag: tag("call-workflow", "1_START.md", "return", "SUMMARIZE.md", "input", "x")},
		},
		{
			name: "a rule matched by resolution", output: `<function-workflow return="SUMMARIZE">/abs/lib/</function-workflow>`,
			policy: Policy{Rules: []Rule{{Tag: "function-workflow", Target: "../lib/CHECK"}, {Tag: "function-workflow", Target: `..\lib\1_START`}}},
			want:   parsing.Transition{Tag: tag("function-workflow", "1_START.md", "return", "SUMMARIZE.md")},
		},
		{
			name: "fan-out of both kinds from a script", output: `<fork-workflow item="a">../lib/CHECK</fork-workflow><fork>WORKER</fork><goto>JOIN</goto>`,
			want: parsing.Transition{Tag: tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{tag("fork-workflow", "CHECK.sh", "item", "a"), tag("fork", "WORKER.md")}},
		},
		{
			name: "fan-out checked fork by fork", output: `<fork-workflow next="JOIN">../lib</fork-workflow><fork-workflow next="JOIN">/abs/lib/</fork-workflow>`,
			policy: Policy{Rules: []Rule{{Tag: "fork-workflow", Target: "../lib", Next: "JOIN"}}},
			want: parsing.Transition{Tag: tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{tag("fork-workflow", "1_START.md", "next", "JOIN.md"), tag("fork-workflow", "1_START.md", "next", "JOIN.md")}},
		},
		{
			name: "implicit reset-workflow carries the entry's attributes", output: "all done",
			policy: Policy{Rules: []Rule{{Tag: "reset-workflow", Target: "../lib", Attrs: []parsing.Attr{{Key: "task", Value: "new"}, in}}}},
			want:   parsing.Transition{Tag: tag("reset-workflow", "1_START.md", "task", "new", "input", "x")},
		},
		{
			name: "an ask takes its entry's timeout", output: `<ask next="REVIEW" timeout_next="DONE">Ship it?</ask>`,
			policy: Policy{Rules: []Rule{{Tag: "ask", Attrs: []parsing.Attr{{Key: "timeout", Value: "2h"}}}}},
			want:   parsing.Transition{Tag: askTag("Ship it?", "next", "REVIEW.md", "timeout_next", "DONE.md", "timeout", "2h")},
		},
		{
			name: "an ask keeps its own timeout", output: `<ask next="REVIEW" timeout="5m">Ship it?</ask>`,
			policy: Policy{Rules: []Rule{{Tag: "ask", Next: "REVIEW", Attrs: []parsing.Attr{{Key: "timeout", Value: "2h"}}}}},
			want:   parsing.Transition{Tag: askTag("Ship it?", "next", "REVIEW.md", "timeout", "5m")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, lib := newFakeResolver(t)
			st := &State{Name: "START.md", Policy: tt.policy}
			got, err := Decide(res, scope, st, tt.output)
			must(t, err)
			if !sameTransition(got, tt.want) {
				t.Errorf("Decide =\n %+v\nwant\n %+v", got, tt.want)
			}
			for _, tg := range append([]parsing.Tag{got.Tag}, got.Forks...) {
				if want := map[bool]string{true: lib.Dir()}[parsing.CrossWorkflow(tg.Name)]; tg.Scope != want {
					t.Errorf("<%s> Scope = %q, want %q", tg.Name, tg.Scope, want)
				}
			}
			for _, from := range res.from {
				if from != scope {
					t.Errorf("a specifier was resolved from %v, not from the caller's scope", from)
				}
			}
			if len(got.Warnings) != 0 {
				t.Errorf("Warnings = %q", got.Warnings)
			}
		})
	}
}

func TestDecideCrossWorkflowErrors(t *testing.T) {
	scope := decideScope(t)
	tests := []struct {
		name   string
		policy Policy
		output string
		check  func(t *testing.T, err error)
	}{
		{"a specifier naming nothing is a TargetError", Policy{}, `<reset-workflow>../nowhere</reset-workflow>`,
			func(t *testing.T, err error) {
				if te, ok := errors.AsType[*TargetError](err); !ok || te.Target != "../nowhere" || te.Kind != NotFound {
					t.Errorf("got %v (%T), want the resolver's *TargetError", err, err)
				}
			}},
		{"another error of the resolver passes through", Policy{}, `<call-workflow return="DONE">../broken.zip</call-workflow>`,
			func(t *testing.T, err error) {
				if err != errBadZip {
					t.Errorf("got %v, want the resolver's error unchanged", err)
				}
			}},
		{"a fan-out with one bad fork spawns nothing", Policy{},
			`<fork-workflow next="JOIN">../lib</fork-workflow><fork next="JOIN">WORKER</fork><fork-workflow next="JOIN">../gone</fork-workflow>`,
			func(t *testing.T, err error) {
				if _, ok := errors.AsType[*TargetError](err); !ok {
					t.Errorf("got %v, want a *TargetError", err)
				}
			}},
		{"return names a state of the caller's scope", Policy{}, `<call-workflow return="1_START">../lib</call-workflow>`,
			func(t *testing.T, err error) {
				if te, ok := errors.AsType[*TargetError](err); !ok || te.Target != "1_START" {
					t.Errorf("got %v, want a *TargetError about 1_START", err)
				}
			}},
		{"a rule resolving elsewhere does not allow", Policy{Rules: []Rule{{Tag: "call-workflow", Target: "../lib/CHECK"}}},
			`<call-workflow return="DONE">../lib</call-workflow>`,
			func(t *testing.T, err error) {
				want := `<call-workflow return="DONE.md">../lib</call-workflow> is not one of the transitions START.md allows`
				if pe, ok := errors.AsType[*PolicyError](err); !ok || pe.Msg != want {
					t.Errorf("got %v, want a *PolicyError %q", err, want)
				}
			}},
		{"a rule that names nothing allows nothing", Policy{Rules: []Rule{{Tag: "call-workflow", Target: "../nowhere"}}},
			`<call-workflow return="DONE">../lib</call-workflow>`,
			func(t *testing.T, err error) {
				if _, ok := errors.AsType[*PolicyError](err); !ok {
					t.Errorf("got %v, want a *PolicyError", err)
				}
			}},
		{"allowing call does not allow call-workflow", Policy{Rules: []Rule{{Tag: "call"}}},
			`<call-workflow return="DONE">../lib</call-workflow>`,
			func(t *testing.T, err error) {
				if _, ok := errors.AsType[*PolicyError](err); !ok {
					t.Errorf("got %v, want a *PolicyError", err)
				}
			}},
		{"an ask with another timeout_next", Policy{Rules: []Rule{{Tag: "ask", TimeoutNext: "DONE"}}},
			`<ask next="REVIEW" timeout="1h" timeout_next="REVIEW">Q</ask>`,
			func(t *testing.T, err error) {
				want := `<ask next="REVIEW.md">Q</ask> is not one of the transitions START.md allows`
				if pe, ok := errors.AsType[*PolicyError](err); !ok || pe.Msg != want {
					t.Errorf("got %v, want a *PolicyError %q", err, want)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := newFakeResolver(t)
			st := &State{Name: "START.md", Policy: tt.policy}
			got, err := Decide(res, scope, st, tt.output)
			if err == nil || !reflect.DeepEqual(got, parsing.Transition{}) {
				t.Fatalf("Decide = %+v, %v; want only an error", got, err)
			}
			tt.check(t, err)
		})
	}
}

func TestDecideWithoutResolver(t *testing.T) {
	st := &State{Name: "START.md"}
	_, err := Decide(nil, decideScope(t), st, `<reset-workflow>../lib</reset-workflow>`)
	wantErrContains(t, err, "cross-workflow tags need a workflow resolver")
	if _, err := Decide(nil, decideScope(t), st, `<goto>REVIEW</goto>`); err != nil {
		t.Errorf("a goto needs no resolver: %v", err)
	}
}

func TestDecideAskWarnings(t *testing.T) {
	res, _ := newFakeResolver(t)
	const out = `<ask next="REVIEW" timeout_next="DONE" upload_1="a.png">Ship it?</ask>`
	tests := []struct {
		policy Policy
		want   []string
	}{
		{Policy{}, []string{"<ask> attribute upload_1 ignored: an ask is text only for now",
			"<ask> timeout_next ignored: without a timeout the ask waits until it is answered"}},
		{Policy{Rules: []Rule{{Tag: "ask"}}}, []string{"<ask> attribute upload_1 ignored: an ask is text only for now",
			"<ask> timeout_next ignored: without a timeout the ask waits until it is answered"}},
		{Policy{Rules: []Rule{{Tag: "ask", Attrs: []parsing.Attr{{Key: "timeout", Value: "1d"}}}}},
			[]string{"<ask> attribute upload_1 ignored: an ask is text only for now"}},
	}
	for i, tt := range tests {
		got, err := Decide(res, decideScope(t), &State{Name: "START.md", Policy: tt.policy}, out)
		must(t, err)
		if !reflect.DeepEqual(got.Warnings, tt.want) {
			t.Errorf("%d: Warnings = %q, want %q", i, got.Warnings, tt.want)
		}
	}
}
