//go:build unix

package workflow

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO named like a state would block a read forever: it is not a state,
// whether Resolve finds it or it appears after Resolve, before the read.
func TestFIFOIsNotAState(t *testing.T) {
	scope := writeScope(t, map[string]string{"START.md": ""})
	must(t, syscall.Mkfifo(filepath.Join(scope, "PIPE.md"), 0o644))
	s := openScope(t, scope)
	for _, target := range []string{"PIPE", "PIPE.md"} {
		_, err := s.Load(target)
		var te *TargetError
		if !errors.As(err, &te) || te.Kind != NotAState {
			t.Errorf("Load(%s): got %v, want a NotAState *TargetError", target, err)
		}
	}
	_, err := s.read("PIPE.md")
	var te *TargetError
	if !errors.As(err, &te) || te.Kind != NotAState {
		t.Errorf("readInScope: got %v, want a NotAState *TargetError", err)
	}
}

// A FIFO named workflow.yaml beside the states is not read as the
// manifest (without the fix this test never returns): opening the
// workflow fails, saying what the file is.
func TestFIFOManifestIsNotRead(t *testing.T) {
	scope := writeScope(t, map[string]string{"START.md": "<result>x</result>"})
	must(t, syscall.Mkfifo(filepath.Join(scope, ManifestFile), 0o644))
	ss := NewScopes(nil)
	defer ss.Close()
	_, _, err := ss.Start(scope)
	if err == nil || !strings.Contains(err.Error(), "workflow.yaml is not a regular file") {
		t.Errorf("Start: got %v, want an error saying workflow.yaml is not a regular file", err)
	}
}
