package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFixPaths puts in place a fixture made in another folder (a run left by
// an older raymond, with the fake claude's session store): in every file
// under $WORK it replaces @WORK@ by $WORK and @WORK_KEY@ by the name the fake
// gives $WORK's session folder, and it renames files and folders whose names
// hold @WORK_KEY@.
//
//	fixpaths
func cmdFixPaths(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: fixpaths")
	}
	work := ts.Getenv("WORK")
	// The fake names a cwd's session folder as the real CLI does: every
	// character that is not an ASCII letter or digit becomes "-".
	key := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, work)
	fix := strings.NewReplacer("@WORK@", work, "@WORK_KEY@", key)
	var renames []string
	ts.Check(filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), "@WORK_KEY@") {
			renames = append(renames, path)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if fixed := fix.Replace(string(data)); fixed != string(data) {
			return os.WriteFile(path, []byte(fixed), 0o644)
		}
		return nil
	}))
	// Children before their parents, so each path is still valid when its
	// turn comes.
	for _, path := range slices.Backward(renames) {
		ts.Check(os.Rename(path, filepath.Join(filepath.Dir(path), fix.Replace(filepath.Base(path)))))
	}
}
