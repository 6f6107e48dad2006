//go:build unix

package project

import (
	"io/fs"
	"os"
	"syscall"
)

// foreignOwner returns the owner of fi and whether that is another user than
// the one running raymond (root owns nothing of another's by this test: it
// is the user running it that counts).
func foreignOwner(fi fs.FileInfo) (uid int, foreign bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), int(st.Uid) != os.Geteuid()
}
