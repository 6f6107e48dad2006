package workflow

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolve(t *testing.T) {
	root := writeScope(t, map[string]string{
		"wf/REVIEW.md":       "",
		"wf/RUN.sh":          "",
		"wf/BOTH.md":         "",
		"wf/BOTH.sh":         "",
		"wf/v1.2.md":         "",
		"wf/notes.txt":       "",
		"wf/sub/INNER.md":    "",
		"wf/FOLDER.md/":      "",
		"outside.md":         "",
		"outside/SECRET.md":  "",
		"wf/README.markdown": "",
	})
	scope := filepath.Join(root, "wf")
	symlink(t, scope, "REVIEW.md", "ALIAS.md")
	symlink(t, scope, "sub/INNER.md", "DEEP.md")
	symlink(t, scope, "../outside.md", "ESCAPE.md")
	symlink(t, scope, filepath.Join(root, "outside.md"), "ABS.md")
	symlink(t, scope, "../outside", "OUT")
	symlink(t, scope, "OUT/SECRET.md", "HOP.md")

	tests := []struct {
		target string
		want   string
		kind   TargetKind
	}{
		{target: "REVIEW", want: "REVIEW.md"},
		{target: "REVIEW.md", want: "REVIEW.md"},
		{target: "RUN", want: "RUN.sh"},
		{target: "RUN.sh", want: "RUN.sh"},
		{target: "BOTH.md", want: "BOTH.md"},
		{target: "BOTH.sh", want: "BOTH.sh"},
		{target: "v1.2", want: "v1.2.md"},
		{target: "ALIAS", want: "ALIAS.md"},
		{target: "DEEP.md", want: "DEEP.md"},
		{target: "BOTH", kind: Ambiguous},
		{target: "MISSING", kind: NotFound},
		{target: "MISSING.md", kind: NotFound},
		{target: "RUN.md", kind: NotFound},
		{target: "notes.txt", kind: NotAState},
		{target: "other.txt", kind: NotFound}, // no such file: "not found", not "not a state"
		{target: "PHASE.2", kind: NotFound},
		{target: "README.markdown", kind: NotAState},
		{target: "sub", kind: NotAState},
		{target: "FOLDER.md", kind: NotAState},
		{target: "FOLDER", kind: NotAState},
		{target: "ESCAPE", kind: OutsideScope},
		{target: "ESCAPE.md", kind: OutsideScope},
		{target: "ABS.md", kind: OutsideScope},
		{target: "HOP.md", kind: OutsideScope},
		{target: "", kind: Unsafe},
		{target: "..", kind: Unsafe},
		{target: ".", kind: Unsafe},
		{target: "../outside.md", kind: Unsafe},
		{target: "../outside", kind: Unsafe},
		{target: "sub/INNER.md", kind: Unsafe},
		{target: `sub\INNER.md`, kind: Unsafe},
		{target: "/etc/passwd", kind: Unsafe},
		{target: "A\x00.md", kind: Unsafe},
		{target: "~REVIEW.md", kind: Unsafe},
		{target: "  ", kind: Unsafe},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			got, err := openScope(t, scope).Resolve(tt.target)
			if tt.kind == 0 {
				if err != nil || got != tt.want {
					t.Fatalf("Resolve = %q, %v; want %q", got, err, tt.want)
				}
				return
			}
			var te *TargetError
			if !errors.As(err, &te) {
				t.Fatalf("Resolve = %q, %v; want a *TargetError", got, err)
			}
			if te.Kind != tt.kind || te.Target != tt.target || !strings.Contains(te.Error(), "target") {
				t.Errorf("got %v error %q for %q, want %v", te.Kind, te, te.Target, tt.kind)
			}
		})
	}
}

// Load reads through readInScope, which checks the file it opened: a link
// that pointed inside the scope when Resolve ran may point elsewhere by the
// time the file is read.
func TestReadInScope(t *testing.T) {
	root := writeScope(t, map[string]string{"wf/START.md": "start", "wf/sub/INNER.md": "inner", "outside.md": "secret"})
	scope := filepath.Join(root, "wf")
	symlink(t, scope, "../outside.md", "ESCAPE.md")
	symlink(t, scope, "sub/INNER.md", "DEEP.md")
	s := openScope(t, scope)

	for name, want := range map[string]string{"START.md": "start", "DEEP.md": "inner"} {
		got, err := s.read(name)
		if err != nil || string(got) != want {
			t.Errorf("readInScope(%s) = %q, %v; want %q", name, got, err, want)
		}
	}
	got, err := s.read("ESCAPE.md")
	var te *TargetError
	if !errors.As(err, &te) || te.Kind != OutsideScope || got != nil {
		t.Errorf("readInScope(ESCAPE.md) = %q, %v; want an OutsideScope *TargetError", got, err)
	}
	if _, err := s.read("sub"); !errors.As(err, &te) || te.Kind != NotAState {
		t.Errorf("readInScope(sub): got %v, want a NotAState *TargetError", err)
	}
}

func TestResolveThroughSymlinkedScope(t *testing.T) {
	root := writeScope(t, map[string]string{"real/START.md": ""})
	symlink(t, root, "real", "wf")
	got, err := openScope(t, filepath.Join(root, "wf")).Resolve("START")
	if err != nil || got != "START.md" {
		t.Fatalf("Resolve = %q, %v; want START.md", got, err)
	}
}

func TestResolveRelativeScope(t *testing.T) {
	root := writeScope(t, map[string]string{"wf/START.md": "", "wf/sub/INNER.md": ""})
	symlink(t, root, filepath.Join(root, "wf", "sub", "INNER.md"), "wf/ABS.md")
	t.Chdir(root)
	for _, target := range []string{"START", "ABS"} {
		if _, err := openScope(t, "wf").Resolve(target); err != nil {
			t.Errorf("Resolve(wf, %s): %v", target, err)
		}
	}
}

func TestResolveMissingScope(t *testing.T) {
	_, err := OpenDir(filepath.Join(t.TempDir(), "nope"))
	var te *TargetError
	if err == nil || errors.As(err, &te) {
		t.Fatalf("Resolve in a missing scope: got %v, want a plain error", err)
	}
}

func TestTargetKindString(t *testing.T) {
	for k, want := range map[TargetKind]string{OutsideScope: "outside scope", TargetKind(99): "TargetKind(99)"} {
		if got := k.String(); got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	}
}
