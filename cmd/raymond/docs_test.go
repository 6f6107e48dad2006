package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repoRoot is the repository's root, from this package's folder.
const repoRoot = "../.."

// workflowPath is a path under workflows/ as the docs write one.
var workflowPath = regexp.MustCompile(`(^|[^A-Za-z0-9_./-])(workflows/[A-Za-z0-9_./-]*[A-Za-z0-9_])`)

// TestDocsNameWorkflowsThatExist: every workflows/… path the README and
// the docs give exists in the repository (or, for a link, beside the
// page), but workflows/hello, which
// raymond init writes, where the docs speak of init at most eight lines before
// (cli_init.txtar runs what they say of it).
func TestDocsNameWorkflowsThatExist(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	more, _ := filepath.Glob(filepath.Join(repoRoot, "docs", "workflows", "*.md"))
	files = append(append(files, more...), filepath.Join(repoRoot, "README.md"), filepath.Join(repoRoot, "workflows", "README.md"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			for _, m := range workflowPath.FindAllStringSubmatch(line, -1) {
				p := m[2]
				if (p == "workflows/hello" || strings.HasPrefix(p, "workflows/hello/")) &&
					strings.Contains(strings.Join(lines[max(0, i-8):i+1], "\n"), "init") {
					continue // said to be made by raymond init
				}
				if _, err := os.Stat(filepath.Join(filepath.Dir(f), p)); err == nil {
					continue // a link relative to the page
				}
				if _, err := os.Stat(filepath.Join(repoRoot, p)); err != nil {
					t.Errorf("%s:%d names %s, which does not exist", f, i+1, p)
				}
			}
		}
	}
}

// TestReadmeNamesEveryChromiumTest: the README says which tests need
// Chromium; a new one must be named there too.
func TestReadmeNamesEveryChromiumTest(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_chromium_test.go") {
			n++
			rel, _ := filepath.Rel(repoRoot, path)
			if !strings.Contains(string(readme), "`"+filepath.ToSlash(rel)+"`") {
				t.Errorf("README.md does not name %s among the tests that open Chromium", rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("found no Chromium test: the walk is blind")
	}
}

// TestExamplesAreListed: workflows/examples/README.md lists every example
// folder, which workflows/README.md points to.
func TestExamplesAreListed(t *testing.T) {
	dir := filepath.Join(repoRoot, "workflows", "examples")
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.Contains(string(readme), "["+e.Name()+"]("+e.Name()+"/)") {
			t.Errorf("workflows/examples/README.md does not list %s", e.Name())
		}
	}
	top, err := os.ReadFile(filepath.Join(repoRoot, "workflows", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(top), "(examples/README.md)") {
		t.Error("workflows/README.md does not point to examples/README.md")
	}
}
