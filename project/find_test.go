package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	skipIfMarkedAbove(t, root)

	tests := []struct {
		name  string
		make  []string // folders to create under root; a name ending in "=file" is a file
		start string
		want  string
	}{
		{
			name:  "neither",
			make:  []string{"a/b"},
			start: "a/b",
			want:  "a/b",
		},
		{
			name:  "raymond here",
			make:  []string{"a/.raymond"},
			start: "a",
			want:  "a",
		},
		{
			name:  "nearest raymond wins",
			make:  []string{"a/.raymond", "a/b/.raymond", "a/b/c/d"},
			start: "a/b/c/d",
			want:  "a/b",
		},
		{
			name:  "raymond above the git root is not looked for",
			make:  []string{"a/.raymond", "a/repo/.git", "a/repo/src"},
			start: "a/repo/src",
			want:  "a/repo",
		},
		{
			name:  "raymond above, outside any repository",
			make:  []string{"a/.raymond", "a/b/c"},
			start: "a/b/c",
			want:  "a",
		},
		{
			name:  "raymond inside the repo wins",
			make:  []string{"repo/.git", "repo/sub/.raymond", "repo/sub/x"},
			start: "repo/sub/x",
			want:  "repo/sub",
		},
		{
			name:  "git root",
			make:  []string{"repo/.git", "repo/a/b"},
			start: "repo/a/b",
			want:  "repo",
		},
		{
			name:  "git worktree file",
			make:  []string{"wt/.git=file", "wt/a"},
			start: "wt/a",
			want:  "wt",
		},
		{
			name:  "nearest git root",
			make:  []string{"outer/.git", "outer/inner/.git", "outer/inner/a"},
			start: "outer/inner/a",
			want:  "outer/inner",
		},
		{
			name:  "a .raymond file is not a project",
			make:  []string{"a/.raymond=file", "a/b"},
			start: "a/b",
			want:  "a/b",
		},
		{
			name:  "start is a file",
			make:  []string{"repo/.git", "repo/f=file"},
			start: "repo/f",
			want:  "repo",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join(root, filepath.Base(t.Name()))
			for _, p := range tt.make {
				path := filepath.Join(base, p)
				if file, ok := strings.CutSuffix(path, "=file"); ok {
					must(t, os.MkdirAll(filepath.Dir(file), 0o755))
					must(t, os.WriteFile(file, []byte("gitdir: elsewhere\n"), 0o644))
					continue
				}
				must(t, os.MkdirAll(path, 0o755))
			}
			got, err := Find(filepath.Join(base, tt.start))
			must(t, err)
			if want := filepath.Join(base, tt.want); got != want {
				t.Errorf("Find = %s, want %s", got, want)
			}
		})
	}
}

func TestFindRelative(t *testing.T) {
	root := t.TempDir()
	skipIfMarkedAbove(t, root)
	must(t, os.MkdirAll(filepath.Join(root, "repo", ".git"), 0o755))
	must(t, os.MkdirAll(filepath.Join(root, "repo", "a"), 0o755))
	t.Chdir(filepath.Join(root, "repo", "a"))

	got, err := Find(".")
	must(t, err)
	if want := filepath.Join(root, "repo"); got != want {
		t.Errorf("Find(.) = %s, want %s", got, want)
	}
}

// skipIfMarkedAbove skips when a folder above dir already has .raymond or
// .git: the cases could not tell "neither" from "found above".
func skipIfMarkedAbove(t *testing.T, dir string) {
	t.Helper()
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		for _, m := range []string{".raymond", ".git"} {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				t.Skipf("%s has %s: the temp folder is inside a project", d, m)
			}
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
