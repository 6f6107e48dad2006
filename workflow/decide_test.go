package workflow

import (
	"errors"
	"reflect"
	"testing"

	"raymond/parsing"
)

// decideScope is a workflow whose states all exist; the policies under test
// are given directly, not read from these files.
func decideScope(t *testing.T) *Scope {
	return openScope(t, writeScope(t, map[string]string{
		"START.md": "", "REVIEW.md": "", "DONE.md": "", "RESEARCH.md": "", "SUMMARIZE.md": "",
		"WORKER.md": "", "JOIN.md": "", "OTHER.md": "", "BOTH.md": "", "BOTH.sh": "",
	}))
}

func TestDecide(t *testing.T) {
	scope := decideScope(t)
	implicitGoto := Policy{Rules: []Rule{{Tag: "goto", Target: "REVIEW"}}}
	tests := []struct {
		name   string
		policy Policy
		output string
		want   parsing.Transition // compared on names, targets, attributes, payloads
	}{
		{
			name: "no policy, extension-less target", output: "ok <goto>REVIEW</goto>",
			want: parsing.Transition{Tag: tag("goto", "REVIEW.md")},
		},
		{
			name: "force_implicit ignores the output", output: "I could write <goto>DONE.md</goto> here, or nothing.",
			policy: Policy{Rules: []Rule{{Tag: "reset", Target: "REVIEW"}}, ForceImplicit: true},
			want:   parsing.Transition{Tag: tag("reset", "REVIEW.md")},
		},
		{
			name: "force_implicit on a fork", output: "",
			policy: Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "JOIN"}}, ForceImplicit: true},
			want: parsing.Transition{
				Tag:   tag("fork", "WORKER.md", "next", "JOIN.md"),
				Forks: []parsing.Tag{tag("fork", "WORKER.md", "next", "JOIN.md")},
			},
		},
		{
			name: "fan-out beside a goto matches a fork rule naming that next", output: "<fork>WORKER</fork><fork>WORKER</fork><goto>JOIN</goto>",
			policy: Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "JOIN"}}},
			want: parsing.Transition{
				Tag:   tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{tag("fork", "WORKER.md"), tag("fork", "WORKER.md")},
			},
		},
		{
			name: "a fork rule leaving next free allows the goto spelling", output: "<fork>WORKER</fork><goto>JOIN</goto>",
			policy: Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER"}}},
			want: parsing.Transition{
				Tag:   tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{tag("fork", "WORKER.md")},
			},
		},
		{
			name: "implicit on no tag", output: "Looks good to me.", policy: implicitGoto,
			want: parsing.Transition{Tag: tag("goto", "REVIEW.md")},
		},
		{
			name: "implicit call on no tag", output: "",
			policy: Policy{Rules: []Rule{{Tag: "call", Target: "RESEARCH", Return: "SUMMARIZE.md"}}},
			want:   parsing.Transition{Tag: tag("call", "RESEARCH.md", "return", "SUMMARIZE.md")},
		},
		{
			name: "implicit result on no tag", output: "all set",
			policy: Policy{Rules: []Rule{{Tag: "result", Payload: ptr("done")}}},
			want:   parsing.Transition{Tag: tag("result", "done")},
		},
		{
			name: "implicit on an unclosed tag, which is no tag", output: "Next time I will <reset> first.", policy: implicitGoto,
			want: parsing.Transition{Tag: tag("goto", "REVIEW.md")},
		},
		{
			name: "a tag matching the implicit rule", output: "<goto>REVIEW.md</goto>", policy: implicitGoto,
			want: parsing.Transition{Tag: tag("goto", "REVIEW.md")},
		},
		{
			name: "empty result", output: "<result></result>", policy: Policy{Rules: []Rule{{Tag: "result"}}},
			want: parsing.Transition{Tag: tag("result", "")},
		},
		{
			name: "attributes kept, names resolved", output: `<call return="SUMMARIZE" input="topic">RESEARCH</call>`,
			policy: Policy{Rules: []Rule{{Tag: "call", Target: "RESEARCH.md", Return: "SUMMARIZE"}}},
			want:   parsing.Transition{Tag: tag("call", "RESEARCH.md", "return", "SUMMARIZE.md", "input", "topic")},
		},
		{
			name:   "fan-out with next",
			output: `<fork next="JOIN" item="a">WORKER</fork><fork next="JOIN" item="b">WORKER.md</fork>`,
			policy: Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "JOIN.md"}}},
			want: parsing.Transition{
				Tag: tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{
					tag("fork", "WORKER.md", "next", "JOIN.md", "item", "a"),
					tag("fork", "WORKER.md", "next", "JOIN.md", "item", "b"),
				},
			},
		},
		{
			name:   "fan-out, next with and without extension",
			output: `<fork next="JOIN.md" item="a">WORKER</fork><fork next="JOIN" item="b">WORKER</fork>`,
			policy: Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "JOIN"}}},
			want: parsing.Transition{
				Tag: tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{
					tag("fork", "WORKER.md", "next", "JOIN.md", "item", "a"),
					tag("fork", "WORKER.md", "next", "JOIN.md", "item", "b"),
				},
			},
		},
		{
			name:   "return on a fork is a variable, not a state",
			output: `<fork next="JOIN" return="later">WORKER</fork>`,
			want: parsing.Transition{
				Tag:   tag("fork", "WORKER.md", "next", "JOIN.md", "return", "later"),
				Forks: []parsing.Tag{tag("fork", "WORKER.md", "next", "JOIN.md", "return", "later")},
			},
		},
		{
			name:   "fan-out with goto",
			output: `<fork item="a">WORKER</fork> <fork item="b">WORKER</fork> <goto>JOIN</goto>`,
			policy: Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER"}, {Tag: "goto", Target: "JOIN"}}},
			want: parsing.Transition{
				Tag: tag("goto", "JOIN.md"),
				Forks: []parsing.Tag{
					tag("fork", "WORKER.md", "item", "a"),
					tag("fork", "WORKER.md", "item", "b"),
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &State{Name: "START.md", Policy: tt.policy}
			got, err := Decide(nil, scope, st, tt.output)
			must(t, err)
			if !sameTransition(got, tt.want) {
				t.Errorf("Decide =\n %+v\nwant\n %+v", got, tt.want)
			}
		})
	}
}

