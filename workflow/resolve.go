package workflow

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"raymond/parsing"
)

// State file extensions. A target written without one of them means the
// markdown state or the script state of that name.
const (
	mdExt = ".md"
	shExt = ".sh"
)

// TargetKind says why a target could not be resolved to a state file.
type TargetKind int

const (
	// NotFound: no state file of that name in the scope.
	NotFound TargetKind = iota + 1
	// Ambiguous: an extension-less name matches both NAME.md and NAME.sh.
	Ambiguous
	// OutsideScope: the file's real path (symlinks resolved) is not inside
	// the scope's real path.
	OutsideScope
	// NotAState: the name exists but is not a state (a folder, or a file
	// whose extension is neither .md nor .sh).
	NotAState
	// Unsafe: the name is not a bare file name (empty, contains a path
	// separator, is . or .., holds control characters).
	Unsafe
)

var targetKindNames = map[TargetKind]string{
	NotFound:     "not found",
	Ambiguous:    "ambiguous",
	OutsideScope: "outside scope",
	NotAState:    "not a state",
	Unsafe:       "unsafe",
}

// String returns the kind in words, e.g. "outside scope".
func (k TargetKind) String() string {
	if s, ok := targetKindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("TargetKind(%d)", int(k))
}

// TargetError reports a target that does not name a usable state in the
// scope. Msg is one lower-case sentence fit for a person or, in a reminder,
// for the model.
type TargetError struct {
	Kind   TargetKind
	Target string
	Msg    string
}

// Error returns Msg.
func (e *TargetError) Error() string { return e.Msg }

// Resolve returns the file name of the state that target names in scope:
// "REVIEW" → "REVIEW.md" (or "REVIEW.sh"), "REVIEW.md" → "REVIEW.md".
// Errors about the target itself are *TargetError; an error reading the scope
// is returned wrapped.
func Resolve(scope, target string) (string, error) {
	if err := parsing.ValidTarget(target); err != nil {
		return "", &TargetError{Kind: Unsafe, Target: target,
			Msg: fmt.Sprintf("%v; a target is the name of a file in the workflow folder", err)}
	}
	absScope, err := filepath.Abs(scope)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", target, err)
	}
	realScope, err := filepath.EvalSymlinks(absScope)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", target, err)
	}

	candidates := []string{target}
	if !hasStateExt(target) {
		candidates = []string{target + mdExt, target + shExt}
	}
	var found []string
	for _, name := range candidates {
		ok, err := inScope(absScope, realScope, target, name)
		if err != nil {
			return "", err
		}
		if ok {
			found = append(found, name)
		}
	}

	switch len(found) {
	case 1:
		return found[0], nil
	case 2:
		return "", &TargetError{Kind: Ambiguous, Target: target,
			Msg: fmt.Sprintf("target %q is ambiguous: both %s and %s exist; write the name with its extension", target, found[0], found[1])}
	}
	if hasStateExt(target) {
		return "", &TargetError{Kind: NotFound, Target: target,
			Msg: fmt.Sprintf("target %q does not exist in the workflow", target)}
	}
	if fi, err := os.Stat(filepath.Join(absScope, target)); err == nil && fi.IsDir() {
		return "", &TargetError{Kind: NotAState, Target: target,
			Msg: fmt.Sprintf("target %q is not a state: it is a folder", target)}
	}
	if _, err := os.Stat(filepath.Join(absScope, target)); err == nil && filepath.Ext(target) != "" {
		return "", &TargetError{Kind: NotAState, Target: target,
			Msg: fmt.Sprintf("target %q is not a state: a state is a .md or .sh file", target)}
	}
	return "", &TargetError{Kind: NotFound, Target: target,
		Msg: fmt.Sprintf("target %q does not exist: no %s or %s in the workflow", target, candidates[0], candidates[1])}
}

// inScope reports whether name exists in scope as a regular file (possibly
// through symlinks) whose real path lies inside realScope. A file that exists
// but escapes the scope, or is a folder, is an error.
func inScope(scope, realScope, target, name string) (bool, error) {
	path := filepath.Join(scope, name)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("resolve %s: %w", target, err)
	}
	if err := regular(target, name, fi); err != nil {
		return false, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return false, fmt.Errorf("resolve %s: %w", target, err)
	}
	if !within(realScope, real) {
		return false, outside(target)
	}
	return true, nil
}

// regular returns a NotAState error unless fi, the file name that target
// found, is a regular file: a folder is not a state, and a FIFO or a device
// would block or never end when read.
func regular(target, name string, fi fs.FileInfo) error {
	switch {
	case fi.Mode().IsRegular():
		return nil
	case fi.IsDir():
		return &TargetError{Kind: NotAState, Target: target,
			Msg: fmt.Sprintf("target %q is not a state: %s is a folder", target, name)}
	}
	return &TargetError{Kind: NotAState, Target: target,
		Msg: fmt.Sprintf("target %q is not a state: %s is not a regular file", target, name)}
}

// outside is the error for a target whose file lies outside the scope.
func outside(target string) error {
	return &TargetError{Kind: OutsideScope, Target: target,
		Msg: fmt.Sprintf("target %q leads outside the workflow folder", target)}
}

// readInScope reads the state file name, which Resolve found in scope. It
// checks the file it opened, not just the path: the symlinks on the path
// may have changed since Resolve (another agent's work, an editor), and the
// content read must still come from a regular file inside the scope.
func readInScope(scope, name string) ([]byte, error) {
	path := filepath.Join(scope, name)
	// O_NONBLOCK keeps a FIFO put there since Resolve from blocking the
	// open; it changes nothing for a regular file.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(name, name, opened); err != nil {
		return nil, err
	}
	realScope, err := filepath.EvalSymlinks(scope)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if !within(realScope, real) {
		return nil, outside(name)
	}
	// The path resolves inside the scope now; the file opened must be the
	// one it resolves to, or a link moved between the open and the check.
	if fi, err := os.Stat(real); err != nil || !os.SameFile(opened, fi) {
		return nil, fmt.Errorf("%s changed while it was being read; run again", name)
	}
	return io.ReadAll(f)
}

// within reports whether path lies strictly inside dir; both are absolute
// and clean.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && rel != "."
}

// hasStateExt reports whether name ends in a state extension.
func hasStateExt(name string) bool {
	return strings.HasSuffix(name, mdExt) || strings.HasSuffix(name, shExt)
}

// stem strips a state extension from name, if it has one.
func stem(name string) string {
	if s, ok := strings.CutSuffix(name, mdExt); ok {
		return s
	}
	return strings.TrimSuffix(name, shExt)
}
