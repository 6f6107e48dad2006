package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Entry start states of a folder, in order of preference.
const (
	numberedStart = "1_START.md"
	plainStart    = "START.md"
)

// Entry opens the scope and finds the first state of a run started from
// path (§2): a markdown file is the first state and its folder the scope; a
// folder is the scope and its first state is 1_START.md, else START.md. The
// scope's Dir is absolute and clean; the state is a file name in it. The
// caller closes the scope.
func Entry(path string) (*Scope, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", fmt.Errorf("%s: no such file or folder; give a workflow folder or the state file to start from", path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}

	dir, state := abs, ""
	if !fi.IsDir() {
		dir, state = filepath.Dir(abs), filepath.Base(abs)
		switch filepath.Ext(state) {
		case mdExt:
		case shExt:
			return nil, "", fmt.Errorf("%s: script states are not supported yet; start from a .md state", path)
		default:
			return nil, "", fmt.Errorf("%s: not a state file; give a .md file or a workflow folder", path)
		}
	}
	scope, err := OpenDir(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	if fi.IsDir() {
		if state, err = scope.startState(path); err != nil {
			scope.Close()
			return nil, "", err
		}
	}
	name, err := scope.Resolve(state)
	if err != nil {
		scope.Close()
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return scope, name, nil
}

// startState picks the first state of the folder scope (shown to the user
// as path).
func (s *Scope) startState(path string) (string, error) {
	numbered, err := s.isFile(numberedStart)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	plain, err := s.isFile(plainStart)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case numbered && plain:
		return "", fmt.Errorf("%s: both %s and %s exist; give the state file to start from, e.g. raymond run %s",
			path, numberedStart, plainStart, filepath.Join(path, numberedStart))
	case numbered:
		return numberedStart, nil
	case plain:
		return plainStart, nil
	}
	example := "BEGIN.md"
	if states, err := s.States(); err == nil && len(states) > 0 {
		example = states[0]
	}
	return "", fmt.Errorf("%s: no %s or %s; give the state file to start from, e.g. raymond run %s",
		path, numberedStart, plainStart, filepath.Join(path, example))
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
