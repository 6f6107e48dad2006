package proc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"raymond/step"
)

// sweepPoll is how often Sweep looks whether the processes it signaled are
// gone.
const sweepPoll = 20 * time.Millisecond

// Sweep ends every process whose environment carries RAYMOND_STEP=marker
// (see [step.Marker]): SIGTERM, then SIGKILL to those still there after
// grace. It returns the pids it found, in order. It finds them by reading
// /proc/PID/environ, so it finds processes that left the step's process
// group too (setsid, nohup, a daemon's double fork), and a pid the kernel
// reused for another process is never signaled: each process is opened
// (a pidfd, through os.FindProcess) before its environment is checked, and
// signaled through that handle. A process that rewrote its environment
// (env -i) is not found. Without /proc (macOS), Sweep finds nothing.
func Sweep(marker string, grace time.Duration) ([]int, error) {
	if marker == "" {
		return nil, nil
	}
	entry := []byte(step.MarkerEnv + "=" + marker)
	found, err := signalMarked(entry, syscall.SIGTERM)
	if err != nil || len(found) == 0 {
		return found, err
	}
	deadline := time.Now().Add(grace)
	for {
		left, err := signalMarked(entry, 0)
		if err != nil || len(left) == 0 {
			return found, err
		}
		if time.Now().After(deadline) {
			_, err := signalMarked(entry, syscall.SIGKILL)
			return found, err
		}
		time.Sleep(sweepPoll)
	}
}

// signalMarked sends sig (0: none) to every live process whose environment
// holds entry, other than this one, and returns their pids.
func signalMarked(entry []byte, sig syscall.Signal) ([]int, error) {
	dirs, err := os.ReadDir("/proc")
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var pids []int
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || pid == self || !carries(pid, entry) {
			continue
		}
		// A handle on the process now behind pid, whatever reuses the pid
		// later; the check is made again through it.
		p, err := os.FindProcess(pid)
		if err != nil {
			continue
		}
		if carries(pid, entry) && p.Signal(sig) == nil {
			pids = append(pids, pid)
		}
		_ = p.Release()
	}
	slices.Sort(pids)
	return pids, nil
}

// carries reports whether the environment of process pid holds entry. A
// process that has exited (a zombie) has none; one of another user cannot
// be read and does not carry it.
func carries(pid int, entry []byte) bool {
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if bytes.Equal(kv, entry) {
			return true
		}
	}
	return false
}
