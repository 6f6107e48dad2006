package parsing

import "fmt"

// ErrorKind says what was wrong with a step's output, so a caller can build a
// precise reminder.
type ErrorKind int

const (
	// NoTag: no transition tag at all.
	NoTag ErrorKind = iota + 1
	// SeveralTags: more than one transition tag outside a valid multi-fork.
	SeveralTags
	// Malformed: a tag whose syntax or attributes are wrong (duplicate attribute,
	// bad attribute syntax, self-closing tag, unknown attribute, attribute not
	// allowed on this tag, a NUL byte in an attribute or a payload).
	Malformed
	// Unclosed: no tag, but an opening transition tag without its closing tag.
	Unclosed
	// MissingAttr: a required attribute is absent (return on call/function).
	MissingAttr
	// EmptyTarget: a tag that needs a target has an empty or blank body, or a
	// return or next attribute is empty or blank.
	EmptyTarget
	// UnsafeTarget: a target, return or next that is not a bare file name
	// (contains / or \, is . or .., starts with ~, holds a NUL or another
	// control character, is not valid UTF-8).
	UnsafeTarget
	// MultiForkMismatch: forks that disagree on next, or that lack next
	// without exactly one accompanying goto, or that are mixed with other tags.
	// A single <fork> follows the same rules.
	MultiForkMismatch
)

var kindNames = map[ErrorKind]string{
	NoTag:             "no transition tag",
	SeveralTags:       "several transition tags",
	Malformed:         "malformed tag",
	Unclosed:          "unclosed tag",
	MissingAttr:       "missing attribute",
	EmptyTarget:       "empty target",
	UnsafeTarget:      "unsafe target",
	MultiForkMismatch: "multi-fork mismatch",
}

// String returns a short description of the kind, for logs.
func (k ErrorKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("ErrorKind(%d)", int(k))
}

// Error is a typed parse error. Msg is one lower-case sentence for a person
// (or the model, inside a reminder): what exactly was wrong.
type Error struct {
	Kind ErrorKind
	Msg  string
	// Tag is the offending tag as written, when there is one.
	Tag string
}

// Error returns Msg.
func (e *Error) Error() string { return e.Msg }
