package workflow

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"raymond/parsing"
)

// FuzzParseState checks that no content makes ParseState panic, and that
// what it returns hangs together. Seeds live in testdata/fuzz/FuzzParseState.
func FuzzParseState(f *testing.F) {
	f.Add([]byte("---\nallowed_transitions:\n  - { tag: goto, target: NEXT.md }\n---\nBody {{input}}\n"))
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
