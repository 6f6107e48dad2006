package catalog

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"time"

	"github.com/fsnotify/fsnotify"

	"raymond/workflow"
)

// How long Watch gathers a burst of events: until quiet passes without
// one, or maxWait since the first.
const (
	quiet   = 100 * time.Millisecond
	maxWait = time.Second
)

// Watch keeps the catalog current until ctx ends, then returns nil; it
// fails only when fsnotify cannot start. It first looks again at the
// roots, for what changed since New, then follows the changes as the
// package doc says. Call it once.
func (c *Catalog) Watch(ctx context.Context) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch the workflow roots: %w", err)
	}
	defer w.Close()
	fw := &folders{c: c, w: w, dirs: make(map[string]bool)}
	var all []string
	for _, r := range c.roots {
		all = append(all, r.path)
		// The folder a root is in tells when the root itself is removed,
		// made again, or written (a root that is a file); events there
		// about anything else are passed over.
		if err := w.Add(filepath.Dir(r.path)); err != nil {
			c.log.Warn("cannot watch the folder a workflow root is in, so the root's removal and return are not seen", "root", r.path, "err", err)
		}
		if isDir(r.path) {
			fw.add(r.path)
		}
	}
	c.update(all, nil)

	pending := make(map[string]bool)
	var first time.Time
	timer := time.NewTimer(quiet)
	timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.Events:
			if !ok {
				return nil
			}
			if !fw.event(ev) {
				continue
			}
			if len(pending) == 0 {
				first = time.Now()
			}
			pending[ev.Name] = true
			timer.Reset(min(quiet, max(0, maxWait-time.Since(first))))
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			c.log.Warn("watching the workflow roots", "err", err)
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: look at everything again.
				for _, r := range all {
					pending[r] = true
				}
				timer.Reset(quiet)
			}
		case <-timer.C:
			paths := slices.Sorted(maps.Keys(pending))
			clear(pending)
			units := make(map[string]bool)
			for _, p := range paths {
				units[c.unitOf(p)] = true
			}
			c.update(slices.Sorted(maps.Keys(units)), paths)
		}
	}
}

// update looks again at units (files or folders under the roots, see
// rescan), touched being the paths events named, then reads again the
// workflows that depend on what changed, and publishes the list.
func (c *Catalog) update(units, touched []string) {
	// A unit inside another is looked at with it.
	slices.SortFunc(units, func(a, b string) int { return len(a) - len(b) })
	var outer []string
	for _, u := range units {
		if !slices.ContainsFunc(outer, func(o string) bool { return within(o, u) }) {
			outer = append(outer, u)
		}
	}
	before := len(c.entries)
	var changed []string
	for _, u := range outer {
		changed = append(changed, c.rescan(u, touched)...)
	}
	if len(changed) == 0 {
		return
	}
	c.log.Debug("workflows changed", "paths", changed)
	appeared := len(c.entries) != before || slices.ContainsFunc(changed, func(p string) bool { return c.entries[p] == nil })
	c.reread(c.dependents(changed, appeared))
	c.publish()
}

// unitOf returns what to look at again after an event at path: the
// workflow holding it, else the folder it is in (it may have become a
// workflow, or hold a new one), else path itself (a root).
func (c *Catalog) unitOf(path string) string {
	best := ""
	for p := range c.entries {
		if within(p, path) && len(p) > len(best) {
			best = p
		}
	}
	if best != "" {
		return best
	}
	if dir := filepath.Dir(path); c.rootOf(dir) >= 0 {
		return dir
	}
	return path
}

// folders are the folders a Watch watches.
type folders struct {
	c    *Catalog
	w    *fsnotify.Watcher
	dirs map[string]bool
}

// event follows ev's changes to the folders, and reports whether ev may
// change the catalog.
func (f *folders) event(ev fsnotify.Event) bool {
	p := ev.Name
	r := f.c.rootOf(p)
	if r < 0 || p != f.c.roots[r].path && workflow.Skipped(filepath.Base(p)) {
		return false
	}
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		for d := range f.dirs {
			if within(p, d) {
				f.w.Remove(d) // gone already when removed; the error says so
				delete(f.dirs, d)
			}
		}
	}
	if ev.Has(fsnotify.Create) && isDir(p) {
		f.add(p)
	}
	return true
}

// add watches dir and every folder under it that Find would look in.
func (f *folders) add(dir string) {
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && workflow.Skipped(d.Name()) {
			return filepath.SkipDir
		}
		if f.dirs[p] {
			return nil
		}
		if err := f.w.Add(p); err != nil {
			f.c.log.Warn("cannot watch a folder under the workflow roots, so its changes are not seen (on Linux, raise fs.inotify.max_user_watches)",
				"dir", p, "err", err)
			return nil
		}
		f.dirs[p] = true
		return nil
	})
}
