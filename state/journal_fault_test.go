package state

import (
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flakyJournal is a journal file that fails like a full disk at the steps the
// test sets in fail ("write", "sync", "truncate") while it is open.
type flakyJournal struct {
	*os.File
	fail map[string]bool
}

func (f *flakyJournal) Write(p []byte) (int, error) {
	if f.fail["write"] {
		n, _ := f.File.Write(p[:len(p)/2]) // a short write, as on a real full disk
		return n, syscall.ENOSPC
	}
	return f.File.Write(p)
}

func (f *flakyJournal) Sync() error {
	if f.fail["sync"] {
		return syscall.EIO
	}
	return f.File.Sync()
}

func (f *flakyJournal) Truncate(size int64) error {
	if f.fail["truncate"] {
		return syscall.EIO
	}
	return f.File.Truncate(size)
}

// flakyJournals makes the next journal opened a flakyJournal, returned, for
// the rest of the test. Tests that call it must not run in parallel.
func flakyJournals(t *testing.T) *flakyJournal {
	saved := openJournal
	t.Cleanup(func() { openJournal = saved })
	fj := &flakyJournal{fail: map[string]bool{}}
	openJournal = func(path string) (journalFile, error) {
		f, err := saved(path)
		if err != nil {
			return nil, err
		}
		fj.File = f.(*os.File)
		return fj, nil
	}
	return fj
}

// TestSaveFails: when the append fails, Save says so, Read still returns the
// previous state, and the next Save, on a healthy disk, recovers by
// compacting.
func TestSaveFails(t *testing.T) {
	tests := []struct {
		name string
		fail []string
		want error
	}{
		{name: "full disk", fail: []string{"write"}, want: syscall.ENOSPC},
		{name: "failed sync", fail: []string{"sync"}, want: syscall.EIO},
		{name: "full disk, failed rollback", fail: []string{"write", "truncate"}, want: syscall.ENOSPC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t)
			fj := flakyJournals(t)
			r, j := startRun(t, s, "flaky")
			j.SyncEach = true
			r.Status = StatusRunning
			require.NoError(t, j.Save(r, "main"))
			previous := jsonOf(t, r)

			for _, step := range tt.fail {
				fj.fail[step] = true
			}
			r.Agents[0].Status, r.Agents[0].Steps = AgentCompleted, 1
			updated := r.UpdatedAt
			err := j.Save(r, "main")
			assert.Equal(t, updated, r.UpdatedAt, "a failed save stamped the run")
			wantErr(t, err, "save run flaky", s.journalPath("flaky"), tt.fail[0])
			assert.True(t, errors.Is(err, tt.want), "errors.Is(%v, %v)", err, tt.want)
			got, err := s.Read("flaky")
			require.NoError(t, err)
			assert.JSONEq(t, previous, jsonOf(t, got), "a failed save changed what Read returns")

			clear(fj.fail)
			gen := j.gen
			require.NoError(t, j.Save(r, "main"))
			assert.Equal(t, gen+1, j.gen, "the save after a failure did not compact")
			requireOnDisk(t, s, r)
			fi, err := os.Stat(s.journalPath("flaky"))
			require.NoError(t, err)
			assert.Zero(t, fi.Size(), "the compaction left the journal's tail")
		})
	}
}

// TestCompactionFails: the line is durable, so Read returns the new state,
// but Save reports the failure; the next Save compacts.
func TestCompactionFails(t *testing.T) {
	smallFloor(t, 0)
	s := openStore(t)
	r, j := startRun(t, s, "compact")
	healthy := createTemp
	fullDisk(t, "sync")

	r.Status = StatusRunning
	var err error
	for i := 0; err == nil; i++ {
		require.Less(t, i, 100, "Save never compacted")
		r.Agents[0].Steps = i
		err = j.Save(r, "main")
	}
	wantErr(t, err, "save run compact: compact: sync")
	requireOnDisk(t, s, r)

	createTemp = healthy
	gen := j.gen
	r.Status = StatusWaiting
	require.NoError(t, j.Save(r))
	assert.Equal(t, gen+1, j.gen, "the save after a failed compaction did not compact")
	requireOnDisk(t, s, r)
	fi, err := os.Stat(s.journalPath("compact"))
	require.NoError(t, err)
	assert.Zero(t, fi.Size())
}
