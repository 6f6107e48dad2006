//go:build !unix

package state

import (
	"errors"
	"os"
)

// tryLock is not implemented without flock.
func tryLock(*os.File) (held bool, err error) {
	return false, errors.ErrUnsupported
}
