package fakeclaude

import (
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"
)

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
