//go:build unix

package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// statAs is the FileInfo of a plain file with mode perm owned by uid.
type statAs struct {
	perm fs.FileMode
	uid  int
}

func (s statAs) Name() string       { return "serve.token" }
func (s statAs) Size() int64        { return 65 }
func (s statAs) Mode() fs.FileMode  { return s.perm }
func (s statAs) ModTime() time.Time { return time.Time{} }
func (s statAs) IsDir() bool        { return false }
func (s statAs) Sys() any           { return &syscall.Stat_t{Uid: uint32(s.uid)} }

// TestTrustTokenOwner: a token file another user owns is refused even when
// only its owner can read it: that owner knows the token.
func TestTrustTokenOwner(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".raymond", "serve.token")
	me := os.Getuid()
	if err := trustToken(dir, path, statAs{perm: 0o600, uid: me}); err != nil {
		t.Errorf("a private token file of our own: %v", err)
	}
	err := trustToken(dir, path, statAs{perm: 0o600, uid: me + 1})
	if err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("a token file of uid %d: %v, want it refused as another user's", me+1, err)
	}
}
