package parsing

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ValidTarget checks that name can only mean a file directly inside the
// workflow folder: it is not empty or blank (EmptyTarget), and it has no '/'
// or '\', is not "." or "..", does not start with '~', holds no control
// character (NUL included) and is valid UTF-8 (UnsafeTarget). The error is an
// *Error. It does not look at the file system.
func ValidTarget(name string) error {
	kind, why := nameProblem(name)
	switch kind {
	case 0:
		return nil
	case EmptyTarget:
		return &Error{Kind: EmptyTarget, Msg: "target is empty"}
	}
	return &Error{Kind: kind, Msg: fmt.Sprintf("target %q %s", name, why)}
}

// SameState reports whether a and b name the same state once resolved in a
// scope: they are equal, or one of them omits the extension (.md or .sh)
// and the other is the same name with or without it ("JOIN" and "JOIN.md",
// but not "JOIN.md" and "JOIN.sh"). When both resolve, they resolve to the
// same file: an extension-less name whose .md and .sh both exist is
// ambiguous, and does not resolve at all.
func SameState(a, b string) bool {
	if hasStateExt(a) && hasStateExt(b) {
		return a == b
	}
	return stateStem(a) == stateStem(b)
}

// hasStateExt reports whether name ends in a state extension.
func hasStateExt(name string) bool {
	return strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".sh")
}

// stateStem strips a state extension from name, if it has one.
func stateStem(name string) string {
	if s, ok := strings.CutSuffix(name, ".md"); ok {
		return s
	}
	return strings.TrimSuffix(name, ".sh")
}

// nameProblem returns what is wrong with a state name, as an ErrorKind and a
// clause ("contains \"/\""), or 0 and "" when nothing is.
//
// Invalid UTF-8 is refused although the protocol does not name it: a run's
// state is JSON, which would silently turn such a name into another one.
func nameProblem(name string) (ErrorKind, string) {
	switch {
	case strings.TrimSpace(name) == "":
		return EmptyTarget, "is empty"
	case strings.ContainsRune(name, '/'):
		return UnsafeTarget, `contains "/"`
	case strings.ContainsRune(name, '\\'):
		return UnsafeTarget, `contains "\"`
	case name == "." || name == "..":
		return UnsafeTarget, "names a folder"
	case strings.HasPrefix(name, "~"):
		return UnsafeTarget, `starts with "~"`
	case !utf8.ValidString(name):
		return UnsafeTarget, "is not valid UTF-8"
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return UnsafeTarget, fmt.Sprintf("contains the control character %U", r)
		}
	}
	return 0, ""
}

// ValidSpecifier checks the body of a cross-workflow tag, a workflow
// specifier (§14.1): it is not empty or blank (EmptyTarget), holds no NUL
// byte and is valid UTF-8 (UnsafeTarget). The path safety of targets does
// not apply: a specifier may hold '/', '\' and "..". Whether it names
// anything is for the workflow package to say. The error is an *Error.
func ValidSpecifier(spec string) error {
	kind, why := specifierProblem(spec)
	switch kind {
	case 0:
		return nil
	case EmptyTarget:
		return &Error{Kind: EmptyTarget, Msg: "workflow specifier is empty"}
	}
	return &Error{Kind: kind, Msg: fmt.Sprintf("workflow specifier %q %s", spec, why)}
}

// specifierProblem is nameProblem for a workflow specifier.
func specifierProblem(spec string) (ErrorKind, string) {
	switch {
	case strings.TrimSpace(spec) == "":
		return EmptyTarget, "is empty"
	case strings.IndexByte(spec, 0) >= 0:
		return UnsafeTarget, "contains a NUL byte"
	case !utf8.ValidString(spec):
		return UnsafeTarget, "is not valid UTF-8"
	}
	return 0, ""
}
