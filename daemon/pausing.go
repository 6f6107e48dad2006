package daemon

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"raymond/state"
)

// pausing is the runs whose pause the daemon accepted and whose drive has
// not ended since, kept in PausingFile. A pause is acknowledged only once it
// is in that file, synced: a daemon stopped before the steps in flight end
// (a signal, which parks every run for the next start, or kill -9, which
// leaves them interrupted) must not resume them when it starts again.
type pausing struct {
	path string

	mu  sync.Mutex // held while the file is written
	ids map[string]bool
}

// loadPausing reads the runs a previous daemon was pausing.
func loadPausing(path string) *pausing {
	p := &pausing{path: path, ids: make(map[string]bool)}
	var ids []string
	if data, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(data, &ids) // a broken file pauses nothing: the runs resume, as before pauses were kept
	}
	for _, id := range ids {
		if state.ValidID(id) == nil {
			p.ids[id] = true
		}
	}
	return p
}

// add records run id's pause, durably; on error the pause is not recorded.
func (p *pausing) add(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids[id] {
		return nil
	}
	p.ids[id] = true
	if err := p.save(); err != nil {
		delete(p.ids, id)
		return err
	}
	return nil
}

// remove forgets run id's pause: its drive ended, or it is driven again.
func (p *pausing) remove(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.ids[id] {
		return nil
	}
	delete(p.ids, id)
	return p.save()
}

// has says whether run id's pause is recorded.
func (p *pausing) has(id string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ids[id]
}

// take returns the pauses recorded and forgets them all.
func (p *pausing) take() (map[string]bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.ids
	p.ids = make(map[string]bool)
	return ids, p.save()
}

// save writes the file, or removes it when no pause is recorded. p.mu is
// held.
func (p *pausing) save() error {
	if len(p.ids) == 0 {
		err := os.Remove(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return state.SyncDir(filepath.Dir(p.path))
	}
	ids := make([]string, 0, len(p.ids))
	for id := range p.ids {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	data, _ := json.Marshal(ids)
	return writeFileAtomic(p.path, data)
}

// settlePaused writes run id paused when the drive its pause was meant for
// died with steps in flight (the daemon was killed): the run reads paused,
// as the person asked, rather than interrupted, which the next start would
// resume. A run that ended or was paused already is left as it is.
func (d *Daemon) settlePaused(id string) error {
	lock, err := d.store.Lock(id)
	if err != nil {
		return err
	}
	defer lock.Release()
	r, err := d.store.Read(id)
	if err != nil {
		return err
	}
	switch r.Status {
	case state.StatusRunning, state.StatusWaiting, state.StatusCreated:
	default:
		return nil
	}
	r.Status = state.StatusPaused
	r.Error = "paused at request; the daemon stopped before the steps in flight ended: they run again on resume"
	return d.store.Write(r)
}
