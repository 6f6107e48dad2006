package claude

import (
	"time"

	"raymond/internal/proc"
)

// Sweep ends every process whose environment carries RAYMOND_STEP=marker
// (see [step.Marker]): SIGTERM, then SIGKILL to those still there after
// grace. It returns the pids it found, in order; see [proc.Sweep] for how
// it finds them.
func Sweep(marker string, grace time.Duration) ([]int, error) {
	return proc.Sweep(marker, grace)
}
