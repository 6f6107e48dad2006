package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Find returns the absolute project folder for start (cli.md "Files"):
// the nearest folder from start upwards that already has a .raymond folder,
// else the root of the enclosing git repository (the nearest folder with a
// .git folder or file, as in a worktree), else start itself.
//
// The search for .raymond stops at the repository root: a .raymond folder
// above it (say a stray ~/.raymond) never captures a repository's runs. That
// refines cli.md, which would otherwise let one such folder swallow every
// repository beneath it.
func Find(start string) (string, error) {
	start, err := filepath.Abs(start)
	if err != nil {
		return "", fmt.Errorf("find project folder: %w", err)
	}
	for dir := start; ; {
		isRaymond, err := has(dir, ".raymond", true)
		if err != nil {
			return "", fmt.Errorf("find project folder: %w", err)
		}
		isRepo, err := has(dir, ".git", false)
		if err != nil {
			return "", fmt.Errorf("find project folder: %w", err)
		}
		if isRaymond {
			if err := ownRaymond(dir); err != nil {
				return "", err
			}
		}
		if isRaymond || isRepo {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return start, nil
		}
		dir = parent
	}
}

// ownRaymond refuses a .raymond folder in dir that belongs to another user:
// in a folder others may write to (/tmp), anyone could make one, and runs,
// prompts and answers would go into a folder they own.
func ownRaymond(dir string) error {
	fi, err := os.Stat(filepath.Join(dir, ".raymond"))
	if err != nil {
		return fmt.Errorf("find project folder: %w", err)
	}
	if uid, foreign := foreignOwner(fi); foreign {
		return fmt.Errorf("%s belongs to another user (uid %d), so raymond will not keep your runs there; name your own project folder with --project DIR, or work in a git repository",
			filepath.Join(dir, ".raymond"), uid)
	}
	return nil
}

// has reports whether dir holds name (a folder, or anything when dirOnly is
// false).
func has(dir, name string, dirOnly bool) (bool, error) {
	fi, err := os.Stat(filepath.Join(dir, name))
	switch {
	case err == nil:
		return fi.IsDir() || !dirOnly, nil
	case absent(err):
		return false, nil
	default:
		return false, err
	}
}

// absent reports whether a Stat error just means "not there for us".
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR)
}