// sameTransition compares what matters of two transitions: where the tags
// were found in the text is not.
func sameTransition(a, b parsing.Transition) bool {
	strip := func(t parsing.Tag) parsing.Tag {
		return parsing.Tag{Name: t.Name, Target: t.Target, Payload: t.Payload, Attrs: t.Attrs}
	}
	if !reflect.DeepEqual(strip(a.Tag), strip(b.Tag)) || len(a.Forks) != len(b.Forks) {
		return false
	}
	for i := range a.Forks {
		if !reflect.DeepEqual(strip(a.Forks[i]), strip(b.Forks[i])) {
			return false
		}
	}
	return true
}

func TestDecideErrors(t *testing.T) {
	scope := decideScope(t)
	tests := []struct {
		name      string
		policy    Policy
		output    string
		parseKind parsing.ErrorKind
		target    TargetKind
		policyErr string // the message of a *PolicyError
	}{
		{name: "no tag, no policy", output: "done", parseKind: parsing.NoTag},
		{name: "no tag, free rule", output: "done", policy: Policy{Rules: []Rule{{Tag: "goto"}}}, parseKind: parsing.NoTag},
		{name: "no tag, two rules", output: "done", parseKind: parsing.NoTag,
			policy: Policy{Rules: []Rule{{Tag: "goto", Target: "A"}, {Tag: "goto", Target: "B"}}}},
		{name: "several tags", output: "<goto>REVIEW</goto><goto>DONE</goto>", parseKind: parsing.SeveralTags},
		{name: "unclosed without an implicit policy", output: "<goto>REVIEW", parseKind: parsing.Unclosed,
			policy: Policy{Rules: []Rule{{Tag: "goto", Target: "REVIEW"}, {Tag: "goto", Target: "DONE"}}}},
		{name: "missing target", output: "<goto>REVEIW</goto>", target: NotFound},
		{name: "missing return", output: `<call return="SUMARIZE">RESEARCH</call>`, target: NotFound},
		{name: "missing next", output: `<fork next="JION">WORKER</fork>`, target: NotFound},
		{name: "missing goto beside forks", output: `<fork>WORKER</fork><goto>JION</goto>`, target: NotFound},
		{name: "missing target of the implicit rule", output: "", target: NotFound,
			policy: Policy{Rules: []Rule{{Tag: "goto", Target: "GONE"}}}},
		{name: "ambiguous target", output: "<goto>BOTH</goto>", target: Ambiguous},
		{name: "ambiguous next beside the same next with extension", target: Ambiguous,
			output: `<fork next="BOTH.md">WORKER</fork><fork next="BOTH">WORKER</fork>`},
		{
			name: "tag must match the implicit rule", output: "<goto>DONE</goto>",
			policy:    Policy{Rules: []Rule{{Tag: "goto", Target: "REVIEW"}}},
			policyErr: "<goto>DONE.md</goto> is not one of the transitions START.md allows",
		},
		{
			name: "other tag name", output: "<reset>REVIEW</reset>",
			policy:    Policy{Rules: []Rule{{Tag: "goto", Target: "REVIEW"}}},
			policyErr: "<reset>REVIEW.md</reset> is not one of the transitions START.md allows",
		},
		{
			name: "other return", output: `<call return="DONE">RESEARCH</call>`,
			policy:    Policy{Rules: []Rule{{Tag: "call", Target: "RESEARCH", Return: "SUMMARIZE"}}},
			policyErr: `<call return="DONE.md">RESEARCH.md</call> is not one of the transitions START.md allows`,
		},
		{
			name: "other payload", output: "<result>maybe</result>",
			policy:    Policy{Rules: []Rule{{Tag: "result", Payload: ptr("done")}}},
			policyErr: "<result>maybe</result> is not one of the transitions START.md allows",
		},
		{
			name:      "fan-out, one fork not allowed",
			output:    `<fork next="JOIN">WORKER</fork><fork next="JOIN">OTHER</fork>`,
			policy:    Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "JOIN"}}},
			policyErr: `<fork next="JOIN.md">OTHER.md</fork> is not one of the transitions START.md allows`,
		},
		{
			name:      "fan-out beside a goto, the fork rule names another next",
			output:    `<fork>WORKER</fork><fork>WORKER</fork><goto>JOIN</goto>`,
			policy:    Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "REVIEW"}, {Tag: "goto", Target: "JOIN"}}},
			policyErr: `<fork next="JOIN.md">WORKER.md</fork> is not one of the transitions START.md allows`,
		},
		{
			name:      "single fork beside a goto, the fork rule names another next",
			output:    `<fork>WORKER</fork><goto>JOIN</goto>`,
			policy:    Policy{Rules: []Rule{{Tag: "fork", Target: "WORKER", Next: "REVIEW"}}},
			policyErr: `<fork next="JOIN.md">WORKER.md</fork> is not one of the transitions START.md allows`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &State{Name: "START.md", Policy: tt.policy}
			got, err := Decide(nil, scope, st, tt.output)
			if err == nil {
				t.Fatalf("Decide = %+v, want an error", got)
			}
			var pe *parsing.Error
			var te *TargetError
			var poe *PolicyError
			switch {
			case tt.parseKind != 0:
				if !errors.As(err, &pe) || pe.Kind != tt.parseKind {
					t.Errorf("got %v, want a %v *parsing.Error", err, tt.parseKind)
				}
			case tt.target != 0:
				if !errors.As(err, &te) || te.Kind != tt.target {
					t.Errorf("got %v, want a %v *TargetError", err, tt.target)
				}
			default:
				if !errors.As(err, &poe) || poe.Error() != tt.policyErr {
					t.Errorf("got %v, want a *PolicyError %q", err, tt.policyErr)
				}
			}
		})
	}
}

func TestResolveTransitionCopiesAttributes(t *testing.T) {
	tr, err := parsing.Parse(`<call return="SUMMARIZE">RESEARCH</call>`)
	must(t, err)
	parsed := tr
	must(t, resolveTransition(nil, decideScope(t), &tr))
	if parsed.Tag.Attrs[0].Value != "SUMMARIZE" || tr.Tag.Attrs[0].Value != "SUMMARIZE.md" {
		t.Errorf("return: parsed %q, resolved %q", parsed.Tag.Attrs[0].Value, tr.Tag.Attrs[0].Value)
	}
}

func TestDecideForceImplicitWithoutImplicitRule(t *testing.T) {
	st := &State{Name: "X.md", Policy: Policy{Rules: []Rule{{Tag: "goto"}}, ForceImplicit: true}}
	_, err := Decide(nil, decideScope(t), st, "<goto>REVIEW</goto>")
	wantErrContains(t, err, "X.md: force_implicit is set but the policy has no implicit transition")
}
