package claude

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"raymond/claude/sessionfile"
)

// ErrNoSession is wrapped by LatestSession's error when Claude Code has no session
// for the directory.
var ErrNoSession = errors.New("no Claude Code session")

// ConfigDir is Claude Code's configuration folder: $CLAUDE_CONFIG_DIR, else
// ~/.claude.
func ConfigDir() (string, error) {
	if dir := os.Getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Abs(dir)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("find Claude Code's folder: %w; set CLAUDE_CONFIG_DIR", err)
	}
	return filepath.Join(home, ".claude"), nil
}

// ProjectDir is the folder where Claude Code keeps the sessions of working
// directory cwd: configDir (as ConfigDir gives it), projects/, then the folder
// named as the CLI names it (see [sessionfile.Folder]).
func ProjectDir(configDir, cwd string) string {
	return sessionfile.Dir(configDir, cwd)
}

// sessionFile matches the name of a session file: its id, a UUID, and .jsonl.
var sessionFile = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.jsonl$`)

// LatestSession is the id of the session Claude Code last wrote to in working
// directory cwd: the most recently modified <id>.jsonl in ProjectDir(configDir,
// cwd). configDir "" means ConfigDir(). When cwd has symbolic links in it and
// nothing is found under its name, the folder of its resolved path is tried too, as
// Claude Code names the folder after the directory it finds itself in. None found is
// an error wrapping ErrNoSession that says where it looked and what to do.
//
// skip, when not nil, passes over the sessions it reports: raymond's own,
// so that a run continues the person's conversation, not the last one a
// run made in the same folder.
func LatestSession(configDir, cwd string, skip func(id string) bool) (string, error) {
	if configDir == "" {
		var err error
		if configDir, err = ConfigDir(); err != nil {
			return "", err
		}
	}
	dirs := []string{ProjectDir(configDir, cwd)}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
		dirs = append(dirs, ProjectDir(configDir, real))
	}
	for _, dir := range dirs {
		id, err := newestSession(dir, skip)
		if err != nil || id != "" {
			return id, err
		}
	}
	return "", fmt.Errorf("%w in %s; start one with claude in %s first", ErrNoSession, tildePath(dirs[0]), cwd)
}

// newestSession is the id of the most recently modified session file in dir, ""
// when there is none (or no dir). Equal times go to the greater name, so the answer
// does not depend on the order of the listing.
func newestSession(dir string, skip func(string) bool) (string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look for Claude Code sessions: %w", err)
	}
	var best string
	var bestTime time.Time
	for _, e := range entries {
		if !e.Type().IsRegular() || !sessionFile.MatchString(e.Name()) {
			continue
		}
		if skip != nil && skip(strings.TrimSuffix(e.Name(), ".jsonl")) {
			continue
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the listing
		}
		if err != nil {
			return "", fmt.Errorf("look for Claude Code sessions: %w", err)
		}
		t := info.ModTime()
		if best == "" || t.After(bestTime) || t.Equal(bestTime) && e.Name() > best {
			best, bestTime = e.Name(), t
		}
	}
	return strings.TrimSuffix(best, ".jsonl"), nil
}

// tildePath writes path with the home folder as "~", as people write it.
func tildePath(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rel, err := filepath.Rel(home, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return filepath.Join("~", rel)
	}
	return path
}
