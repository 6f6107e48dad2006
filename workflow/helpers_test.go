package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The tests use the standard library only: testify's assert package needs
// go.yaml.in/yaml/v3, which go.sum does not list.

// writeScope creates a temporary folder holding files (name → content; a
// name ending in / makes a folder) and returns its path.
func writeScope(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			must(t, os.MkdirAll(path, 0o755))
			continue
		}
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, []byte(content), 0o644))
	}
	return dir
}

// openScope opens the folder dir as a scope, closed when the test ends.
func openScope(t *testing.T, dir string) *Scope {
	t.Helper()
	s, err := OpenDir(dir)
	must(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// symlink makes link (relative to dir) point at target, as written.
func symlink(t *testing.T, dir, target, link string) {
	t.Helper()
	must(t, os.Symlink(target, filepath.Join(dir, link)))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// wantErrContains fails unless err is non-nil and its message holds every
// one of wants.
func wantErrContains(t *testing.T, err error, wants ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", wants)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}
