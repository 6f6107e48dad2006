//go:build !linux

package fakeclaude

import (
	"os"
	"time"
)

// readable reports f as ready: outside Linux the fake does not wait for a
// silent pipe (select(2)'s signature differs), it reads it.
func readable(*os.File, time.Duration) (bool, error) { return true, nil }
