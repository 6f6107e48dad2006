package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
)

// Entry start states, in order of preference, each resolved like an
// extension-less target (§2).
const (
	numberedStart = "1_START"
	plainStart    = "START"
)

// Entry opens the scope and finds the first state of a run started from
// path, a workflow argument of raymond run (cli.md): a folder, a state in
// it, a YAML or zip file with an optional /STATE, or a pinned https URL
// (which needs a Scopes with a Fetcher; Entry has none). The scope's Dir is
// absolute and clean; the state is a file name in it. The caller closes the
// scope.
func Entry(path string) (*Scope, string, error) {
	return NewScopes(nil).Start(path)
}

// Entry returns the file name of the scope's first state: 1_START, else
// START, each resolved like an extension-less target (.md or .sh). Both, or
// neither, is an error naming the scope.
func (s *Scope) Entry() (string, error) {
	return s.entry(s.dir, "")
}

// entry is Entry with the scope shown to the user as path. spec is the
// specifier of the cross-workflow tag that enters the scope, "" at the
// start of a run: the hint of an error names a state to start at in the
// form the user writes, a tag's specifier or a raymond run argument.
func (s *Scope) entry(path, spec string) (string, error) {
	hint := func(state string) string {
		if spec != "" {
			return "name the state to start at in the tag, e.g. " + strings.TrimRight(spec, `/\`) + "/" + state
		}
		return "give the state file to start from, e.g. raymond run " + filepath.Join(path, state)
	}
	startErr := func(name string, err error) error {
		if te, ok := errors.AsType[*TargetError](err); ok && te.Kind == Ambiguous {
			return fmt.Errorf("%s: both %s and %s exist; %s", path, name+mdExt, name+shExt, hint(name+mdExt))
		}
		return fmt.Errorf("%s: %w", path, err)
	}
	numbered, err := s.startFile(numberedStart)
	if err != nil {
		return "", startErr(numberedStart, err)
	}
	plain, err := s.startFile(plainStart)
	if err != nil {
		return "", startErr(plainStart, err)
	}
	switch {
	case numbered != "" && plain != "":
		return "", fmt.Errorf("%s: both %s and %s exist; %s", path, numbered, plain, hint(numbered))
	case numbered != "":
		return numbered, nil
	case plain != "":
		return plain, nil
	}
	if states, err := s.States(); err == nil && len(states) > 0 {
		return "", fmt.Errorf("%s: no %s or %s%s; %s", path, numberedStart+mdExt, plainStart+mdExt, s.zipLayout(), hint(states[0]))
	}
	// No state at all: a made-up state to start from would send a new
	// user after a file that is not there.
	return "", fmt.Errorf("%s: no %s or %s%s, and no other state: a workflow is a folder of states (.md prompts, .sh scripts); write %s, the state a run starts at",
		path, numberedStart+mdExt, plainStart+mdExt, s.zipLayout(), plainStart+mdExt)
}

// zipLayout says, for a zip scope, which folder of the archive was taken as
// the workflow's folder and which folders below it are ignored (§13.1):
// states two folders down are a common packing mistake.
func (s *Scope) zipLayout() string {
	if s.kind != Zip {
		return ""
	}
	where := "at the zip's root, which holds the workflow's states"
	if s.zipTop != "" {
		where = fmt.Sprintf("in %s/, the zip's one top-level folder, which holds the workflow's states", s.zipTop)
	}
	entries, _ := fs.ReadDir(s.fsys, ".")
	var dirs []string
	for _, e := range entries {
		if e.IsDir() && !ignoredEntry(e.Name()) {
			dirs = append(dirs, e.Name()+"/")
		}
	}
	if len(dirs) == 0 {
		return " " + where
	}
	return fmt.Sprintf(" %s; the folders in it (%s) are ignored", where, strings.Join(dirs, ", "))
}

// startFile returns the file the start state name resolves to, or "" when
// there is none (nothing of that name, or only folders).
func (s *Scope) startFile(name string) (string, error) {
	file, err := s.Resolve(name)
	te, ok := errors.AsType[*TargetError](err)
	switch {
	case err == nil:
		return file, nil
	case !ok:
		return "", err
	case te.Kind == NotFound:
		return "", nil
	case te.Kind == NotAState:
		for _, ext := range []string{batExt, ps1Ext} {
			if ok, _ := s.exists(name, name+ext); ok {
				return "", err
			}
		}
		return "", nil
	}
	return "", err
}

// isFile reports whether name exists in the scope and is not a folder.
func (s *Scope) isFile(name string) (bool, error) {
	fi, err := s.stat(name, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if _, ok := errors.AsType[*TargetError](err); ok {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return !fi.IsDir(), nil
}

// States returns the file names of the states in the scope (.md and .sh
// files, symlinks to files included), sorted.
func (s *Scope) States() ([]string, error) {
	if s.yaml != nil {
		wf, err := s.yaml.load()
		if err != nil {
			return nil, fmt.Errorf("list states: %w", err)
		}
		var names []string
		for name := range wf.states {
			if hasStateExt(name) {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		return names, nil
	}
	entries, err := fs.ReadDir(s.fsys, ".")
	if err != nil {
		return nil, fmt.Errorf("list states: %w", err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if !hasStateExt(name) || stem(name) == "" {
			continue
		}
		if ok, err := s.isFile(name); err != nil || !ok {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}
