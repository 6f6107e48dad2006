package step

import (
	"errors"
	"syscall"
)

// Exhausted says whether err is the machine running short of what starting
// a process takes: file descriptors for its pipes and files (EMFILE for
// this process, ENFILE for the whole system), or processes and memory for
// fork (EAGAIN, ENOMEM). It passes by itself, once connections close or
// other steps end, so it is no reason to fail an agent.
func Exhausted(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.ENOMEM)
}

// StartFailed is the Result of a step whose process could not be started
// because of err: Transient when the machine was short of descriptors,
// processes or memory (see [Exhausted]), so that it is tried again later,
// else Failed.
func StartFailed(err error) Result {
	if Exhausted(err) {
		return NotStarted(Transient, err)
	}
	return NotStarted(Failed, err)
}
