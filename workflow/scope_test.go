package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

// A scope over a file system of its own, as a zip archive gives: the same
// names resolve, states load and list, without a folder on disk.
func TestScopeOverFS(t *testing.T) {
	s := NewScope(fstest.MapFS{
		"START.md":  {Data: []byte("---\nmodel: haiku\n---\nStart.\n")},
		"RUN.sh":    {Data: []byte("#!/bin/sh\n")},
		"sub/A.md":  {Data: []byte("")},
		"notes.txt": {Data: []byte("")},
	}, "wf.zip")
	defer s.Close()
	if s.Dir() != "wf.zip" {
		t.Errorf("Dir = %q", s.Dir())
	}
	for target, want := range map[string]string{"START": "START.md", "RUN": "RUN.sh"} {
		if got, err := s.Resolve(target); err != nil || got != want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", target, got, err, want)
		}
	}
	for target, kind := range map[string]TargetKind{"sub": NotAState, "notes.txt": NotAState, "MISSING": NotFound} {
		_, err := s.Resolve(target)
		if te, ok := errors.AsType[*TargetError](err); !ok || te.Kind != kind {
			t.Errorf("Resolve(%s): got %v, want a %v *TargetError", target, err, kind)
		}
	}
	st, err := s.Load("START")
	must(t, err)
	if st.Policy.Model != "haiku" || st.Body != "Start.\n" || st.Path != "wf.zip/START.md" {
		t.Errorf("Load = %+v", st)
	}
	states, err := s.States()
	must(t, err)
	if want := []string{"RUN.sh", "START.md"}; !slices.Equal(states, want) {
		t.Errorf("States = %q, want %q", states, want)
	}
}

// One Scope serves a whole run: it keeps reading the folder it opened.
func TestScopeReadsAfterRename(t *testing.T) {
	root := writeScope(t, map[string]string{"wf/START.md": "Start.\n"})
	s := openScope(t, filepath.Join(root, "wf"))
	must(t, os.Rename(filepath.Join(root, "wf"), filepath.Join(root, "moved")))
	st, err := s.Load("START")
	must(t, err)
	if st.Body != "Start.\n" {
		t.Errorf("Body = %q", st.Body)
	}
}
