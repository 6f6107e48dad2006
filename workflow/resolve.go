package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

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

// Resolve returns the file name of the state that target names in the
// scope: "REVIEW" → "REVIEW.md" (or "REVIEW.sh"), "REVIEW.md" → "REVIEW.md".
// A name that can only mean a .bat or .ps1 file is a TargetError asking for
// the .sh (§11.1).
// Errors about the target itself are *TargetError; an error reading the scope
// is a *UseError, which fails the agent without a reminder.
func (s *Scope) Resolve(target string) (string, error) {
	if err := parsing.ValidTarget(target); err != nil {
		return "", &TargetError{Kind: Unsafe, Target: target,
			Msg: fmt.Sprintf("%v; a target is the name of a file in the workflow folder", err)}
	}

	if isWindowsScript(target) {
		return "", s.windowsOnly(target, target)
	}
	candidates := []string{target}
	if !hasStateExt(target) {
		candidates = []string{target + mdExt, target + shExt}
	}
	var found []string
	for _, name := range candidates {
		ok, err := s.exists(target, name)
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
	for _, ext := range []string{batExt, ps1Ext} {
		if ok, err := s.exists(target, target+ext); err == nil && ok {
			return "", s.windowsOnly(target, target+ext)
		}
	}
	if fi, err := s.stat(target, target); err == nil && fi.IsDir() {
		return "", &TargetError{Kind: NotAState, Target: target,
			Msg: fmt.Sprintf("target %q is not a state: it is a folder", target)}
	}
	if _, err := s.stat(target, target); err == nil && filepath.Ext(target) != "" {
		return "", &TargetError{Kind: NotAState, Target: target,
			Msg: fmt.Sprintf("target %q is not a state: a state is a .md or .sh file", target)}
	}
	return "", &TargetError{Kind: NotFound, Target: target,
		Msg: fmt.Sprintf("target %q does not exist: no %s or %s in the workflow", target, candidates[0], candidates[1])}
}

// exists reports whether name exists in the scope as a regular file
// (possibly through symlinks that stay inside it). A file that exists but
// escapes the scope, or is a folder, is an error.
func (s *Scope) exists(target, name string) (bool, error) {
	fi, err := s.stat(target, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if _, ok := errors.AsType[*TargetError](err); ok {
		return false, err
	}
	if err != nil {
		// The scope cannot be read (a YAML file made invalid since the run
		// started, a folder gone unreadable): no answer can fix that, so
		// it fails the agent instead of bringing a reminder (§12, §14.3).
		return false, &UseError{Spec: target, Err: err}
	}
	if err := regular(target, name, fi); err != nil {
		return false, err
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

// windowsOnly is the error for a target that can only mean the Windows
// script file (§11.1).
func (s *Scope) windowsOnly(target, file string) error {
	sh := strings.TrimSuffix(strings.TrimSuffix(file, batExt), ps1Ext) + shExt
	return &TargetError{Kind: NotAState, Target: target,
		Msg: fmt.Sprintf("target %q means %s, a Windows script, which does not run here; write %s and go to it", target, file, sh)}
}

// isWindowsScript reports whether name ends in .bat or .ps1.
func isWindowsScript(name string) bool {
	return strings.HasSuffix(name, batExt) || strings.HasSuffix(name, ps1Ext)
}

// outside is the error for a target whose file lies outside the scope.
func outside(target string) error {
	return &TargetError{Kind: OutsideScope, Target: target,
		Msg: fmt.Sprintf("target %q leads outside the workflow folder", target)}
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
