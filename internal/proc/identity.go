package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"raymond/step"
)

// Identity tells a step's process from any other that later gets its pid:
// the pid and the process's start time, in clock ticks since boot (field 22
// of /proc/PID/stat). The kernel gives a freed pid to a new process, never
// with the same start time.
type Identity struct {
	PID   int
	Start uint64
}

// errNoProc means /proc has no such process (or no /proc at all).
var errNoProc = errors.New("no such process")

// stat reads the fields of /proc/PID/stat after the command's name: [0] is
// the state (field 3), [2] the process group (field 5), [19] the start
// time (field 22). The name, in parentheses, may hold spaces and parentheses of
// its own: the fields start after the last ')'.
func stat(pid int) ([][]byte, error) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNoProc
	}
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 20 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return f, nil
}

// StartTime is the start time of process pid (see [Identity]).
func StartTime(pid int) (uint64, error) {
	f, err := stat(pid)
	if err != nil {
		return 0, err
	}
	return strconv.ParseUint(string(f[19]), 10, 64)
}

// Identify returns the identity of the running process pid.
func Identify(pid int) (Identity, error) {
	start, err := StartTime(pid)
	return Identity{PID: pid, Start: start}, err
}

// Running reports whether the process of id still runs and is the step's
// own: same pid, same start time, not a zombie, and marker
// (RAYMOND_STEP's value, see [step.Marker]) in its environment. A pid the
// kernel gave to another process since fails one of the checks.
func Running(id Identity, marker string) bool {
	if id.PID <= 0 {
		return false
	}
	f, err := stat(id.PID)
	if err != nil || string(f[0]) == "Z" || string(f[19]) != strconv.FormatUint(id.Start, 10) {
		return false
	}
	return marker == "" || carries(id.PID, []byte(step.MarkerEnv+"="+marker))
}

// Leader finds the process that leads a process group and carries marker:
// the process a step started detached (see [DetachedAttr]) when its pid
// was never recorded, its driver having died between the start and the
// save. The processes it started carry the marker too but lead no group,
// unless they made one of their own (a tool's background job may): the
// oldest leader is the step's own, started before all of them.
func Leader(marker string) (Identity, bool) {
	dirs, err := os.ReadDir("/proc")
	if err != nil || marker == "" {
		return Identity{}, false
	}
	entry := []byte(step.MarkerEnv + "=" + marker)
	var found Identity
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil || !carries(pid, entry) {
			continue
		}
		f, err := stat(pid)
		if err != nil || string(f[0]) == "Z" || string(f[2]) != strconv.Itoa(pid) {
			continue
		}
		start, err := strconv.ParseUint(string(f[19]), 10, 64)
		if err == nil && (found.PID == 0 || start < found.Start) {
			found = Identity{PID: pid, Start: start}
		}
	}
	return found, found.PID != 0
}

// SignalGroup sends sig to the process group led by id's process, when that
// process is still the step's own (see [Running]); a pid now used by
// another process is never signaled. It reports whether it sent it.
func SignalGroup(id Identity, marker string, sig syscall.Signal) bool {
	if !Running(id, marker) {
		return false
	}
	return syscall.Kill(-id.PID, sig) == nil
}
