package workflow

import (
	"errors"
	"fmt"
	"slices"

	"raymond/parsing"
)

// PolicyError reports a well-formed tag that the state's allowed_transitions
// do not allow.
type PolicyError struct {
	// Tag is the offending tag, its names resolved to file names.
	Tag parsing.Tag
	// Msg is one lower-case sentence for a person or the model.
	Msg string
}

// Error returns Msg.
func (e *PolicyError) Error() string { return e.Msg }

// Resolver finds what a workflow specifier names (§14.1): the scope it
// leads into and the file name of the state to start at there. Specifiers
// resolve from the scope of the agent that wrote them (from). An error that
// the specifier names nothing is a *TargetError; any other error keeps the
// target from use and fails the agent (§14.3).
type Resolver interface {
	Workflow(from *Scope, spec string) (*Scope, string, error)
}

// Decide returns the transition the output of one step of st asks for. A
// script's stdout is decided the same way, on a State whose policy is empty
// (§11.4).
//
// With force_implicit the output is not read and the implicit transition is
// taken. Otherwise the output is parsed; an output without a tag (an
// unclosed opening tag is none) takes the implicit transition when the
// policy has one (§6.3). Every target, and every return, next or
// timeout_next that names a state (parsing.StateAttr), is then resolved in
// scope, and the returned transition holds file names ("REVIEW" becomes
// "REVIEW.md"). The specifier of a cross-workflow tag is resolved by res:
// the tag's Scope is then the folder or file it leads into, and its Target
// the first state's file name there. A fan-out is resolved fork by fork
// and fails as a whole at the first fork that does not resolve.
//
// When the policy is restricted, every tag must be allowed by it; a fan-out
// is checked fork by fork, a goto written beside forks counting as their
// next. The target of a cross-workflow rule is resolved by res too and
// matches a tag that leads to the same scope and state (§6.1). An ask
// without a timeout takes that of the rule that allows it (§6.5), and
// Transition.Warnings says when its timeout_next cannot apply.
//
// Errors are a *parsing.Error, a *TargetError or a *PolicyError, returned as
// they are so that a caller can build a reminder from them, or an error of
// res, passed through unchanged. res may be nil while no cross-workflow tag
// shows up; one that does is then an error.
func Decide(res Resolver, scope *Scope, st *State, output string) (parsing.Transition, error) {
	p := st.Policy
	var tr parsing.Transition
	if p.ForceImplicit {
		tag, ok := p.Implicit()
		if !ok {
			return parsing.Transition{}, fmt.Errorf("%s: force_implicit is set but the policy has no implicit transition", st.Name)
		}
		tr = single(tag)
	} else {
		var err error
		tr, err = parsing.Parse(output)
		var perr *parsing.Error
		// An opening tag never closed is not a tag (§3.1): such an output
		// has no tag and takes the implicit transition like prose does.
		if errors.As(err, &perr) && (perr.Kind == parsing.NoTag || perr.Kind == parsing.Unclosed) {
			tag, ok := p.Implicit()
			if !ok {
				return parsing.Transition{}, err
			}
			tr, err = single(tag), nil
		}
		if err != nil {
			return parsing.Transition{}, err
		}
	}

	written := tr
	if err := resolveTransition(res, scope, &tr); err != nil {
		return parsing.Transition{}, err
	}
	if !p.Restricted() {
		return tr, nil
	}
	same := ruleTargets(res, scope)
	asWritten := checked(written)
	for i, t := range checked(tr) {
		r, ok := p.match(t, same)
		if !ok {
			// A cross-workflow tag is described by its specifier, as
			// written: the first state it resolved to says little.
			shown := t
			if parsing.CrossWorkflow(t.Name) {
				shown.Target = asWritten[i].Target
			}
			return parsing.Transition{}, &PolicyError{Tag: t,
				Msg: fmt.Sprintf("%s is not one of the transitions %s allows", describe(shown), st.Name)}
		}
		if t.Name == parsing.Ask {
			tr.Tag = askTimeout(tr.Tag, r)
			tr.Warnings = parsing.Warnings(tr.Tag)
		}
	}
	return tr, nil
}

