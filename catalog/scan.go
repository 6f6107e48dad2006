package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"raymond/lint"
	"raymond/workflow"
)

// The kinds of workflow, as Workflow.Kind says them.
const (
	kindFolder = "folder"
	kindYAML   = "yaml"
	kindZip    = "zip"
)

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// rootOf returns the index of the deepest root path is in, or -1.
func (c *Catalog) rootOf(path string) int {
	best := -1
	for i, r := range c.roots {
		if within(r.path, path) && (best < 0 || len(r.path) > len(c.roots[best].path)) {
			best = i
		}
	}
	return best
}

// rescan looks again at unit, a file or folder under the roots: it finds
// the workflows there, reads again those that are new, whose files
// changed, or that hold a path in touched, and drops those gone. It returns
// the paths of the workflows added, read again or dropped. A unit that no
// longer exists holds no workflow; folders that cannot be read are logged.
func (c *Catalog) rescan(unit string, touched []string) []string {
	found, err := workflow.Find(unit)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.log.Warn("a folder under the workflow roots cannot be read, so its workflows are not listed; make it readable", "err", err)
	}
	var changed []string
	for path := range c.entries {
		if within(unit, path) && !slices.Contains(found, path) {
			delete(c.entries, path)
			changed = append(changed, path)
		}
	}
	type job struct {
		path string
		sum  string
		e    *entry
	}
	var jobs []*job
	for _, path := range found {
		i := c.rootOf(path)
		if i < 0 {
			continue
		}
		sum := fingerprint(path)
		old, ok := c.entries[path]
		if ok && old.sum == sum && !slices.ContainsFunc(touched, func(t string) bool { return within(path, t) }) {
			continue
		}
		jobs = append(jobs, &job{path: path, sum: sum, e: &entry{root: i}})
	}
	c.readAll(len(jobs), func(k int) {
		j := jobs[k]
		j.e.wf, j.e.scopes = inspect(j.path)
		j.e.sum = j.sum
	})
	for _, j := range jobs {
		c.entries[j.path] = j.e
		changed = append(changed, j.path)
	}
	return changed
}

// reread reads the entries at paths again, whatever their files say.
func (c *Catalog) reread(paths []string) {
	c.readAll(len(paths), func(k int) {
		e := c.entries[paths[k]]
		e.wf, e.scopes = inspect(paths[k])
	})
}

// readAll calls read(0), …, read(n-1), several at once.
func (c *Catalog) readAll(n int, read func(int)) {
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for k := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			read(k)
		})
	}
	wg.Wait()
}

// dependents returns the entries, not in changed, whose lint read a
// workflow in changed or a folder holding one; when added is set (a
// workflow appeared or went), also every entry with an error, which may
// have named it.
func (c *Catalog) dependents(changed []string, added bool) []string {
	var out []string
	for path, e := range c.entries {
		if slices.Contains(changed, path) {
			continue
		}
		hit := added && !e.wf.Usable
		for _, s := range e.scopes {
			hit = hit || slices.ContainsFunc(changed, func(ch string) bool { return within(ch, s) || within(s, ch) })
		}
		if hit {
			out = append(out, path)
		}
	}
	return out
}

// inspect reads the workflow at path: its kind, manifest, entry state and
// lint. It returns the workflow, without an ID, and the scopes lint read.
func inspect(path string) (Workflow, []string) {
	wf := Workflow{Path: path, Kind: kindOf(path), Name: nameOf(path),
		Input: Input{Mode: "optional"}, RequiresHumanInput: "auto"}
	ss := workflow.NewScopes(nil)
	defer ss.Close()
	s, first, startErr := ss.Start(path)
	if startErr == nil {
		wf.Entry = first
	} else {
		s, _ = ss.Open(path, "")
	}
	if s != nil && s.Manifest() != nil {
		m := s.Manifest()
		wf.Name = cmpOr(m.Name, wf.Name)
		wf.Description = m.Description
		wf.Input = Input{Mode: cmpOr(m.Input.Mode, "optional"), Label: m.Input.Label, Description: m.Input.Description}
		wf.DefaultBudget = m.DefaultBudget
		wf.RequiresHumanInput = cmpOr(m.RequiresHumanInput, "auto")
		wf.Schedule = m.Schedule
	}
	r, err := lint.Check(ss, path)
	if err != nil {
		r = lint.Report{Findings: []lint.Finding{{Check: "workflow-parse-error", Severity: lint.Error, File: path,
			Message: err.Error(), Fix: "fix what the message names, or remove the file"}}}
	}
	wf.Errors = r.Only(lint.Error)
	if len(wf.Errors) == 0 && startErr != nil {
		wf.Errors = []lint.Finding{{Check: "workflow-parse-error", Severity: lint.Error, File: path,
			Message: startErr.Error(), Fix: "fix what the message names"}}
	}
	if wf.Errors == nil {
		wf.Errors = []lint.Finding{}
	}
	wf.Warnings = r.Count(lint.Warning)
	wf.Usable = len(wf.Errors) == 0
	return wf, r.Scopes
}

// cmpOr returns s, or def when s is empty.
func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// kindOf returns the kind of the workflow at path from its name: Find
// returns folders and .zip, .yaml or .yml files only.
func kindOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".zip":
		if !isDir(path) {
			return kindZip
		}
	case ".yaml", ".yml":
		if !isDir(path) {
			return kindYAML
		}
	}
	return kindFolder
}

// isDir reports whether path is a folder.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// nameOf is a workflow's name when its manifest gives none: the folder's
// name, or the file's without its extension.
func nameOf(path string) string {
	base := filepath.Base(path)
	if kindOf(path) == kindFolder {
		return base
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// fingerprint sums the names, sizes, modes and times of the files of the
// workflow at path, so that a rescan can tell which workflows changed
// without reading them. Hidden files (an editor's swap files) are left
// out.
func fingerprint(path string) string {
	h := sha256.New()
	filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			fmt.Fprintf(h, "%s: %v\n", p, err)
			return nil
		}
		if p != path && workflow.Skipped(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			fmt.Fprintf(h, "%s: %v\n", p, err)
			return nil
		}
		fmt.Fprintf(h, "%s %d %v %d\n", p, fi.Size(), fi.Mode(), fi.ModTime().UnixNano())
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}
