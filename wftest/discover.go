package wftest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// TestFileSuffix ends the name of every test file Discover finds.
const TestFileSuffix = ".test.yaml"

// skipDirs are the folders Discover never walks into.
var skipDirs = []string{".git", ".raymond", "node_modules"}

// Discover returns the test files that paths name: a file is taken as it
// is, whatever its name; a folder is searched, with its subfolders, for
// files named *.test.yaml, leaving out .git, .raymond and node_modules. No
// paths means ".". Files come in the order of paths, each folder's in
// lexical order, each file once. A path that does not exist is an error
// that wraps fs.ErrNotExist.
func Discover(paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var files []string
	seen := make(map[string]bool)
	add := func(path string) {
		key, err := filepath.Abs(path)
		if err != nil {
			key = path
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, path)
		}
	}
	for _, root := range paths {
		fi, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("find test files: %w", err)
		}
		if !fi.IsDir() {
			add(root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != root && slices.Contains(skipDirs, d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(d.Name(), TestFileSuffix) && d.Type().IsRegular() {
				add(path)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("find test files in %s: %w", root, err)
		}
	}
	return files, nil
}
