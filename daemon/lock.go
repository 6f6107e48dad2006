package daemon

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Info is what a running daemon says about itself in .raymond/serve.json,
// so that the command line (raymond answer, status) can find it.
type Info struct {
	PID     int       `json:"pid"`
	Addr    string    `json:"addr"`
	URL     string    `json:"url"`
	Started time.Time `json:"started"`
}

// ServeFiles are the daemon's files in a project's .raymond/ folder.
const (
	LockFile   = "serve.lock"
	InfoFile   = "serve.json"
	TokenFile  = "serve.token"
	SpendFile  = "serve-spend.json"
	ParkedFile = "serve-parked.json"
	// PausingFile lists the runs whose pause was accepted and whose
	// drive has not ended since.
	PausingFile = "serve-pausing.json"
)

// LockedError is a second daemon started in a project that has one.
type LockedError struct {
	PID  int
	Addr string
}

func (e *LockedError) Error() string {
	who := "another raymond serve"
	if e.PID > 0 {
		who += " (pid " + strconv.Itoa(e.PID)
		if e.Addr != "" {
			who += ", on " + e.Addr
		}
		who += ")"
	}
	return who + " already serves this project; stop it first, or use its page"
}

// lockServe takes the project's daemon lock, a flock on .raymond/serve.lock
// that the kernel releases when the process ends however it ends.
func lockServe(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("daemon lock: %w", err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	// A daemon killed with SIGKILL may leave its lock held for a moment by a
	// child caught between fork and exec (the descriptor closes at exec):
	// when the daemon that serve.json names is dead, wait a little for it.
	for deadline := time.Now().Add(lockGrace); errors.Is(err, syscall.EWOULDBLOCK) && time.Now().Before(deadline); {
		if info, rerr := ReadInfo(dir); rerr == nil && info.PID > 0 && alive(info.PID) {
			break
		}
		time.Sleep(20 * time.Millisecond)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			le := &LockedError{}
			if info, err := ReadInfo(dir); err == nil {
				le.PID, le.Addr = info.PID, info.Addr
			}
			return nil, le
		}
		return nil, fmt.Errorf("daemon lock %s: %w", path, err)
	}
	return f, nil
}

// lockGrace is how long a start waits for the lock of a daemon that died.
const lockGrace = 5 * time.Second

// alive says whether process pid exists.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// ReadInfo reads the serve.json of the .raymond folder dir. It says nothing
// about whether that daemon still runs: Running does.
func ReadInfo(dir string) (Info, error) {
	var info Info
	data, err := os.ReadFile(filepath.Join(dir, InfoFile))
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil {
		return info, fmt.Errorf("%s: %w", filepath.Join(dir, InfoFile), err)
	}
	return info, nil
}

// Running returns the daemon that serves the .raymond folder dir now, if
// one does: its lock is held and its serve.json names it.
func Running(dir string) (Info, bool) {
	f, err := os.Open(filepath.Join(dir, LockFile))
	if err != nil {
		return Info{}, false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return Info{}, false
	}
	info, err := ReadInfo(dir)
	return info, err == nil
}

// ReadToken reads the API token of the .raymond folder dir.
func ReadToken(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}
