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

// Decide returns the transition the output of one step of st asks for.
//
// With force_implicit the output is not read and the implicit transition is
// taken. Otherwise the output is parsed; an output without a tag (an
// unclosed opening tag is none) takes the implicit transition when the
// policy has one (§6.3). Every target, and every return or next that names a
// state (parsing.StateAttr), is then resolved in scope, and the returned
// transition holds file names ("REVIEW" becomes "REVIEW.md"). When the
// policy is restricted, every tag must be allowed by it; a fan-out is checked
// fork by fork, a goto written beside forks counting as their next.
//
// Errors are a *parsing.Error, a *TargetError or a *PolicyError, returned as
// they are so that a caller can build a reminder from them.
func Decide(scope *Scope, st *State, output string) (parsing.Transition, error) {
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

	if err := resolveTransition(scope, &tr); err != nil {
		return parsing.Transition{}, err
	}
	if !p.Restricted() {
		return tr, nil
	}
	for _, t := range checked(tr) {
		if !p.Allows(t) {
			return parsing.Transition{}, &PolicyError{Tag: t,
				Msg: fmt.Sprintf("%s is not one of the transitions %s allows", describe(t), st.Name)}
		}
	}
	return tr, nil
}

// single makes the transition of one tag.
func single(t parsing.Tag) parsing.Transition {
	tr := parsing.Transition{Tag: t}
	if t.Name == parsing.Fork {
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

// resolveTransition replaces every state name in tr by its file name.
func resolveTransition(scope *Scope, tr *parsing.Transition) error {
	var err error
	if tr.Tag, err = resolveTag(scope, tr.Tag); err != nil {
		return err
	}
	forks := make([]parsing.Tag, len(tr.Forks))
	for i, f := range tr.Forks {
		if forks[i], err = resolveTag(scope, f); err != nil {
			return err
		}
	}
	if tr.Forks != nil {
		tr.Forks = forks
	}
	return nil
}

// resolveTag returns t with its target and state attributes resolved to file
// names. The attributes are copied, never changed in place.
func resolveTag(scope *Scope, t parsing.Tag) (parsing.Tag, error) {
	if t.Name != parsing.Result {
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
