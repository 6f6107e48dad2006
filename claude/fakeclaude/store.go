package fakeclaude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// Files kept in FAKE_CLAUDE_DIR.
const (
	lockFile     = ".lock"
	repliesFile  = "replies.json"
	callsFile    = "calls.jsonl"
	projectsPath = "projects"
)

// Session is one conversation in the fake's session store, as a test may inspect it
// with LoadSession.
type Session struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	// ForkedFrom is the session this one was branched from with --fork-session.
	ForkedFrom string `json:"forked_from,omitempty"`
	// CostUSD is the cumulative cost of the session's lineage: every call made in it
	// and, for a branch, in its parent up to the branch point.
	CostUSD      float64 `json:"cost_usd"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	// History is the conversation: the prompts and the final result texts.
	History []Message `json:"history"`
}

// Message is one entry of a session's history.
type Message struct {
	Role string `json:"role"` // "user" or "assistant"
	Text string `json:"text"`
}

// errNoSession reports that a session id is not in the store for this cwd.
var errNoSession = errors.New("no such session")

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// projectDir is the folder holding a cwd's sessions: the cwd with every character that
// is not an ASCII letter or digit replaced by "-", as the real CLI names it.
func projectDir(dir, cwd string) string {
	name := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' {
			return r
		}
		return '-'
	}, cwd)
	return filepath.Join(dir, projectsPath, name)
}

func sessionPath(dir, cwd, id string) string {
	return filepath.Join(projectDir(dir, cwd), id+".json")
}

// LoadSession reads session id as stored by a fake run in cwd with FAKE_CLAUDE_DIR dir.
func LoadSession(dir, cwd, id string) (*Session, error) {
	var s *Session
	err := withLock(dir, syscall.LOCK_SH, func() error {
		var err error
		s, err = loadSession(dir, cwd, id)
		return err
	})
	return s, err
}

// loadSession reads a session; the caller holds the lock. Ids that are not UUIDs are
// never found, so an id cannot name a path outside the store.
func loadSession(dir, cwd, id string) (*Session, error) {
	if !uuidPattern.MatchString(id) {
		return nil, errNoSession
	}
	var s Session
	if err := readJSON(sessionPath(dir, cwd, id), &s); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errNoSession
		}
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	return &s, nil
}

// sessionExists reports whether id is in use in cwd; the caller holds the lock.
func sessionExists(dir, cwd, id string) bool {
	_, err := os.Stat(sessionPath(dir, cwd, id))
	return err == nil
}

// saveSession writes a session; the caller holds the lock.
func saveSession(dir string, s *Session) error {
	if err := os.MkdirAll(projectDir(dir, s.Cwd), 0o755); err != nil {
		return fmt.Errorf("save session %s: %w", s.ID, err)
	}
	if err := writeJSON(sessionPath(dir, s.Cwd, s.ID), s); err != nil {
		return fmt.Errorf("save session %s: %w", s.ID, err)
	}
	return nil
}

// withLock runs fn holding an flock (how: syscall.LOCK_EX or LOCK_SH) on the lock file
// of dir. Every read-modify-write of the store, the reply state and the call log
// happens under it, because several fake processes run at once. Never sleep in fn.
func withLock(dir string, how int, fn func() error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer f.Close()
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}

// loadConsumption reads the reply state; missing is empty. The caller holds the lock.
func loadConsumption(dir string) (*consumption, error) {
	var c consumption
	err := readJSON(filepath.Join(dir, repliesFile), &c)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load reply state: %w", err)
	}
	return &c, nil
}

func saveConsumption(dir string, c *consumption) error {
	if err := writeJSON(filepath.Join(dir, repliesFile), c); err != nil {
		return fmt.Errorf("save reply state: %w", err)
	}
	return nil
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// writeJSON replaces path atomically, so a reader that does not take the lock never
// sees a torn file.
func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
