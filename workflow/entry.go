package workflow

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// Entry start states of a folder, in order of preference.
const (
	numberedStart = "1_START.md"
	plainStart    = "START.md"
)

// Entry returns the scope and the first state of a run started from path
// (§2): a markdown file is the first state and its folder the scope; a folder
// is the scope and its first state is 1_START.md, else START.md. The scope is
// absolute and clean; the state is a file name in it.
func Entry(path string) (scope, state string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(abs)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", fmt.Errorf("%s: no such file or folder; give a workflow folder or the state file to start from", path)
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}

	if !fi.IsDir() {
		scope, state = filepath.Dir(abs), filepath.Base(abs)
		switch filepath.Ext(state) {
		case mdExt:
		case shExt:
			return "", "", fmt.Errorf("%s: script states are not supported yet; start from a .md state", path)
		default:
			return "", "", fmt.Errorf("%s: not a state file; give a .md file or a workflow folder", path)
		}
	} else {
		scope = abs
		if state, err = startState(path, abs); err != nil {
			return "", "", err
		}
	}

	name, err := Resolve(scope, state)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", path, err)
	}
	return scope, name, nil
}

// startState picks the first state of the folder dir (shown to the user as
// path).
func startState(path, dir string) (string, error) {
	numbered, err := isFile(filepath.Join(dir, numberedStart))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	plain, err := isFile(filepath.Join(dir, plainStart))
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
	if states, err := States(dir); err == nil && len(states) > 0 {
		example = states[0]
	}
	return "", fmt.Errorf("%s: no %s or %s; give the state file to start from, e.g. raymond run %s",
		path, numberedStart, plainStart, filepath.Join(path, example))
}

// isFile reports whether path exists and is not a folder.
func isFile(path string) (bool, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !fi.IsDir(), nil
}

// States returns the file names of the states in scope (.md and .sh files,
// symlinks to files included), sorted.
func States(scope string) ([]string, error) {
	entries, err := os.ReadDir(scope)
	if err != nil {
		return nil, fmt.Errorf("list states: %w", err)
	}
	var names []string
	for _, e := range entries {
		name := e.Name()
		if !hasStateExt(name) || stem(name) == "" {
			continue
		}
		if ok, err := isFile(filepath.Join(scope, name)); err != nil || !ok {
			continue
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}
