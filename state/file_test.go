package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"
)

// faultyFile fails like a full disk at the step named by failOn.
type faultyFile struct {
	*os.File
	failOn string // "write", "sync" or "close"
}

func (f *faultyFile) Write(p []byte) (int, error) {
	if f.failOn == "write" {
		n, _ := f.File.Write(p[:len(p)/2]) // a short write, as on a real full disk
		return n, syscall.ENOSPC
	}
	return f.File.Write(p)
}

func (f *faultyFile) Sync() error {
	if f.failOn == "sync" {
		return syscall.ENOSPC
	}
	return f.File.Sync()
}

func (f *faultyFile) Close() error {
	err := f.File.Close()
	if f.failOn == "close" && err == nil {
		return syscall.ENOSPC // as NFS reports a failed write back
	}
	return err
}

// fullDisk makes createTemp fail at step for the rest of the test. Tests that
// call it must not run in parallel.
func fullDisk(t *testing.T, step string) {
	saved := createTemp
	t.Cleanup(func() { createTemp = saved })
	createTemp = func(dir, pattern string) (tempFile, error) {
		if step == "create" {
			return nil, &os.PathError{Op: "open", Path: dir, Err: syscall.ENOSPC}
		}
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return &faultyFile{File: f, failOn: step}, nil
	}
}

func TestWriteFullDisk(t *testing.T) {
	for _, step := range []string{"create", "write", "sync", "close"} {
		t.Run(step, func(t *testing.T) {
			s := openStore(t)
			before := fullRun("disk")
			must(t, s.Write(before))
			want, err := os.ReadFile(s.Path("disk"))
			must(t, err)

			fullDisk(t, step)
			next := fullRun("disk")
			next.Status = StatusCompleted
			next.Agents = append(next.Agents, Agent{ID: "main", Status: AgentCompleted})
			err = s.Write(next)
			wantErr(t, err, "write run disk", step)
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("errors.Is(%q, ENOSPC) is false", err)
			}

			got, err := os.ReadFile(s.Path("disk"))
			must(t, err)
			if string(got) != string(want) {
				t.Errorf("the failed write changed the file:\n%s", got)
			}
			if _, err := s.Read("disk"); err != nil {
				t.Errorf("the previous file no longer reads: %v", err)
			}
			if names := dirNames(t, s.Dir); !slices.Equal(names, []string{"disk.json"}) {
				t.Errorf("files after the failed write: %q", names)
			}

			err = s.Create(fullRun("other"))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Errorf("create on a full disk: %v, want ENOSPC", err)
			}
			if names := dirNames(t, s.Dir); !slices.Equal(names, []string{"disk.json"}) {
				t.Errorf("files after the failed create: %q", names)
			}
		})
	}
}

func TestWriteRenameFails(t *testing.T) {
	s := openStore(t)
	// A folder in the way of the state file makes the rename fail.
	must(t, os.MkdirAll(filepath.Join(s.Path("blocked"), "x"), 0o755))
	wantErr(t, s.Write(&Run{WorkflowID: "blocked"}), "write run blocked")
	if names := dirNames(t, s.Dir); !slices.Equal(names, []string{"blocked.json"}) {
		t.Errorf("files after the failed rename: %q", names)
	}
}

func TestNoTempLeftBehind(t *testing.T) {
	s := openStore(t)
	r := fullRun("clean")
	must(t, s.Create(r))
	for range 5 {
		must(t, s.Write(r))
	}
	if names := dirNames(t, s.Dir); !slices.Equal(names, []string{"clean.json"}) {
		t.Errorf("files after writes: %q", names)
	}
}

// TestNoTornReads reads the file in a loop while it is rewritten 200 times
// with contents of different sizes: every read must parse and hold one of the
// runs written.
func TestNoTornReads(t *testing.T) {
	s := openStore(t)
	r := &Run{WorkflowID: "torn", Status: StatusRunning}
	must(t, s.Write(r))

	const writes = 200
	done := make(chan struct{})
	var (
		wg    sync.WaitGroup
		reads int
	)
	wg.Go(func() {
		defer close(done)
		for i := range writes {
			// Grow and shrink the file so a torn read could not parse.
			r.Agents = make([]Agent, i%17*3)
			for j := range r.Agents {
				r.Agents[j] = Agent{ID: fmt.Sprintf("main_w%d", j), Steps: i}
			}
			r.NextAgentSeq = i
			if err := s.Write(r); err != nil {
				t.Error(err)
				return
			}
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-done:
				if reads == 0 {
					t.Error("the reader never read")
				}
				return
			default:
			}
			data, err := os.ReadFile(s.Path("torn"))
			if err != nil {
				t.Errorf("read %d: %v", reads, err)
				return
			}
			var got Run
			if err := json.Unmarshal(data, &got); err != nil {
				t.Errorf("read %d is torn: %v\n%s", reads, err, data)
				return
			}
			if len(got.Agents) != got.NextAgentSeq%17*3 {
				t.Errorf("read %d mixes two writes: %d agents at write %d", reads, len(got.Agents), got.NextAgentSeq)
				return
			}
			reads++
		}
	})
	wg.Wait()
	t.Logf("%d reads during %d writes", reads, writes)
}
