package lint

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// skipDirs are folders Find never looks in: version control, run output,
// dependencies, and test fixtures (deliberately broken workflows).
var skipDirs = []string{".git", ".raymond", "node_modules", "testdata"}

// yamlStates matches a YAML workflow's top-level states: key.
var yamlStates = regexp.MustCompile(`(?m)^states:`)

// Find returns the workflows under dir when dir is not a workflow itself
// (it has no entry state and no states/ folder): every folder with an entry
// state, and every YAML workflow file (a .yaml or .yml with a top-level
// states: key, not a test file). A workflow's own subfolders are not looked
// in: the workflows it reaches are linted through its tags. The result is
// nil when dir is a workflow, or holds none.
func Find(dir string) ([]string, error) {
	if isWorkflowDir(dir) {
		return nil, nil
	}
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == dir {
				return nil
			}
			if slices.Contains(skipDirs, d.Name()) {
				return filepath.SkipDir
			}
			if isWorkflowDir(path) {
				out = append(out, path)
				return filepath.SkipDir
			}
			return nil
		}
		if isYAMLWorkflow(path, d) {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}

// isWorkflowDir reports whether dir holds an entry state, or a states/
// folder that does (protocol §17).
func isWorkflowDir(dir string) bool {
	for _, d := range []string{dir, filepath.Join(dir, "states")} {
		for _, name := range []string{"1_START.md", "START.md", "1_START.sh", "START.sh"} {
			if fi, err := os.Stat(filepath.Join(d, name)); err == nil && !fi.IsDir() {
				return true
			}
		}
	}
	return false
}

// isYAMLWorkflow reports whether the file path is a YAML workflow.
func isYAMLWorkflow(path string, d fs.DirEntry) bool {
	name := strings.ToLower(d.Name())
	ext := filepath.Ext(name)
	if ext != ".yaml" && ext != ".yml" || strings.HasSuffix(name, ".test"+ext) || !d.Type().IsRegular() {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && yamlStates.Match(data)
}
