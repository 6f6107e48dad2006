package state

import (
	"os"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// SimulateFullDisk fails state writes and journal appends while the disk
// is full, and Probe tells when it no longer is, leaving nothing behind.
func TestSimulateFullDiskAndProbe(t *testing.T) {
	s, err := Open(t.TempDir())
	require.NoError(t, err)
	var full atomic.Bool
	t.Cleanup(SimulateFullDisk(full.Load))
	r := &Run{WorkflowID: "r1", Status: StatusRunning}
	require.NoError(t, s.Write(r))
	j, err := s.Journal(r)
	require.NoError(t, err)
	defer j.Close()

	full.Store(true)
	require.ErrorIs(t, s.Probe(), syscall.ENOSPC)
	require.ErrorIs(t, j.Save(r), syscall.ENOSPC)
	require.ErrorIs(t, s.Write(r), syscall.ENOSPC)

	full.Store(false)
	require.NoError(t, s.Probe())
	require.NoError(t, j.Save(r))
	entries, err := os.ReadDir(s.Dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.NotContains(t, e.Name(), "probe", "the probe is removed")
	}
}
