package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// holdLock takes dir's daemon lock through a descriptor of its own, as a
// child that inherited it would hold it, and returns the release.
func holdLock(t *testing.T, dir string) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, LockFile), os.O_RDWR|os.O_CREATE, 0o600)
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	return func() { f.Close() }
}

func writeInfo(t *testing.T, dir string, pid int) {
	t.Helper()
	data, err := json.Marshal(Info{PID: pid, Addr: "127.0.0.1:7777"})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, InfoFile), data, 0o600))
}

func TestLockOfADeadDaemonIsWaitedFor(t *testing.T) {
	dir := t.TempDir()
	release := holdLock(t, dir)
	writeInfo(t, dir, deadPID(t))
	go func() {
		time.Sleep(100 * time.Millisecond) // the child that held it execs
		release()
	}()
	f, err := lockServe(dir)
	require.NoError(t, err, "the lock of a daemon that died is taken once its last holder lets go")
	f.Close()
}

func TestLockOfALiveDaemonIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	release := holdLock(t, dir)
	defer release()
	writeInfo(t, dir, os.Getpid())
	start := time.Now()
	_, err := lockServe(dir)
	var le *LockedError
	require.ErrorAs(t, err, &le)
	require.Equal(t, os.Getpid(), le.PID)
	require.Less(t, time.Since(start), lockGrace, "a live daemon is not waited for")
}

// deadPID returns the pid of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	require.NoError(t, err)
	_, err = p.Wait()
	require.NoError(t, err)
	return p.Pid
}