// askTimeout gives the ask t the timeout of the rule r that allows it,
// when t has none of its own (§6.5).
func askTimeout(t parsing.Tag, r Rule) parsing.Tag {
	if _, ok := t.Attr("timeout"); ok {
		return t
	}
	for _, a := range r.Attrs {
		if a.Key == "timeout" {
			t.Attrs = append(slices.Clip(t.Attrs), a)
		}
	}
	return t
}

// ruleTargets compares the target of a cross-workflow rule with a resolved
// tag by resolving it from the same scope: they match when both lead to
// the same scope and state. A rule whose target does not resolve matches
// nothing. Each rule target is resolved once per call of Decide.
func ruleTargets(res Resolver, scope *Scope) sameTarget {
	type place struct{ dir, state string }
	seen := make(map[string]*place)
	return func(r Rule, t parsing.Tag) bool {
		pl, ok := seen[r.Target]
		if !ok {
			if res != nil {
				if s, state, err := res.Workflow(scope, r.Target); err == nil {
					pl = &place{s.Dir(), state}
				}
			}
			seen[r.Target] = pl
		}
		return pl != nil && pl.dir == t.Scope && pl.state == t.Target
	}
}

// single makes the transition of one tag.
func single(t parsing.Tag) parsing.Transition {
	tr := parsing.Transition{Tag: t}
	if parsing.Forks(t.Name) {
		tr.Forks = []parsing.Tag{t}
	}
	return tr
}

// checked returns the tags of tr that the policy must allow. A fan-out is
// checked fork by fork, and its two spellings are equivalent (§5.6): forks
// without next beside <goto>J</goto> are checked as forks with next="J", so
// a rule {fork, W, next: J} allows both, and a rule {fork, W} that leaves
// next free allows the parent to continue anywhere in either spelling.
func checked(tr parsing.Transition) []parsing.Tag {
	if len(tr.Forks) == 0 {
		return []parsing.Tag{tr.Tag}
	}
	if _, ok := tr.Forks[0].Attr("next"); ok || tr.Tag.Name != parsing.Goto {
		return tr.Forks
	}
	forks := make([]parsing.Tag, len(tr.Forks))
	for i, f := range tr.Forks {
		f.Attrs = append(slices.Clip(f.Attrs), parsing.Attr{Key: "next", Value: tr.Tag.Target})
		forks[i] = f
	}
	return forks
}

// resolveTransition replaces every state name in tr by its file name, and
// every workflow specifier by the scope and state it names.
func resolveTransition(res Resolver, scope *Scope, tr *parsing.Transition) error {
	var err error
	if tr.Tag, err = resolveTag(res, scope, tr.Tag); err != nil {
		return err
	}
	forks := make([]parsing.Tag, len(tr.Forks))
	for i, f := range tr.Forks {
		if forks[i], err = resolveTag(res, scope, f); err != nil {
			return err
		}
	}
	if tr.Forks != nil {
		tr.Forks = forks
	}
	return nil
}

// resolveTag returns t with its target and state attributes resolved to file
// names; the state attributes of a cross-workflow tag name states of scope,
// the caller's. The attributes are copied, never changed in place.
func resolveTag(res Resolver, scope *Scope, t parsing.Tag) (parsing.Tag, error) {
	switch {
	case parsing.HasPayload(t.Name):
	case parsing.CrossWorkflow(t.Name):
		if res == nil {
			return parsing.Tag{}, fmt.Errorf("<%s>%s</%s>: cross-workflow tags need a workflow resolver, and none was given", t.Name, t.Target, t.Name)
		}
		to, state, err := res.Workflow(scope, t.Target)
		if err != nil {
			return parsing.Tag{}, err
		}
		// TODO(issue 11): set t.ScopeURL from to.URL() once Scope has it.
		t.Scope, t.Target = to.Dir(), state
	default:
		name, err := scope.Resolve(t.Target)
		if err != nil {
			return parsing.Tag{}, err
		}
		t.Target = name
	}
	attrs := slices.Clone(t.Attrs)
	for i, a := range attrs {
		if !parsing.StateAttr(t.Name, a.Key) {
			continue
		}
		name, err := scope.Resolve(a.Value)
		if err != nil {
			return parsing.Tag{}, err
		}
		attrs[i].Value = name
	}
	t.Attrs = attrs
	return t, nil
}
