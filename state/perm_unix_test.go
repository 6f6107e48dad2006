//go:build unix

package state

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// withUmask runs the test under umask mask, the process's: the test must not
// run in parallel.
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// wantMode fails unless path has the permission bits want.
func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %04o, want %04o", filepath.Base(path), got, want)
	}
}

// TestPrivateFiles: the state folder is 0700 and what it holds 0600 whatever
// the umask, and a folder an older raymond left open is closed by the next
// driver.
func TestPrivateFiles(t *testing.T) {
	for _, mask := range []int{0, 0o022} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			withUmask(t, mask)
			dir := filepath.Join(t.TempDir(), ".raymond", "state")
			s, err := Open(dir)
			must(t, err)
			wantMode(t, dir, 0o700)

			r := fullRun("r1")
			must(t, s.Create(r))
			l, err := s.Lock("r1")
			must(t, err)
			j, err := s.Journal(r)
			must(t, err)
			must(t, j.Save(r))
			wantMode(t, s.Path("r1"), 0o600)
			wantMode(t, s.journalPath("r1"), 0o600)
			wantMode(t, s.lockPath("r1"), 0o600)
			must(t, j.Close())
			must(t, l.Release())
			wantMode(t, s.Path("r1"), 0o600)

			// An older raymond made the folder 0755: Open and Lock close it.
			must(t, os.Chmod(dir, 0o755))
			_, err = Open(dir)
			must(t, err)
			wantMode(t, dir, 0o700)
			must(t, os.Chmod(dir, 0o755))
			l, err = (&Store{Dir: dir}).Lock("r1")
			must(t, err)
			must(t, l.Release())
			wantMode(t, dir, 0o700)
		})
	}
}
