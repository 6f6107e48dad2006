package analysis

import (
	"fmt"
	"strings"

	"raymond/state"
)

// Changes is what a run in the worktree mode changed in git as a whole:
// its draft from the commit it started from. The analysis runs no git, so
// the caller that can (raymond transcript, the daemon) fills it; the
// patches are for the HTML report and stay out of the JSON.
type Changes struct {
	// Branch is the draft branch; Base the commit it started from; Head
	// the commit its changes end at ("" when git could not say).
	Branch string `json:"branch"`
	Base   string `json:"base"`
	Head   string `json:"head,omitempty"`
	// Status is the draft's: draft, published or discarded (or being
	// either); Into and Published where and as what it was published.
	Status    string `json:"status,omitempty"`
	Into      string `json:"into,omitempty"`
	Published string `json:"published,omitempty"`
	// Files are the files the draft changed from Base to Head.
	Files []state.FileStat `json:"files"`
	// Problem says why git could not tell the changes (a discarded
	// draft, a repository gone); Files is empty then.
	Problem string `json:"problem,omitempty"`

	// Patch is the draft's patch from Base to Head, and Steps each step's
	// patch by step name; Cut names the patches that were cut short
	// ("" for the whole draft's).
	Patch string            `json:"-"`
	Steps map[string]string `json:"-"`
	Cut   map[string]bool   `json:"-"`
}

// hasCheckpoints reports whether some step of r made a checkpoint.
func hasCheckpoints(r *Run) bool {
	for _, s := range r.Steps {
		if s.Checkpoint != nil {
			return true
		}
	}
	return false
}

// ChangeTotals adds up the lines added and removed in files.
func ChangeTotals(files []state.FileStat) (added, deleted int) {
	for _, f := range files {
		added += f.Added
		deleted += f.Deleted
	}
	return added, deleted
}

// diffstat says in a few words what files changed: "2 files +12 -3".
func diffstat(files []state.FileStat) string {
	a, d := ChangeTotals(files)
	n := "1 file"
	if len(files) != 1 {
		n = fmt.Sprintf("%d files", len(files))
	}
	return fmt.Sprintf("%s +%d -%d", n, a, d)
}

// fileStat is one file's line of a diffstat: "+12 -3  path".
func fileStat(f state.FileStat) string {
	if f.Binary {
		return "binary  " + f.Path
	}
	return fmt.Sprintf("+%d -%d  %s", f.Added, f.Deleted, f.Path)
}

// shortCommit is a commit id as git abbreviates it.
func shortCommit(c string) string {
	if len(c) > 7 {
		return c[:7]
	}
	return c
}

// changes writes the Changes section: the whole draft, then each step
// that made a checkpoint, its commit and the files it changed.
func (p *textReport) changes(r *Run) {
	p.title(false, "Changes")
	if c := r.Changes; c != nil {
		head := fmt.Sprintf("draft %s from %s", c.Branch, shortCommit(c.Base))
		switch c.Status {
		case state.DraftPublished:
			head += fmt.Sprintf(", published into %s as %s", c.Into, shortCommit(c.Published))
		case "", state.DraftOpen:
		default:
			head += ", " + c.Status
		}
		if c.Problem != "" {
			p.wrapped("", head+": "+c.Problem)
		} else {
			p.wrapped("", head+": "+diffstat(c.Files))
			for _, f := range c.Files {
				p.line("    %s", fileStat(f))
			}
		}
	}
	some := false
	for _, s := range r.Steps {
		cp := s.Checkpoint
		if cp == nil {
			continue
		}
		some = true
		p.line("  %s:%d %s  %s  %s", s.Agent, s.Seq, s.State, shortCommit(cp.Commit), diffstat(cp.Files))
		for _, f := range cp.Files {
			p.line("      %s", fileStat(f))
		}
	}
	if !some {
		p.line("  no step changed a file")
	}
}

// StepDiffName is how a step is named in the Changes view and by
// transcript --diff: AGENT:N.
func StepDiffName(s *Step) string { return s.Agent + ":" + fmt.Sprint(s.Seq) }

// patchLines splits a patch into lines, each with the class the report
// colours it by: add, del, hunk, file, or "" for context.
func patchLines(patch string) []htmlPatchLine {
	var lines []htmlPatchLine
	for _, l := range strings.SplitAfter(patch, "\n") {
		if l == "" {
			continue
		}
		class := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "diff "):
			class = "file"
		case strings.HasPrefix(l, "+"):
			class = "add"
		case strings.HasPrefix(l, "-"):
			class = "del"
		case strings.HasPrefix(l, "@@"):
			class = "hunk"
		}
		lines = append(lines, htmlPatchLine{Class: class, Text: l})
	}
	return lines
}

// htmlPatchLine is one line of a patch in the report.
type htmlPatchLine struct{ Class, Text string }

// htmlChanges is the report's Changes section.
type htmlChanges struct {
	Summary string
	Problem string
	Files   []string
	Patch   []htmlPatchLine
	Cut     bool
	Steps   []htmlStepChange
}

// htmlStepChange is one step's checkpoint in the Changes section.
type htmlStepChange struct {
	Name, Anchor, Label, Commit, Stat string
	Files                             []string
	Patch                             []htmlPatchLine
	Cut                               bool
}

// buildChanges makes the Changes section of r, nil when r is not a run
// in the worktree mode.
func buildChanges(r *Run, anchors map[string]string) *htmlChanges {
	c := r.Changes
	if c == nil && !hasCheckpoints(r) {
		return nil
	}
	h := &htmlChanges{}
	if c != nil {
		h.Summary = fmt.Sprintf("Draft %s from %s", c.Branch, shortCommit(c.Base))
		if c.Status == state.DraftPublished {
			h.Summary += fmt.Sprintf(", published into %s as %s", c.Into, shortCommit(c.Published))
		} else if c.Status != "" && c.Status != state.DraftOpen {
			h.Summary += ", " + c.Status
		}
		h.Problem = c.Problem
		if c.Problem == "" {
			h.Summary += ": " + diffstat(c.Files)
		}
		for _, f := range c.Files {
			h.Files = append(h.Files, fileStat(f))
		}
		h.Patch, h.Cut = patchLines(c.Patch), c.Cut[""]
	}
	for _, s := range r.Steps {
		cp := s.Checkpoint
		if cp == nil {
			continue
		}
		sc := htmlStepChange{Name: s.Name, Anchor: anchors[s.Name], Label: StepDiffName(s) + " " + s.State,
			Commit: shortCommit(cp.Commit), Stat: diffstat(cp.Files)}
		for _, f := range cp.Files {
			sc.Files = append(sc.Files, fileStat(f))
		}
		if c != nil {
			sc.Patch, sc.Cut = patchLines(c.Steps[s.Name]), c.Cut[s.Name]
		}
		h.Steps = append(h.Steps, sc)
	}
	return h
}
