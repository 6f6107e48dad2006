package fakeclaude

import (
	"errors"
	"io"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// stdinWait is how long an open stdin pipe may stay silent before the fake goes on
// without it, as the real CLI does. Tests shorten it.
var stdinWait = 3 * time.Second

// stdinWarning is printed when stdin stayed silent for stdinWait.
const stdinWarning = "Warning: no stdin data received in 3s, proceeding without it. " +
	"If piping from a slow command, redirect stdin explicitly: < /dev/null to skip, or wait longer."

// readStdin returns what f holds. A nil, closed or character-device f (/dev/null, a
// terminal) holds nothing; a regular file is read whole; a pipe is read to EOF once it
// shows data or EOF within stdinWait, else silent reports the timeout.
func readStdin(f *os.File) (data []byte, silent bool, err error) {
	if f == nil {
		return nil, false, nil
	}
	info, err := f.Stat()
	if err != nil {
		return nil, false, nil // closed: nothing to read
	}
	if info.Mode()&os.ModeCharDevice != 0 {
		return nil, false, nil
	}
	if !info.Mode().IsRegular() {
		ready, err := readable(f, stdinWait)
		if err != nil {
			return nil, false, err
		}
		if !ready {
			return nil, true, nil
		}
	}
	data, err = io.ReadAll(f)
	return data, false, err
}

// readable waits up to d for f to have data or reach EOF, without reading from it.
func readable(f *os.File, d time.Duration) (bool, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return true, nil // not a descriptor we can wait on: just read it
	}
	ready := true
	var serr error
	err = rc.Control(func(fd uintptr) {
		var set syscall.FdSet
		bits := int(unsafe.Sizeof(set.Bits[0])) * 8
		if int(fd) >= len(set.Bits)*bits {
			return // beyond what select can watch: just read it
		}
		deadline := time.Now().Add(d)
		for {
			set = syscall.FdSet{}
			set.Bits[int(fd)/bits] |= 1 << (uint(fd) % uint(bits))
			tv := syscall.NsecToTimeval(max(time.Until(deadline), 0).Nanoseconds())
			n, err := syscall.Select(int(fd)+1, &set, nil, nil, &tv)
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			ready, serr = n > 0, err
			return
		}
	})
	if err != nil {
		return true, nil
	}
	return ready, serr
}

// composePrompt joins the prompt argument and stdin as the real CLI does: both gives
// "arg\nstdin"; either alone is the prompt.
func composePrompt(arg string, stdin []byte) (string, bool) {
	switch {
	case arg != "" && len(stdin) > 0:
		return arg + "\n" + string(stdin), true
	case arg != "":
		return arg, true
	case len(stdin) > 0:
		return string(stdin), true
	}
	return "", false
}
