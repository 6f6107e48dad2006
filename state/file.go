package state

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// tempFile is what an atomic write needs of its temp file. *os.File has it; a
// test wraps one to fail like a full disk.
type tempFile interface {
	io.Writer
	Name() string
	Sync() error
	Close() error
}

// createTemp is the seam through which every state file is written.
var createTemp = func(dir, pattern string) (tempFile, error) {
	return os.CreateTemp(dir, pattern)
}

// journalFile is what a Journal needs of its file. *os.File has it; a test
// wraps one to fail like a full disk.
type journalFile interface {
	io.Writer
	Sync() error
	Truncate(size int64) error
	Close() error
}

// openJournal is the seam through which journals are opened: empty, and
// appending whatever the file offset (so a truncation needs no seek).
var openJournal = func(path string) (journalFile, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|os.O_APPEND, fileMode)
}

// tempPattern names temp files ".<id>.json.<random>.tmp": hidden, and without
// the .json suffix List looks for.
func tempPattern(id string) string { return "." + id + ".json.*.tmp" }

// writeTemp writes data to a new temp file in dir and syncs it. On error
// nothing is left behind.
func writeTemp(dir, id string, data []byte) (string, error) {
	f, err := createTemp(dir, tempPattern(id))
	if err != nil {
		return "", fmt.Errorf("create temp file: %w", err)
	}
	name := f.Name()
	fail := func(op string, err error) (string, error) {
		_ = f.Close() // may be a second close; the first error is the one to report
		_ = os.Remove(name)
		return "", fmt.Errorf("%s %s: %w", op, name, err)
	}
	if _, err := f.Write(data); err != nil {
		return fail("write", err)
	}
	if err := f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := f.Close(); err != nil {
		return fail("close", err)
	}
	return name, nil
}

// replaceFile writes data to path atomically: a reader sees the old content or
// the new, never a mix, and after a crash the file holds one of the two.
func replaceFile(path, id string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, id, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return SyncDir(dir)
}

// createFile writes data to path atomically, failing with an error that
// errors.Is fs.ErrExist when path exists, even when several processes race:
// the complete temp file is hard-linked to path, which fails if path exists.
func createFile(path, id string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := writeTemp(dir, id, data)
	if err != nil {
		return err
	}
	linkErr := os.Link(tmp, path)
	if err := os.Remove(tmp); err != nil && linkErr == nil {
		return fmt.Errorf("remove temp file: %w", err)
	}
	if linkErr != nil {
		return linkErr
	}
	return SyncDir(dir)
}

// SyncDir makes a rename or link in dir durable (the daemon writes its own
// files the same way).
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, err)
	}
	return nil
}

// probeSize is how much Probe writes: room for a run's snapshot, which a
// write of a few bytes in a page freed by a failed save does not show.
const probeSize = 64 << 10

// Probe says whether the store's folder takes a write now: it writes a
// temp file of 64 KiB, synced, the way every state file is written, and
// removes it. A daemon that saw a save fail asks it to know when space came
// back.
func (s *Store) Probe() error {
	name, err := writeTemp(s.Dir, "probe", make([]byte, probeSize))
	if err != nil {
		return fmt.Errorf("write in %s: %w", s.Dir, err)
	}
	return os.Remove(name)
}
