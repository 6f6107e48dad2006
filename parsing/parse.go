package parsing

import (
	"fmt"
	"strings"
)

// Parse returns the transition a step's final answer asks for, applying every
// rule of the protocol: exactly one transition tag or a valid multi-fork, the
// attributes each tag takes, and the path safety of targets and of return and
// next values. Errors are always an *Error; the checks run in that order, so
// the error names the most basic problem first.
func Parse(text string) (Transition, error) {
	sc := scanText(text)
	tags, err := sc.tags()
	if err != nil {
		return Transition{}, err
	}
	if len(tags) == 0 {
		if u := sc.unclosed; u != nil {
			name := u.Name
			if strings.HasPrefix(u.Raw, "<"+await) {
				name = await
			}
			return Transition{}, &Error{Kind: Unclosed, Tag: u.Raw,
				Msg: fmt.Sprintf("<%s> is never closed with </%s>", name, name)}
		}
		return Transition{}, &Error{Kind: NoTag, Msg: "the answer has no transition tag"}
	}
	for i := range tags {
		trimStateAttrs(&tags[i])
	}
	tr, perr := shape(tags)
	if perr != nil {
		return Transition{}, perr
	}
	for _, t := range tags {
		if perr := checkAttrs(t); perr != nil {
			return Transition{}, perr
		}
	}
	for _, t := range tags {
		if perr := checkNames(t); perr != nil {
			return Transition{}, perr
		}
	}
	for _, t := range tags {
		if perr := checkNUL(t); perr != nil {
			return Transition{}, perr
		}
		tr.Warnings = append(tr.Warnings, Warnings(t)...)
	}
	return tr, nil
}

// shape applies the exactly-one rule and the multi-fork rules (§5.6) to the
// tags of an answer, of which there is at least one. Fork and fork-workflow
// tags may be mixed in one fan-out.
func shape(tags []Tag) (Transition, *Error) {
	var forks, others []Tag
	for _, t := range tags {
		if Forks(t.Name) {
			forks = append(forks, t)
		} else {
			others = append(others, t)
		}
	}
	if len(forks) == 0 {
		if len(others) > 1 {
			return Transition{}, &Error{Kind: SeveralTags, Tag: others[1].Raw, Msg: fmt.Sprintf(
				"expected exactly one transition tag, but found %d: %s", len(others), list(others))}
		}
		return Transition{Tag: others[0]}, nil
	}

	var nexts []string
	for _, f := range forks {
		if next, ok := f.Attr("next"); ok {
			nexts = append(nexts, next)
		}
	}
	switch {
	case len(nexts) == len(forks):
		return forksWithNext(forks, others, nexts)
	case len(nexts) == 0:
		return forksWithGoto(forks, others)
	}
	return Transition{}, mismatch(forks[0], fmt.Sprintf(
		"either every %s names the same next or none does, but %d of %d forks do", forkWord(forks), len(nexts), len(forks)))
}

// forkWord names the tags of a fan-out for a message: "<fork>" or
// "<fork-workflow>" when they are all of one kind, else "fork".
func forkWord(forks []Tag) string {
	for _, f := range forks[1:] {
		if f.Name != forks[0].Name {
			return "fork"
		}
	}
	return "<" + forks[0].Name + ">"
}

// forksWithNext accepts forks that all name the same next and stand alone.
func forksWithNext(forks, others []Tag, nexts []string) (Transition, *Error) {
	if len(others) > 0 {
		return Transition{}, mismatch(forks[0], fmt.Sprintf(
			"a %s that names next must be the only kind of transition tag, but the answer also has %s", forkWord(forks), list(others)))
	}
	for _, n := range nexts[1:] {
		if !SameState(n, nexts[0]) {
			return Transition{}, mismatch(forks[0], fmt.Sprintf(
				"every %s must name the same next, but they name %q and %q", forkWord(forks), nexts[0], n))
		}
	}
	if len(forks) == 1 {
		return Transition{Tag: forks[0], Forks: forks}, nil
	}
	first := forks[0]
	return Transition{
		Tag:   Tag{Name: Goto, Target: nexts[0], Offset: first.Offset, Raw: first.Raw, Quoted: first.Quoted},
		Forks: forks,
	}, nil
}

// forksWithGoto accepts forks without next accompanied by exactly one goto.
func forksWithGoto(forks, others []Tag) (Transition, *Error) {
	if len(others) == 1 && others[0].Name == Goto {
		return Transition{Tag: others[0], Forks: forks}, nil
	}
	subject := "a " + forkWord(forks) + " without next"
	if len(forks) > 1 {
		subject = "forks without next"
	}
	if len(others) == 0 {
		return Transition{}, mismatch(forks[0], fmt.Sprintf(
			"%s must be accompanied by one <goto> saying where this agent continues (or give every %s next=\"STATE\")", subject, forkWord(forks)))
	}
	return Transition{}, mismatch(forks[0], fmt.Sprintf(
		"%s may only be accompanied by exactly one <goto>, but the answer has %s", subject, list(others)))
}

// mismatch makes a MultiForkMismatch error about the fan-out that starts
// with first.
func mismatch(first Tag, msg string) *Error {
	return &Error{Kind: MultiForkMismatch, Tag: first.Raw, Msg: msg}
}

// list describes tags for a message: each one shortened, comma-separated.
func list(tags []Tag) string {
	parts := make([]string, len(tags))
	for i, t := range tags {
		parts[i] = short(t.Raw)
	}
	return strings.Join(parts, ", ")
}
