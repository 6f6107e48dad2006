package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// skipDirs are folders Find never looks in, besides hidden ones (.git,
// .raymond): dependencies, and test fixtures (deliberately broken
// workflows).
var skipDirs = []string{"node_modules", "vendor", "testdata"}

// Skipped reports whether Find passes over a file or folder of this base
// name: a hidden one (.git, .raymond, an editor's swap file), or a folder
// of dependencies or test fixtures (node_modules, vendor, testdata).
func Skipped(name string) bool {
	return strings.HasPrefix(name, ".") || slices.Contains(skipDirs, name)
}

// yamlStates matches a YAML workflow's top-level states: key.
var yamlStates = regexp.MustCompile(`(?m)^states:`)

// Find returns the workflows at or under path. A path that is a workflow
// itself is the one result: a folder with an entry state (1_START or
// START, .md or .sh), a states/ folder holding one, or a manifest
// (workflow.yaml); a YAML workflow file (a .yaml or .yml with a top-level
// states: key, not a .test.yaml); a .zip archive. Otherwise Find walks the
// folder and returns every such workflow in it, in lexical order, passing
// over what Skipped names and not looking inside a workflow (the
// workflows a workflow holds are reached through its tags). Folders it
// cannot read are left out, and their errors joined into the error
// returned with what was found; the error alone is returned when path
// itself cannot be read.
func Find(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("find workflows: %w", err)
	}
	if !fi.IsDir() {
		if isWorkflowFile(path, fs.FileInfoToDirEntry(fi)) {
			return []string{path}, nil
		}
		return nil, nil
	}
	if IsWorkflowDir(path) {
		return []string{path}, nil
	}
	if _, err := os.ReadDir(path); err != nil {
		return nil, fmt.Errorf("find workflows: %w", err)
	}
	// WalkDir does not follow a link, even the one it starts from: walk
	// the folder a linked path names, and give the paths under path.
	walked := path
	if lfi, err := os.Lstat(path); err == nil && lfi.Mode()&fs.ModeSymlink != 0 {
		if walked, err = filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("find workflows: %w", err)
		}
	}
	var out []string
	var errs []error
	err = filepath.WalkDir(walked, func(p string, d fs.DirEntry, err error) error {
		if rel, rerr := filepath.Rel(walked, p); rerr == nil {
			p = filepath.Join(path, rel)
		}
		if err != nil {
			errs = append(errs, err)
			if d != nil && d.IsDir() && p != path {
				return filepath.SkipDir
			}
			return nil
		}
		if p == path {
			return nil
		}
		if Skipped(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if IsWorkflowDir(p) {
				out = append(out, p)
				return filepath.SkipDir
			}
			return nil
		}
		if isWorkflowFile(p, d) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return out, fmt.Errorf("find workflows: %w", errors.Join(errs...))
	}
	return out, nil
}

// IsWorkflowDir reports whether dir is a workflow folder: it holds an
// entry state or a manifest (workflow.yaml), or has a states/ folder
// holding an entry state (protocol §17).
func IsWorkflowDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil && fi.Mode().IsRegular() {
		return true
	}
	for _, d := range []string{dir, filepath.Join(dir, statesDir)} {
		for _, name := range []string{numberedStart + mdExt, plainStart + mdExt, numberedStart + shExt, plainStart + shExt} {
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() {
				return true
			}
		}
	}
	return false
}

// isWorkflowFile reports whether the file at path is a zip archive or a
// YAML workflow.
func isWorkflowFile(path string, d fs.DirEntry) bool {
	if !d.Type().IsRegular() {
		return false
	}
	name := strings.ToLower(d.Name())
	switch ext := filepath.Ext(name); {
	case ext == ".zip":
		return true
	case ext != ".yaml" && ext != ".yml" || strings.HasSuffix(name, ".test"+ext):
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && yamlStates.Match(data)
}
