package fakeclaude

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Files kept in FAKE_CLAUDE_DIR.
const (
	lockFile    = ".lock"
	repliesFile = "replies.json"
	callsFile   = "calls.jsonl"
)

// withLock runs fn holding an flock (how: syscall.LOCK_EX or LOCK_SH) on the lock file
// of dir (a FAKE_CLAUDE_DIR). Every read-modify-write of the reply state and the call
// log happens under it, because several fake processes run at once. Never sleep in fn.
func withLock(dir string, how int, fn func() error) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer f.Close()
	return flock(f, how, fn)
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
