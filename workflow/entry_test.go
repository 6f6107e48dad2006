package workflow

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestEntry(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		arg     string // relative to the temp dir
		scope   string // relative to the temp dir
		state   string
		wantErr []string
	}{
		{name: "numbered start", files: map[string]string{"wf/1_START.md": "", "wf/NEXT.md": ""}, arg: "wf", scope: "wf", state: "1_START.md"},
		{name: "plain start", files: map[string]string{"wf/START.md": ""}, arg: "wf/", scope: "wf", state: "START.md"},
		{name: "markdown file", files: map[string]string{"wf/START.md": "", "wf/BEGIN.md": ""}, arg: "wf/BEGIN.md", scope: "wf", state: "BEGIN.md"},
		{name: "unclean path", files: map[string]string{"wf/BEGIN.md": ""}, arg: "wf/./../wf//BEGIN.md", scope: "wf", state: "BEGIN.md"},
		{
			name: "both starts", files: map[string]string{"wf/1_START.md": "", "wf/START.md": ""}, arg: "wf",
			wantErr: []string{"wf: both 1_START.md and START.md exist", "raymond run wf/1_START.md"},
		},
		{
			name: "neither start suggests a state", files: map[string]string{"wf/BEGIN.md": "", "wf/A.md": ""}, arg: "wf",
			wantErr: []string{"wf: no 1_START.md or START.md; give the state file to start from, e.g. raymond run wf/A.md"},
		},
		{name: "empty folder", files: map[string]string{"wf/": ""}, arg: "wf", wantErr: []string{"wf: no 1_START.md or START.md, and no other state: a workflow is a folder of states (.md prompts, .sh scripts); write START.md"}},
		{name: "start is a folder", files: map[string]string{"wf/START.md/": ""}, arg: "wf", wantErr: []string{"no 1_START.md or START.md"}},
		{name: "missing", files: map[string]string{"wf/": ""}, arg: "wf/NOPE.md", wantErr: []string{"wf/NOPE.md: no such file or folder"}},
		// Script states run since issue 11.
		{name: "script", files: map[string]string{"wf/RUN.sh": ""}, arg: "wf/RUN.sh", scope: "wf", state: "RUN.sh"},
		{name: "not a state", files: map[string]string{"wf/notes.txt": ""}, arg: "wf/notes.txt", wantErr: []string{"not a state file"}},
		{
			name: "start in two kinds", files: map[string]string{"wf/START.md": "", "wf/START.sh": ""}, arg: "wf",
			wantErr: []string{"wf: both START.md and START.sh exist; give the state file to start from, e.g. raymond run wf/START.md"},
		},
		{
			name: "numbered start in two kinds", files: map[string]string{"wf/1_START.md": "", "wf/1_START.sh": ""}, arg: "wf",
			wantErr: []string{"wf: both 1_START.md and 1_START.sh exist", "raymond run wf/1_START.md"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeScope(t, tt.files)
			t.Chdir(dir)
			s, state, err := Entry(tt.arg)
			if tt.wantErr != nil {
				wantErrContains(t, err, tt.wantErr...)
				return
			}
			must(t, err)
			defer s.Close()
			scope := s.Dir()
			if state != tt.state {
				t.Errorf("state = %q, want %q", state, tt.state)
			}
			if !filepath.IsAbs(scope) || filepath.Clean(scope) != scope {
				t.Errorf("scope %q is not absolute and clean", scope)
			}
			want, err := filepath.EvalSymlinks(filepath.Join(dir, tt.scope))
			must(t, err)
			got, err := filepath.EvalSymlinks(scope)
			must(t, err)
			if got != want {
				t.Errorf("scope = %q, want %q", got, want)
			}
		})
	}
}

func TestEntryRefusesStartOutsideScope(t *testing.T) {
	dir := writeScope(t, map[string]string{"wf/": "", "elsewhere.md": ""})
	symlink(t, dir, "../elsewhere.md", "wf/START.md")
	_, _, err := Entry(filepath.Join(dir, "wf"))
	var te *TargetError
	if !errors.As(err, &te) || te.Kind != OutsideScope {
		t.Fatalf("Entry: got %v, want an OutsideScope *TargetError", err)
	}
}

func TestStates(t *testing.T) {
	dir := writeScope(t, map[string]string{
		"START.md": "", "B.md": "", "RUN.sh": "", "notes.txt": "", "sub/": "", "DIR.md/": "", "sub/INNER.md": "", ".md": "",
	})
	symlink(t, dir, "B.md", "LINK.md")
	symlink(t, dir, "MISSING.md", "DANGLING.md")
	got, err := openScope(t, dir).States()
	must(t, err)
	if want := []string{"B.md", "LINK.md", "RUN.sh", "START.md"}; !slices.Equal(got, want) {
		t.Errorf("States = %q, want %q", got, want)
	}

	if _, err := OpenDir(filepath.Join(dir, "nope")); err == nil {
		t.Error("States of a missing folder: got no error")
	}
}

func TestEntryOfZipSaysWhichFolderIsTheWorkflow(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "deep.zip", zipOf(t, map[string]string{"wf/inner/START.md": "go"}))
	writeFile(t, dir, "flat.zip", zipOf(t, map[string]string{"A.md": "a", "sub/START.md": "go"}))
	_, _, err := Entry(filepath.Join(dir, "deep.zip"))
	wantErrContains(t, err, "no 1_START.md or START.md in wf/, the zip's one top-level folder", "(inner/) are ignored")
	_, _, err = Entry(filepath.Join(dir, "flat.zip"))
	wantErrContains(t, err, "no 1_START.md or START.md at the zip's root", "(sub/) are ignored", "flat.zip/A.md")
}

func TestWorkflowEntryInTwoKinds(t *testing.T) {
	dir := writeScope(t, map[string]string{"main/START.md": "", "lib/review/START.md": "", "lib/review/START.sh": ""})
	ss := NewScopes(nil)
	defer ss.Close()
	from, err := ss.Open(filepath.Join(dir, "main"), "")
	must(t, err)
	_, _, err = ss.Workflow(from, "../lib/review/")
	wantErrContains(t, err, "both START.md and START.sh exist; name the state to start at in the tag, e.g. ../lib/review/START.md")
}

func TestStartNamesAnErrorsPlaceOnce(t *testing.T) {
	dir := writeScope(t, map[string]string{"e1.yaml": "states:\n  START:\n  - x\n", "m/START.md": "go", "m/workflow.yaml": "backend: [\n"})
	t.Chdir(dir)
	for arg, want := range map[string]string{
		"e1.yaml":                           "e1.yaml:2:3: state \"START\" must be a mapping",
		"./e1.yaml/START":                   "e1.yaml:2:3: state \"START\" must be a mapping",
		filepath.Join(dir, "e1.yaml"):       filepath.Join(dir, "e1.yaml") + ":2:3: state",
		"m":                                 filepath.Join("m", "workflow.yaml") + ":1: invalid manifest",
		filepath.Join(dir, "m", "START.md"): filepath.Join(dir, "m", "workflow.yaml") + ":1: invalid manifest",
	} {
		_, _, err := Entry(arg)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Count(err.Error(), "e1.yaml")+strings.Count(err.Error(), "workflow.yaml") != 1 {
			t.Errorf("Entry(%s) = %v, want it to start with %q and name the file once", arg, err, want)
		}
	}
}
