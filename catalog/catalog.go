package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"

	"raymond/lint"
	"raymond/workflow"
)

// Workflow is one workflow a daemon offers, as GET /api/v1/workflows shows
// it.
type Workflow struct {
	// ID names the workflow in the API (see the package doc).
	ID string `json:"id"`
	// Path is the absolute path of its folder, YAML file or zip.
	Path string `json:"path"`
	// Kind is "folder", "yaml" or "zip".
	Kind string `json:"kind"`
	// Name and Description are the manifest's; Name falls back to the
	// folder's or file's name.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Entry is the file name of the first state, "" when there is none.
	Entry string `json:"entry"`
	// Input is what a run takes as input.
	Input Input `json:"input"`
	// DefaultBudget is the manifest's budget in USD, 0 when unset.
	DefaultBudget float64 `json:"default_budget"`
	// RequiresHumanInput is "auto", "true" or "false".
	RequiresHumanInput string `json:"requires_human_input"`
	// Usable is set when lint found no error.
	Usable bool `json:"usable"`
	// Errors are lint's error findings, never nil.
	Errors []lint.Finding `json:"errors"`
	// Warnings is how many warnings lint found.
	Warnings int `json:"warnings"`
	// Schedule is the manifest's schedule, nil when it has none.
	Schedule *workflow.ManifestSchedule `json:"schedule,omitempty"`
}

// Input is a manifest's input rule.
type Input struct {
	// Mode is "required", "optional" (also when the manifest says
	// nothing) or "none".
	Mode string `json:"mode"`
	// Label and Description tell a person what to give.
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Catalog is the workflows under a daemon's roots, kept current while
// Watch runs. Its methods are safe for concurrent use; Watch is called
// once.
type Catalog struct {
	roots []root
	log   *slog.Logger

	// entries are the workflows by path; only New and Watch's goroutine
	// touch them.
	entries map[string]*entry

	mu      sync.RWMutex
	list    []Workflow // sorted by ID
	byID    map[string]int
	changed chan struct{}
}

// root is one of the folders the catalog looks in.
type root struct {
	path  string // absolute, clean
	label string // its base name, unique among the roots
}

// entry is one workflow as the catalog last read it.
type entry struct {
	root int
	wf   Workflow // without its ID
	// sum is the fingerprint of its files when it was read.
	sum string
	// scopes are the workflows its lint read (lint.Report.Scopes).
	scopes []string
}

// New returns the catalog of the workflows under roots, read once. A root
// is a folder, or a workflow itself; a root that is a symbolic link stands
// for the path it leads to, which the workflows' paths then show. New
// fails only for a root that cannot be read at all; a folder below one
// that cannot be read is logged and left out. log may be nil.
func New(roots []string, log *slog.Logger) (*Catalog, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Catalog{log: log, entries: make(map[string]*entry), changed: make(chan struct{})}
	labels := make(map[string]bool)
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("workflow root %s: %w", r, err)
		}
		if err := readable(abs); err != nil {
			return nil, fmt.Errorf("workflow root %s cannot be read: %w; give a folder (or a workflow) that exists and can be read", r, err)
		}
		// The folder a link names is the one walked and watched.
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		if slices.ContainsFunc(c.roots, func(o root) bool { return o.path == abs }) {
			continue
		}
		label := filepath.Base(abs)
		if label == string(filepath.Separator) || label == "." {
			label = "root"
		}
		for n := 2; labels[label]; n++ {
			label = fmt.Sprintf("%s-%d", filepath.Base(abs), n)
		}
		labels[label] = true
		c.roots = append(c.roots, root{path: abs, label: label})
	}
	for _, r := range c.roots {
		c.rescan(r.path, nil)
	}
	c.publish()
	return c, nil
}

// readable returns why path cannot be read as a root: a folder whose
// entries cannot be listed, or a file that cannot be opened.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() {
		return err
	}
	_, err = f.ReadDir(1)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return err
}

// List returns every workflow, sorted by ID. The slice is the caller's.
func (c *Catalog) List() []Workflow {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return slices.Clone(c.list)
}

// Get returns the workflow with the ID id.
func (c *Catalog) Get(id string) (Workflow, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	i, ok := c.byID[id]
	if !ok {
		return Workflow{}, false
	}
	return c.list[i], true
}

// Changed returns a channel closed at the next change to the list; each
// change closes it and puts a new one in its place, so any number of
// waiters see it. Take the channel before reading the list, so that no
// change falls between the two.
func (c *Catalog) Changed() <-chan struct{} {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.changed
}

// publish makes the entries the list readers see, and tells the waiters
// when it differs from the last one.
func (c *Catalog) publish() {
	list := c.identify()
	byID := make(map[string]int, len(list))
	for i, wf := range list {
		byID[wf.ID] = i
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if reflect.DeepEqual(list, c.list) {
		return
	}
	c.list, c.byID = list, byID
	close(c.changed)
	c.changed = make(chan struct{})
}

// identify returns the entries' workflows with their IDs, sorted by ID.
func (c *Catalog) identify() []Workflow {
	type item struct {
		e   *entry
		rel string // slash path relative to the root, made safe
		id  string
	}
	items := make([]*item, 0, len(c.entries))
	for _, e := range c.entries {
		r := c.roots[e.root]
		rel, err := filepath.Rel(r.path, e.wf.Path)
		if err != nil || rel == "." {
			rel = filepath.Base(e.wf.Path)
		}
		rel = filepath.ToSlash(rel)
		items = append(items, &item{e: e, rel: safe(rel), id: safe(stem(rel, e.wf.Kind))})
	}
	slices.SortFunc(items, func(a, b *item) int { return cmp.Compare(a.e.wf.Path, b.e.wf.Path) })
	groups := func() map[string][]*item {
		g := make(map[string][]*item)
		for _, it := range items {
			g[it.id] = append(g[it.id], it)
		}
		return g
	}
	// The same ID under two roots: each takes its root's label.
	for _, g := range groups() {
		if slices.ContainsFunc(g, func(it *item) bool { return it.e.root != g[0].e.root }) {
			for _, it := range g {
				it.rel = c.roots[it.e.root].label + "/" + it.rel
				it.id = c.roots[it.e.root].label + "/" + it.id
			}
		}
	}
	// A folder and a file of one stem: the file keeps its extension.
	for _, g := range groups() {
		if len(g) > 1 {
			for _, it := range g {
				if it.e.wf.Kind != kindFolder {
					it.id = it.rel
				}
			}
		}
	}
	for _, g := range groups() {
		for n, it := range g[1:] {
			it.id = fmt.Sprintf("%s~%d", it.id, n+2)
		}
	}
	out := make([]Workflow, len(items))
	for i, it := range items {
		out[i] = it.e.wf
		out[i].ID = it.id
	}
	slices.SortFunc(out, func(a, b Workflow) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

// stem is the ID part of the relative path rel: without the extension of
// a YAML or zip file.
func stem(rel, kind string) string {
	if kind == kindFolder {
		return rel
	}
	return strings.TrimSuffix(rel, filepath.Ext(rel))
}

// safe rewrites every ".." in an ID as "._".
func safe(id string) string {
	for strings.Contains(id, "..") {
		id = strings.ReplaceAll(id, "..", "._")
	}
	return id
}
