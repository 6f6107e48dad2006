package workflow

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// zipOf builds a zip archive of files (name → content; a name ending in /
// is a folder entry), in the order of names sorted.
func zipOf(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// writeFile writes content to dir/name and returns the path.
func writeFile(t *testing.T, dir, name string, content []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.MkdirAll(filepath.Dir(p), 0o755))
	must(t, os.WriteFile(p, content, 0o644))
	return p
}

func TestZipLayout(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		states  []string
		wantErr string
	}{
		{name: "root files", files: map[string]string{"START.md": "go", "sub/X.md": "x"}, states: []string{"START.md"}},
		{name: "one folder", files: map[string]string{"wf/": "", "wf/START.md": "go", "wf/RUN.sh": "echo"}, states: []string{"RUN.sh", "START.md"}},
		{name: "mac leavings ignored", files: map[string]string{"wf/START.md": "go", "__MACOSX/wf/._START.md": "x", ".DS_Store": "x"}, states: []string{"START.md"}},
		{name: "nested folders allowed", files: map[string]string{"wf/START.md": "go", "wf/lib/deep/A.md": "a"}, states: []string{"START.md"}},
		{name: "states layout", files: map[string]string{"wf/workflow.yaml": "id: x\n", "wf/states/START.md": "go", "wf/states/RUN.sh": "echo"}, states: []string{"RUN.sh", "START.md"}},
		{name: "states/ ignored beside an entry", files: map[string]string{"wf/START.md": "go", "wf/states/START.md": "x", "wf/states/B.md": "b"}, states: []string{"START.md"}},
		{name: "states/ without an entry ignored", files: map[string]string{"wf/A.md": "a", "wf/states/B.md": "b"}, states: []string{"A.md"}},
		{name: "no files", files: map[string]string{"wf/": ""}, wantErr: "holds no files"},
		{name: "empty", files: map[string]string{}, wantErr: "holds no files"},
		{name: "two folders", files: map[string]string{"a/START.md": "", "b/START.md": ""}, wantErr: "2 top-level folders"},
		{name: "dot dot", files: map[string]string{"../evil.md": "x"}, wantErr: `contains ".."`},
		{name: "dot dot inside", files: map[string]string{"wf/../../evil.md": "x"}, wantErr: `contains ".."`},
		{name: "absolute", files: map[string]string{"/etc/START.md": "x"}, wantErr: "absolute"},
		{name: "backslash dot dot", files: map[string]string{`wf\..\x.md`: "x"}, wantErr: `contains ".."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), "wf.zip", zipOf(t, tt.files))
			s, err := openZip(p, "")
			if tt.wantErr != "" {
				wantErrContains(t, err, tt.wantErr)
				return
			}
			must(t, err)
			got, err := s.States()
			must(t, err)
			if !slices.Equal(got, tt.states) {
				t.Errorf("States = %q, want %q", got, tt.states)
			}
		})
	}
	p := writeFile(t, t.TempDir(), "wf.zip", []byte("not a zip at all"))
	_, err := openZip(p, "")
	wantErrContains(t, err, "not a valid zip archive")
}

func TestZipPinning(t *testing.T) {
	data := zipOf(t, map[string]string{"START.md": "go"})
	sum := hashOf(data)
	other := strings.Repeat("ab", 32)
	tests := []struct {
		file, wantErr, name string
	}{
		{file: "review-" + sum + ".zip", name: "review"},
		{file: sum + "_review.zip", name: "review"},
		{file: strings.ToUpper(sum) + ".zip", name: "workflow"},
		{file: "review.zip", name: "review"},
		{file: "review-" + other + ".zip", wantErr: "mismatch: the name pins " + other + " but the file has " + sum},
		{file: sum + "-" + other + ".zip", wantErr: "two runs"},
		{file: sum + "a.zip", wantErr: "run of 65 hex digits"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			p := writeFile(t, t.TempDir(), tt.file, data)
			s, err := openZip(p, "")
			if tt.wantErr != "" {
				wantErrContains(t, err, tt.wantErr)
				return
			}
			must(t, err)
			if s.Name() != tt.name || s.Kind() != Zip {
				t.Errorf("Name = %q, Kind = %v", s.Name(), s.Kind())
			}
			st, err := s.Load("START")
			must(t, err)
			if st.Body != "go" {
				t.Errorf("body %q", st.Body)
			}
		})
	}
}

// TestZipReadsVerifiedBytes changes the file after opening: the scope still
// serves what was checked.
func TestZipReadsVerifiedBytes(t *testing.T) {
	data := zipOf(t, map[string]string{"START.md": "old", "RUN.sh": "echo hi"})
	p := writeFile(t, t.TempDir(), "wf-"+hashOf(data)+".zip", data)
	s, err := openZip(p, "")
	must(t, err)
	must(t, os.WriteFile(p, zipOf(t, map[string]string{"START.md": "new"}), 0o644))
	st, err := s.Load("START.md")
	must(t, err)
	if st.Body != "old" {
		t.Errorf("body %q, want the verified bytes", st.Body)
	}
	sh, err := s.Load("RUN")
	must(t, err)
	if !sh.Script || sh.ScriptPath != "" || sh.Body != "echo hi" {
		t.Errorf("script in zip: %+v", sh)
	}
}

func TestZipBomb(t *testing.T) {
	defer func(old int64) { zipLimit = old }(zipLimit)
	zipLimit = 4 << 20
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("START.md")
	must(t, err)
	chunk := make([]byte, 1<<20)
	for range zipLimit>>20 + 1 {
		w.Write(chunk)
	}
	must(t, zw.Close())
	p := writeFile(t, t.TempDir(), "bomb.zip", buf.Bytes())
	_, err = openZip(p, "")
	wantErrContains(t, err, "more than the limit of 4 MiB uncompressed")
	zipLimit = 1 << 10
	_, err = openZip(p, "")
	wantErrContains(t, err, "larger than the limit of 0 MiB")
}

const yamlWF = `name: review
input: { mode: required, label: Ticket }
default_budget: 2.5
states:
  START:
    prompt: |
      Look at {{input}}.
    allowed_transitions:
      - { tag: goto, target: POLL }
    model: haiku
    timeout: 90
  POLL:
    sh: echo '<goto>START</goto>'
    bat: echo
    timeout: 5m
  WIN:
    ps1: Write-Host hi
`

func TestYAMLWorkflow(t *testing.T) {
	p := writeFile(t, t.TempDir(), "wf.yaml", []byte(yamlWF))
	s, err := openYAML(p)
	must(t, err)
	if s.Kind() != YAML || s.Name() != "wf" {
		t.Errorf("Kind %v, Name %q", s.Kind(), s.Name())
	}
	m := s.Manifest()
	if m == nil || m.Name != "review" || m.Input.Mode != "required" || m.Input.Label != "Ticket" || m.DefaultBudget != 2.5 {
		t.Errorf("manifest %+v", m)
	}
	states, err := s.States()
	must(t, err)
	if want := []string{"POLL.sh", "START.md"}; !slices.Equal(states, want) {
		t.Errorf("States = %q, want %q", states, want)
	}
	entry, err := s.Entry()
	must(t, err)
	if entry != "START.md" {
		t.Errorf("Entry = %q", entry)
	}
	st, err := s.Load("START")
	must(t, err)
	if st.Body != "Look at {{input}}.\n" || st.Policy.Model != "haiku" || *st.Policy.Timeout != 90*time.Second || len(st.Policy.Rules) != 1 || st.Script {
		t.Errorf("START = %+v", st)
	}
	sh, err := s.Load("POLL")
	must(t, err)
	if !sh.Script || sh.Body != "echo '<goto>START</goto>'" || *sh.Policy.Timeout != 5*time.Minute || sh.ScriptPath != "" {
		t.Errorf("POLL = %+v", sh)
	}
	_, err = s.Load("WIN")
	wantErrContains(t, err, "WIN.ps1, a Windows script", "write WIN.sh")
	_, err = s.Load("POLL.bat")
	wantErrContains(t, err, "write POLL.sh")

	// An edit takes effect at the next load.
	must(t, os.WriteFile(p, []byte(strings.Replace(yamlWF, "Look at", "Read", 1)+"\n"), 0o644))
	st, err = s.Load("START")
	must(t, err)
	if st.Body != "Read {{input}}.\n" {
		t.Errorf("after edit: %q", st.Body)
	}
	// An edit of the same size that keeps the modification time (a
	// coarse clock) is seen too.
	fi, err := os.Stat(p)
	must(t, err)
	must(t, os.WriteFile(p, []byte(strings.Replace(yamlWF, "Look at", "Reed", 1)+"\n"), 0o644))
	must(t, os.Chtimes(p, fi.ModTime(), fi.ModTime()))
	st, err = s.Load("START")
	must(t, err)
	if st.Body != "Reed {{input}}.\n" {
		t.Errorf("after an edit with the same size and time: %q", st.Body)
	}
	must(t, os.WriteFile(p, []byte("states: [\n"), 0o644))
	_, err = s.Load("START")
	wantErrContains(t, err, "wf.yaml:")
	// Resolving a target in the broken file fails the agent: no reminder
	// can repair the file (§12).
	_, err = s.Resolve("START")
	if _, ok := errors.AsType[*UseError](err); !ok {
		t.Errorf("Resolve in an invalid YAML file: %v (%T), want a *UseError", err, err)
	}
	wantErrContains(t, err, "START: ", "wf.yaml:")
}

func TestYAMLWorkflowErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"no states", "name: x\n", ":1:1: no states: key; this looks like a manifest"},
		{"a test file", "workflow: wf\ncases:\n  - name: a\n", ":1:1: no states: key; this is a workflow test (it has cases:), not a workflow: raymond test runs it"},
		{"state-like top level", "START:\n  prompt: hi\n", "put the states under one"},
		{"empty states", "states: {}\n", ":1:9: states is empty"},
		{"states not a map", "states: [a]\n", "states must be a mapping"},
		{"both", "states:\n  A:\n    prompt: hi\n    sh: echo\n", ":2:3: state \"A\" has both prompt and a script"},
		{"neither", "states:\n  A:\n    model: haiku\n", "has neither prompt nor sh"},
		{"policy on script", "states:\n  A:\n    sh: echo\n    model: haiku\n", ":4:5: state \"A\" is a script, but model applies to prompts only"},
		{"negative timeout", "states:\n  A:\n    prompt: hi\n    timeout: -1\n", ":4:5: timeout must be a duration"},
		{"bad timeout", "states:\n  A:\n    sh: echo\n    timeout: soon\n", "timeout must be a duration"},
		{"slash name", "states:\n  a/b:\n    prompt: hi\n", "contains a / or \\"},
		{"backslash name", "states:\n  'a\\b':\n    prompt: hi\n", "contains a / or \\"},
		{"md name", "states:\n  A.md:\n    prompt: hi\n", "ends in .md"},
		{"ps1 name", "states:\n  A.ps1:\n    ps1: x\n", "ends in .ps1"},
		{"empty name", "states:\n  '':\n    prompt: hi\n", "state name is empty"},
		{"wrong type", "states:\n  A:\n    prompt: [1]\n", ":3:5: prompt must be a string"},
		{"wrong type model", "states:\n  A:\n    prompt: hi\n    model: [1]\n", "model item 1 must be a model name like sonnet, not a number (quote it)"},
		{"bad rule", "states:\n  A:\n    prompt: hi\n    allowed_transitions: [{tag: nope}]\n", "unknown tag"},
		{"syntax", "states:\n  A: [\n", "wf.yaml:"},
		{"not a mapping", "- a\n", "must be a mapping with a states: key"},
		{"empty file", "", "the file is empty"},
		{"state not a map", "states:\n  A: hi\n", "must be a mapping with prompt or sh"},
		{"bad manifest value", "default_budget: lots\nstates:\n  A:\n    prompt: hi\n", ":1:1: default_budget must be a number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseYAMLWorkflow("wf.yaml", []byte(tt.text))
			wantErrContains(t, err, tt.want)
		})
	}
}

func TestYAMLWarnings(t *testing.T) {
	wf, err := parseYAMLWorkflow("wf.yaml", []byte("colour: red\nstates:\n  A:\n    prompt: hi\n    flavour: x\n"))
	must(t, err)
	if w := wf.manifest.Warnings; len(w) != 1 || w[0] != `wf.yaml:1: unknown top-level key "colour" ignored` {
		t.Errorf("manifest warnings %q", w)
	}
	if w := wf.states["A.md"].warnings; len(w) != 1 || !strings.Contains(w[0], `wf.yaml:5: state "A": unknown key "flavour"`) {
		t.Errorf("state warnings %q", w)
	}
}

func TestFrontmatterTimeout(t *testing.T) {
	st, err := ParseState("A.md", []byte("---\ntimeout: 15m\n---\nhi\n"))
	must(t, err)
	if st.Policy.Timeout == nil || *st.Policy.Timeout != 15*time.Minute {
		t.Errorf("Timeout = %v", st.Policy.Timeout)
	}
	st, err = ParseState("A.md", []byte("---\ntimeout: 0\n---\nhi\n"))
	must(t, err)
	if st.Policy.Timeout == nil || *st.Policy.Timeout != 0 {
		t.Errorf("Timeout 0 = %v", st.Policy.Timeout)
	}
	_, err = ParseState("A.md", []byte("---\ntimeout: -5s\n---\nhi\n"))
	wantErrContains(t, err, "A.md:2: timeout must be a duration")
}

func TestManifest(t *testing.T) {
	m, err := parseManifest("workflow.yaml", []byte(`id: r
name: Review
description: d
input: { mode: none, label: L, description: D }
default_budget: 3
requires_human_input: false
working_directory: /tmp
environment: { A: "1" }
backend: { name: claude, options: { x: 1 } }
extra: 1
`))
	must(t, err)
	want := Manifest{ID: "r", Name: "Review", Description: "d", Input: ManifestInput{Mode: "none", Label: "L", Description: "D"},
		DefaultBudget: 3, RequiresHumanInput: "false", WorkingDirectory: "/tmp", Environment: map[string]string{"A": "1"},
		Backend: "claude", Warnings: []string{`workflow.yaml:10: unknown manifest key "extra" ignored`}}
	if fmt.Sprint(*m) != fmt.Sprint(want) {
		t.Errorf("manifest\n got %+v\nwant %+v", *m, want)
	}
	for text, wantErr := range map[string]string{
		"input: { mode: maybe }":      "input.mode must be required, optional or none",
		"requires_human_input: often": "requires_human_input must be auto, true or false",
		"default_budget: -1":          "default_budget must be a number",
		"environment: [a]":            "environment must be a mapping",
		"[":                           "invalid manifest",
	} {
		_, err := parseManifest("workflow.yaml", []byte(text))
		wantErrContains(t, err, wantErr)
	}
}

func TestStart(t *testing.T) {
	data := zipOf(t, map[string]string{"wf/START.md": "go", "wf/CHECK.md": "check"})
	dir := writeScope(t, map[string]string{
		"wf/START.md": "go", "wf/POLL.sh": "echo", "wf/ONLY.bat": "x",
		"sh/START.sh": "echo", "both/1_START.md": "a", "both/START.sh": "b",
		"layout/workflow.yaml": "name: outer\n", "layout/states/1_START.md": "go",
		"other/backend/workflow.yaml": "backend: codex\n", "other/backend/START.md": "go",
		"y.yaml": yamlWF, "y.yml": yamlWF,
	})
	writeFile(t, dir, "a.zip", data)
	t.Chdir(dir)
	tests := []struct {
		arg, scope, state, wantErr string
	}{
		{arg: "wf", scope: "wf", state: "START.md"},
		{arg: "wf/POLL", scope: "wf", state: "POLL.sh"},
		{arg: "wf/POLL.sh", scope: "wf", state: "POLL.sh"},
		{arg: "wf/START.md", scope: "wf", state: "START.md"},
		{arg: "sh", scope: "sh", state: "START.sh"},
		{arg: "both", wantErr: "both 1_START.md and START.sh exist"},
		{arg: "layout", scope: "layout/states", state: "1_START.md"},
		{arg: "y.yaml", scope: "y.yaml", state: "START.md"},
		{arg: "y.yml/POLL", scope: "y.yml", state: "POLL.sh"},
		{arg: "y.yaml/POLL/", wantErr: "a / after a state of a YAML workflow"},
		{arg: "y.yaml/NOPE", wantErr: `"NOPE" does not exist`},
		{arg: "a.zip", scope: "a.zip", state: "START.md"},
		{arg: "a.zip/CHECK", scope: "a.zip", state: "CHECK.md"},
		{arg: "a.zip/sub/CHECK", wantErr: "its states are at its root"},
		{arg: "wf/ONLY", wantErr: "write ONLY.sh"},
		{arg: "wf/ONLY.bat", wantErr: "write ONLY.sh"},
		{arg: "wf/NOPE", wantErr: "wf/NOPE: no such file or folder"},
		{arg: "nope/START.md", wantErr: "no such file or folder"},
		{arg: "nope.zip", wantErr: "no such file or folder"},
		{arg: "other/backend", wantErr: `backend "codex"`},
		{arg: "https://example.com/" + hashOf(data) + ".zip", wantErr: "nothing here downloads workflows"},
		{arg: "https://example.com/wf.zip", wantErr: "not pinned"},
	}
	for _, tt := range tests {
		t.Run(tt.arg, func(t *testing.T) {
			ss := NewScopes(nil)
			defer ss.Close()
			s, state, err := ss.Start(tt.arg)
			if tt.wantErr != "" {
				wantErrContains(t, err, tt.wantErr)
				return
			}
			must(t, err)
			if state != tt.state {
				t.Errorf("state = %q, want %q", state, tt.state)
			}
			want, _ := filepath.EvalSymlinks(filepath.Join(dir, tt.scope))
			got, _ := filepath.EvalSymlinks(s.Dir())
			if got != want || !filepath.IsAbs(s.Dir()) {
				t.Errorf("scope = %q, want %q", s.Dir(), want)
			}
		})
	}
}

func TestStatesLayoutUsesParentManifest(t *testing.T) {
	dir := writeScope(t, map[string]string{"wf/workflow.yaml": "name: outer\n", "wf/states/START.md": "go"})
	ss := NewScopes(nil)
	defer ss.Close()
	s, _, err := ss.Start(filepath.Join(dir, "wf"))
	must(t, err)
	if s.Manifest() == nil || s.Manifest().Name != "outer" || s.Name() != "states" {
		t.Errorf("manifest %+v, name %q", s.Manifest(), s.Name())
	}
}

func TestWorkflowSpecifiers(t *testing.T) {
	data := zipOf(t, map[string]string{"START.md": "go", "CHECK.sh": "echo"})
	bad := zipOf(t, map[string]string{"a/START.md": "", "b/START.md": ""})
	dir := writeScope(t, map[string]string{
		"main/START.md":       "go",
		"lib/review/START.md": "r", "lib/review/CHECK.md": "c", "lib/review/CHECK2.sh": "c",
		"lib/noentry/A.md": "a", "lib/codex/START.md": "x", "lib/codex/workflow.yaml": "backend: codex\n",
		"lib/flow.yaml": yamlWF, "lib/broken.yaml": "states: {}\n",
		"lib/win/START.md": "x", "lib/win/W.ps1": "x",
	})
	writeFile(t, dir, "lib/pack.zip", data)
	writeFile(t, dir, "lib/bad.zip", bad)
	writeFile(t, dir, "lib/pinned-"+strings.Repeat("ab", 32)+".zip", data)
	ss := NewScopes(nil)
	defer ss.Close()
	from, err := ss.Open(filepath.Join(dir, "main"), "")
	must(t, err)
	yamlFrom, err := ss.Open(filepath.Join(dir, "lib/flow.yaml"), "")
	must(t, err)

	tests := []struct {
		from          *Scope
		spec          string
		scope, state  string
		target, usage string // wanted TargetError / UseError text
	}{
		{spec: "../lib/review", scope: "lib/review", state: "START.md"},
		{spec: `..\lib\review\`, scope: "lib/review", state: "START.md"},
		{spec: "../lib/review/CHECK", scope: "lib/review", state: "CHECK.md"},
		{spec: "../lib/review/CHECK2", scope: "lib/review", state: "CHECK2.sh"},
		{spec: "../lib/review/CHECK.md", scope: "lib/review", state: "CHECK.md"},
		{spec: filepath.Join(dir, "lib/review"), scope: "lib/review", state: "START.md"},
		{spec: "../lib/flow.yaml", scope: "lib/flow.yaml", state: "START.md"},
		{spec: "../lib/flow.yaml/POLL", scope: "lib/flow.yaml", state: "POLL.sh"},
		{spec: "../lib/pack.zip", scope: "lib/pack.zip", state: "START.md"},
		{spec: "../lib/pack.zip/CHECK", scope: "lib/pack.zip", state: "CHECK.sh"},
		{from: yamlFrom, spec: "../review", scope: "lib/review", state: "START.md"},
		{from: yamlFrom, spec: "pack.zip", target: "does not exist"}, // relative to lib/flow/, not lib/
		{spec: "../lib/nope", target: "does not exist"},
		{spec: "../lib/review/NOPE", target: "does not exist"},
		{spec: "../lib/nope.zip", target: "does not exist"},
		{spec: "../lib/pack.zip/NOPE", target: "does not exist"},
		{spec: "../lib/pack.zip/sub/CHECK", target: "does not exist"},
		{spec: "../lib/review/CHECK/", target: "does not exist"},
		{spec: "../lib/win/W", target: "write W.sh"},
		{spec: "", target: "empty"},
		{spec: "../lib/pack.zip/CHECK/", usage: "a / after a state"},
		{spec: "../lib/noentry", usage: "no 1_START.md or START.md; name the state to start at in the tag, e.g. ../lib/noentry/A.md"},
		{spec: "../lib/codex", usage: `backend "codex"`},
		{spec: "../lib/broken.yaml", usage: "states is empty"},
		{spec: "../lib/bad.zip", usage: "top-level folders"},
		{spec: "../lib/pinned-" + strings.Repeat("ab", 32) + ".zip", usage: "mismatch"},
		{spec: "https://example.com/x.zip", usage: "absolute URL"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			f := from
			if tt.from != nil {
				f = tt.from
			}
			s, state, err := ss.Workflow(f, tt.spec)
			switch {
			case tt.target != "":
				te, ok := errors.AsType[*TargetError](err)
				if !ok {
					t.Fatalf("err = %v (%T), want a *TargetError", err, err)
				}
				wantErrContains(t, te, tt.target)
				return
			case tt.usage != "":
				ue, ok := errors.AsType[*UseError](err)
				if !ok {
					t.Fatalf("err = %v (%T), want a *UseError", err, err)
				}
				wantErrContains(t, ue, tt.spec, tt.usage)
				return
			}
			must(t, err)
			if want := filepath.Join(dir, tt.scope); s.Dir() != want || state != tt.state {
				t.Errorf("got %s %s, want %s %s", s.Dir(), state, want, tt.state)
			}
		})
	}
}

func TestWorkflowInsideZipHint(t *testing.T) {
	flat := zipOf(t, map[string]string{"START.md": "go", "review/START.md": "r"})
	layered := zipOf(t, map[string]string{"README.md": "r", "states/START.md": "go", "review/START.md": "r"})
	dir := t.TempDir()
	writeFile(t, dir, "flat.zip", flat)
	writeFile(t, dir, "layered.zip", layered)
	ss := NewScopes(nil)
	defer ss.Close()
	for _, name := range []string{"flat.zip", "layered.zip"} {
		from, err := ss.Open(filepath.Join(dir, name), "")
		must(t, err)
		for _, spec := range []string{"review/", "review", "./review/START"} {
			_, _, err := ss.Workflow(from, spec)
			te, ok := errors.AsType[*TargetError](err)
			if !ok {
				t.Fatalf("%s %s: err = %v (%T), want a *TargetError", name, spec, err, err)
			}
			wantErrContains(t, te, "does not exist", "holds a folder review", "not workflows", "../review.zip")
		}
		_, _, err = ss.Workflow(from, "other/")
		if err == nil || strings.Contains(err.Error(), "holds a folder") {
			t.Errorf("%s other/: err = %v, want no hint about a folder the zip does not hold", name, err)
		}
	}
}

// fakeFetcher serves pinned zips from a map of URL → bytes, writing them
// into dir.
type fakeFetcher struct {
	dir   string
	files map[string][]byte
	calls []string
}

func (f *fakeFetcher) Fetch(_ context.Context, url string) (string, error) {
	f.calls = append(f.calls, url)
	data, ok := f.files[url]
	if !ok {
		return "", fmt.Errorf("the server answered 404 Not Found")
	}
	p := filepath.Join(f.dir, hashOf(data)+".zip")
	return p, os.WriteFile(p, data, 0o600)
}

func TestURLScopes(t *testing.T) {
	main := zipOf(t, map[string]string{"START.md": "go", "NEXT.md": "n"})
	lib := zipOf(t, map[string]string{"START.md": "lib", "CHECK.md": "c"})
	mainURL := "https://h.example/wf/main-" + hashOf(main) + ".zip"
	libURL := "https://h.example/lib/lib-" + hashOf(lib) + ".zip"
	f := &fakeFetcher{dir: t.TempDir(), files: map[string][]byte{mainURL: main, libURL: lib}}
	ss := NewScopes(f)
	defer ss.Close()

	s, state, err := ss.Start(mainURL + "/NEXT")
	must(t, err)
	if s.URL() != mainURL || state != "NEXT.md" || s.Name() != "main" || s.Kind() != Zip {
		t.Errorf("Start: url %q state %q name %q", s.URL(), state, s.Name())
	}

	ls, state, err := ss.Workflow(s, "../../lib/lib-"+hashOf(lib)+".zip/CHECK")
	must(t, err)
	if ls.URL() != libURL || state != "CHECK.md" {
		t.Errorf("Workflow: %q %q", ls.URL(), state)
	}
	if _, _, err := ss.Workflow(s, "../../lib/lib-"+hashOf(lib)+".zip"); err != nil {
		t.Errorf("again: %v", err)
	}
	if n := len(f.calls); n != 2 {
		t.Errorf("%d fetches, want 2 (each URL once): %q", n, f.calls)
	}

	for spec, want := range map[string]string{
		"../../lib/review":                               "must name a pinned zip",
		"../../lib/unpinned.zip":                         "not pinned",
		"//other.example/" + hashOf(lib) + ".zip":        "its own host",
		"../../lib/" + strings.Repeat("cd", 32) + ".zip": "404",
	} {
		_, _, err := ss.Workflow(s, spec)
		if _, ok := errors.AsType[*UseError](err); !ok {
			t.Errorf("%s: err = %v, want a *UseError", spec, err)
			continue
		}
		wantErrContains(t, err, want)
	}

	// Open with a missing path fetches again.
	ss2 := NewScopes(f)
	defer ss2.Close()
	s2, err := ss2.Open(filepath.Join(t.TempDir(), hashOf(main)+".zip"), mainURL)
	must(t, err)
	if s2.URL() != mainURL {
		t.Errorf("Open: %q", s2.URL())
	}
}

func TestZipTooManyEntries(t *testing.T) {
	files := make(map[string]string, MaxZipEntries+1)
	for i := range MaxZipEntries + 1 {
		files[fmt.Sprintf("S%d.md", i)] = ""
	}
	p := writeFile(t, t.TempDir(), "many.zip", zipOf(t, files))
	_, err := openZip(p, "")
	wantErrContains(t, err, "more than the limit of 10000")
}
