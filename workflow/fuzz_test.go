package workflow

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"raymond/parsing"
)

// FuzzParseState checks that no content makes ParseState panic, and that
// what it returns hangs together. Seeds live in testdata/fuzz/FuzzParseState.
func FuzzParseState(f *testing.F) {
	f.Add([]byte("---\nallowed_transitions:\n  - { tag: goto, target: NEXT.md }\n---\nBody {{input}}\n"))
	f.Add([]byte("---\nallowed_tools: [Read, \"Bash(git log:*)\"]\ndisallowed_tools: Write, Edit(a (b))\npermission_mode: plan\n---\nLook.\n"))
	f.Add([]byte("---\nallowed_tools: \"Bash(x\"\n---\nLook.\n"))
	f.Add([]byte("---\nallowed_transitions:\n  - { tag: fork-workflow, target: ../w/, next: J, task: new, item: a }\n  - { tag: ask, next: ANS, timeout: 7d }\n---\n"))
	f.Fuzz(func(t *testing.T, content []byte) {
		st, err := ParseState("FUZZ.md", content)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "FUZZ.md") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		content = bytes.TrimPrefix(content, []byte("\ufeff"))
		if !bytes.HasSuffix(content, []byte(st.Body)) {
			t.Fatalf("body %q is not the end of the content", st.Body)
		}
		head := content[:len(content)-len(st.Body)]
		if want := 1 + bytes.Count(head, []byte("\n")); st.BodyLine != want {
			t.Fatalf("BodyLine = %d, want %d", st.BodyLine, want)
		}
		if st.Policy.ForceImplicit {
			if _, ok := st.Policy.Implicit(); !ok {
				t.Fatal("force_implicit accepted without an implicit transition")
			}
		}
		for _, r := range st.Policy.Rules {
			if !slices.Contains(parsing.Names, r.Tag) {
				t.Fatalf("rule with unknown tag %q accepted", r.Tag)
			}
			names := []string{r.Return, r.Next, r.TimeoutNext}
			if parsing.CrossWorkflow(r.Tag) {
				// A specifier may leave the folder; it must only be usable.
				if r.Target != "" && parsing.ValidSpecifier(r.Target) != nil {
					t.Fatalf("rule with invalid specifier %q accepted", r.Target)
				}
			} else {
				names = append(names, r.Target)
			}
			for _, name := range names {
				if name != "" && parsing.ValidTarget(name) != nil {
					t.Fatalf("rule with unsafe name %q accepted", name)
				}
			}
			for _, a := range r.Attrs {
				if err := parsing.CheckAttr(r.Tag, a.Key, a.Value); err != nil {
					t.Fatalf("rule carrying %s=%q accepted: %v", a.Key, a.Value, err)
				}
			}
		}
		for _, w := range st.Warnings {
			if !strings.HasPrefix(w, "FUZZ.md: ") {
				t.Fatalf("warning does not name the file: %q", w)
			}
		}
	})
}

// FuzzYAMLWorkflow checks that no YAML workflow file makes the loader
// panic or hang, and that what it accepts hangs together. Seeds live in
// testdata/fuzz/FuzzYAMLWorkflow.
func FuzzYAMLWorkflow(f *testing.F) {
	f.Add([]byte(yamlWF))
	f.Add([]byte("states:\n  A: { sh: echo, timeout: 1 }\n"))
	f.Add([]byte("states:\n  A: { sh: echo, allowed_tools: [Read], permission_mode: plan }\n"))
	// One file per worker process, rewritten by each input: a fresh
	// temporary folder per input would slow the fuzzer down tenfold.
	p := filepath.Join(f.TempDir(), "FUZZ.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		wf, err := parseYAMLWorkflow("FUZZ.yaml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "FUZZ.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if len(wf.states) == 0 || wf.manifest == nil {
			t.Fatal("accepted a workflow without states or manifest")
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := openYAML(p)
		if err != nil {
			t.Fatalf("parsed, but openYAML: %v", err)
		}
		for name, st := range wf.states {
			stem := strings.TrimSuffix(name, filepath.Ext(name))
			if parsing.ValidTarget(stem) != nil || strings.ContainsAny(stem, `/\`) {
				t.Fatalf("accepted state name %q", name)
			}
			if st.script == (filepath.Ext(name) == mdExt) {
				t.Fatalf("%s: script = %v", name, st.script)
			}
			if st.policy.Timeout != nil && *st.policy.Timeout < 0 {
				t.Fatalf("%s: negative timeout accepted", name)
			}
		}
		states, err := s.States()
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range states {
			if _, err := s.Load(name); err != nil && !strings.Contains(err.Error(), "FUZZ") {
				t.Fatalf("Load(%q): %v", name, err)
			}
		}
		s.Entry()
	})
}

// FuzzZipScope checks that no bytes make the zip scope panic or hang:
// open, list, load every state and find the entry point. Seeds live in
// testdata/fuzz/FuzzZipScope.
func FuzzZipScope(f *testing.F) {
	f.Add(zipOf(f, map[string]string{"START.md": "---\nmodel: haiku\n---\ngo", "RUN.sh": "echo", "workflow.yaml": "name: x\n"}))
	f.Add(zipOf(f, map[string]string{"wf/1_START.md": "go", "wf/sub/A.md": "a", "__MACOSX/x": ""}))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys, _, err := zipFS("fuzz.zip", data)
		if err != nil {
			return
		}
		s := &Scope{fsys: fsys, dir: "/fuzz.zip", kind: Zip}
		if m, err := fs.ReadFile(fsys, ManifestFile); err == nil {
			parseManifest("fuzz.zip/"+ManifestFile, m)
		}
		states, err := s.States()
		if err != nil {
			return
		}
		for _, name := range states {
			if _, err := s.Resolve(name); err != nil {
				continue
			}
			if st, err := s.Load(name); err == nil && st.Name != name {
				t.Fatalf("Load(%q).Name = %q", name, st.Name)
			}
		}
		s.Entry()
	})
}
