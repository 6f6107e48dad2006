//go:build unix

package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFindRefusesAnotherUsersRaymond: a .raymond folder that another user
// made (anyone can, in /tmp) never takes a user's runs; one of the user's
// own below it still does.
func TestFindRefusesAnotherUsersRaymond(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a folder to another user needs root")
	}
	root := t.TempDir()
	skipIfMarkedAbove(t, root)
	shared := filepath.Join(root, "shared")
	work := filepath.Join(shared, "work")
	if err := os.MkdirAll(filepath.Join(shared, ".raymond"), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(filepath.Join(shared, ".raymond"), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := Find(work)
	if err == nil || !strings.Contains(err.Error(), "belongs to another user (uid 65534)") {
		t.Fatalf("Find under another user's .raymond: got %v, want a refusal", err)
	}
	if err := os.Mkdir(filepath.Join(work, ".raymond"), 0o700); err != nil {
		t.Fatal(err)
	}
	if got, err := Find(work); err != nil || got != work {
		t.Fatalf("Find with a .raymond of one's own: got %q, %v; want %q", got, err, work)
	}
}
