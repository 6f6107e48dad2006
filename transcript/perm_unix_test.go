//go:build unix

package transcript

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestPrivateFiles: the transcript folders are 0700 and their files 0600
// whatever the umask, and folders an older raymond left open are closed when
// the run is driven again.
func TestPrivateFiles(t *testing.T) {
	for _, mask := range []int{0, 0o022} {
		t.Run(fmt.Sprintf("umask %03o", mask), func(t *testing.T) {
			old := syscall.Umask(mask) // the process's: not in parallel
			defer syscall.Umask(old)
			debug := filepath.Join(t.TempDir(), ".raymond", "debug")
			dir := filepath.Join(debug, "r1")
			w := Open(dir, noWarn(t))
			w.Event(Event{Type: EventRunStarted})
			w.Transition(Transition{Agent: "main", From: "A.md", To: "B.md", Tag: "goto"})
			s := w.Step("main_A_001")
			s.Prompt("a secret prompt")
			s.Line([]byte(`{"type":"system"}`))
			s.Close(Meta{Agent: "main"})
			must(t, w.Close())

			wantMode(t, debug, 0o700)
			wantMode(t, dir, 0o700)
			for _, name := range []string{EventsFile, TransitionsFile,
				"main_A_001.prompt.md", "main_A_001.jsonl", "main_A_001.meta.json"} {
				wantMode(t, filepath.Join(dir, name), 0o600)
			}

			// Folders an older raymond made 0755 are closed by the next Open.
			must(t, os.Chmod(debug, 0o755))
			must(t, os.Chmod(dir, 0o755))
			must(t, Open(dir, noWarn(t)).Close())
			wantMode(t, debug, 0o700)
			wantMode(t, dir, 0o700)
		})
	}
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
