package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"raymond/daemon"
)

// serveToken returns the API token of the project in projectDir, making
// it (32 random bytes, hex, in a new file of mode 0600) at the first start.
//
// The token is the key to running commands on this machine, so a token
// file whose token others may know is refused rather than used: one that
// group or others can read, one another user owns, one that is not a plain
// file (a symbolic link a repository could point anywhere), and one git
// tracks (a cloned repository chose it, whatever mode the clone gave it).
// A token shorter than minTokenLen is refused too: it can be guessed.
// Removing the file gets a new token.
func serveToken(projectDir string) (string, error) {
	path := filepath.Join(projectDir, ".raymond", daemon.TokenFile)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newToken(path)
	}
	if err != nil {
		return "", fmt.Errorf("read the API token: %w", err)
	}
	if err := trustToken(projectDir, path, fi); err != nil {
		return "", err
	}
	token, err := daemon.ReadToken(filepath.Dir(path))
	if err != nil {
		return "", fmt.Errorf("read the API token: %w", err)
	}
	if token == "" {
		// An empty file of our own, private: fill it.
		token, err = randomToken()
		if err == nil {
			err = os.WriteFile(path, []byte(token+"\n"), 0o600)
		}
		if err != nil {
			return "", fmt.Errorf("write the API token: %w", err)
		}
	}
	if len(token) < minTokenLen {
		return "", &usageError{msg: fmt.Sprintf("the token in %s has %d characters, too few to be safe from guessing (raymond makes 64)", path, len(token)),
			hint: "Remove it, and raymond serve makes a new one: rm " + path}
	}
	return token, nil
}

// minTokenLen is the shortest token raymond serve accepts from its file;
// the tokens it makes have 64 characters.
const minTokenLen = 32

// trustToken says why the token file at path, described by fi, may hold a
// token others know, or nil.
func trustToken(projectDir, path string, fi fs.FileInfo) error {
	return trustPrivate(projectDir, path, fi, private{what: "token", made: ", so raymond did not make it",
		renew:   "Remove it, and raymond serve makes a new token that only you can read: rm " + path,
		untrack: "Untrack and remove it (git rm " + path + "), and keep .raymond/ out of git (.gitignore); raymond serve then makes a new token."})
}

// private is what trustPrivate says of a file whose content must stay
// secret: what it holds, and what to do about a file refused.
type private struct {
	what    string // "token", "secret"
	made    string // why a link or a special file is refused, after its name
	renew   string // the hint for a file others may read
	untrack string // the hint for a file git tracks
}

// trustPrivate says why the file at path, described by fi, may hold a
// secret others know, or nil: a symbolic link (a repository could point
// it anywhere) or any file but a plain one, one another user owns, one
// group or others can read, one git tracks (a cloned repository chose it).
func trustPrivate(projectDir, path string, fi fs.FileInfo, p private) error {
	switch uid, owned := fileOwner(fi); {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &usageError{msg: fmt.Sprintf("%s is a symbolic link%s", path, p.made), hint: p.renew}
	case !fi.Mode().IsRegular():
		return &usageError{msg: fmt.Sprintf("%s is not a plain file%s", path, p.made), hint: p.renew}
	case owned && uid != os.Getuid():
		return &usageError{msg: fmt.Sprintf("%s belongs to another user (uid %d), who knows its %s", path, uid, p.what), hint: p.renew}
	case fi.Mode().Perm()&0o077 != 0:
		return &usageError{msg: fmt.Sprintf("%s can be read by other users (mode %04o), so its %s may be known", path, fi.Mode().Perm(), p.what), hint: p.renew}
	case gitTracks(projectDir, path):
		return &usageError{msg: fmt.Sprintf("%s is tracked by git, so whoever has the repository knows its %s", path, p.what), hint: p.untrack}
	}
	return nil
}

// gitTracks says whether git tracks path in the repository holding dir. No
// git, or no repository, is "no". The repository may be a stranger's
// clone: git runs with its file-system monitor off, the one setting of a
// repository's own config that would run a command for ls-files.
func gitTracks(dir, path string) bool {
	git, err := exec.LookPath("git")
	if err != nil {
		return false
	}
	cmd := exec.Command(git, "-C", dir, "--no-pager", "-c", "core.quotepath=off", "-c", "core.fsmonitor=false",
		"ls-files", "-z", "--full-name", "--error-unmatch", "--", path)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
	out, err := cmd.Output()
	return err == nil && len(bytes.TrimRight(out, "\x00")) > 0
}

// newToken makes a token in a new file at path, readable by its owner
// only.
func newToken(path string) (string, error) {
	token, err := randomToken()
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("write the API token: %w", err)
	}
	_, err = f.WriteString(token + "\n")
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(path)
		return "", fmt.Errorf("write the API token: %w", err)
	}
	return token, nil
}

// randomToken returns 32 random bytes in hex.
func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
