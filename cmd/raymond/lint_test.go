package main

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"raymond/lint"
)

// A folder under the linted tree that cannot be read is a report with an
// error, not left out: lint of a tree must not say "no problems found"
// about a workflow it never saw. (Tests run as root cannot make a folder
// unreadable, so the walk's result is given.)
func TestExpandLintPathsReportsUnreadableFolders(t *testing.T) {
	dir := t.TempDir()
	bad := &fs.PathError{Op: "open", Path: dir + "/bad", Err: fs.ErrPermission}
	find := func(string) ([]string, error) {
		return []string{dir + "/ok"}, fmt.Errorf("find workflows: %w", errors.Join(bad))
	}
	paths, reports := expandLintPaths([]string{dir}, find)
	if !slices.Equal(paths, []string{dir + "/ok"}) {
		t.Errorf("paths = %q, want only the readable workflow", paths)
	}
	if len(reports) != 1 {
		t.Fatalf("got %d reports, want 1 for the unreadable folder: %+v", len(reports), reports)
	}
	r := reports[0]
	if r.Workflow != bad.Path || !r.HasErrors() || r.Findings[0].Check != "workflow-parse-error" || r.Findings[0].File != bad.Path {
		t.Errorf("report = %+v, want a workflow-parse-error at %s", r, bad.Path)
	}

	// Only unreadable folders below, no workflow found: the folder's own
	// states are still linted (a folder of prompts without an entry says
	// no-entry-point), beside the report on what could not be read.
	find = func(string) ([]string, error) { return nil, fmt.Errorf("find workflows: %w", errors.Join(bad)) }
	paths, reports = expandLintPaths([]string{dir}, find)
	if !slices.Equal(paths, []string{dir}) || len(reports) != 1 {
		t.Errorf("got paths %q and %d reports, want the folder itself and 1 report", paths, len(reports))
	}

	// The folder itself cannot be read: one report, and nothing to lint.
	self := &fs.PathError{Op: "open", Path: dir, Err: fs.ErrPermission}
	find = func(string) ([]string, error) { return nil, fmt.Errorf("find workflows: %w", self) }
	paths, reports = expandLintPaths([]string{dir}, find)
	if len(paths) != 0 || len(reports) != 1 || reports[0].Findings[0].Severity != lint.Error {
		t.Errorf("got paths %q and reports %+v, want only an error report", paths, reports)
	}
}

// A file name with a newline (a hostile workflow) cannot break the text
// report's lines, nor forge a finding or a "no problems found".
func TestLintTextEscapesControlCharacters(t *testing.T) {
	r := lint.Report{Workflow: "wf\nwf: no problems found", Findings: []lint.Finding{{
		Check: "unreadable-state", Severity: lint.Error, File: "wf/A\n  error: fake [x].md",
		Message: "the file name \"A\\n\" is bad\x1b[2J", Fix: "rename it",
	}}}
	var b strings.Builder
	writeLintText(&b, r)
	want := "wf/A\\n  error: fake [x].md\n" +
		"  error: the file name \"A\\n\" is bad\\x1b[2J [unreadable-state]\n" +
		"    fix: rename it\n" +
		"wf\\nwf: no problems found: 1 error, 0 warnings, 0 info\n"
	if b.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", b.String(), want)
	}
	if got := findingBrief(r.Findings[0]); strings.Contains(got, "\n") || strings.Contains(got, "rename it") {
		t.Errorf("findingBrief = %q: want one line, without the fix", got)
	}
}
