package workflow

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// State is one markdown state of a workflow, read and checked.
type State struct {
	// Name is the state's file name in the scope, e.g. "REVIEW.md".
	Name string
	// Path is the file's path: the scope joined with Name. Empty for a
	// state made by ParseState.
	Path string
	// Body is the prompt: the file without its frontmatter.
	Body string
	// Policy is what the frontmatter says; empty without frontmatter.
	Policy Policy
	// Warnings are problems worth telling the user that do not stop the
	// run (unknown keys, an unknown effort), one line each, naming the file.
	Warnings []string
	// BodyLine is the line of the file where Body starts (1 without
	// frontmatter), so a tool can point into the file.
	BodyLine int
}

// Load reads the state name from the scope. name is resolved like a target
// (§2), so "REVIEW" loads REVIEW.md.
func (s *Scope) Load(name string) (*State, error) {
	file, err := s.Resolve(name)
	if err != nil {
		return nil, fmt.Errorf("load state %s: %w", name, err)
	}
	if filepath.Ext(file) == shExt {
		return nil, fmt.Errorf("load state %s: script states are not supported yet", file)
	}
	content, err := s.read(file)
	if err != nil {
		return nil, fmt.Errorf("load state %s: %w", file, err)
	}
	if err := checkText(file, content); err != nil {
		return nil, fmt.Errorf("load state: %w", err)
	}
	st, err := ParseState(file, content)
	if err != nil {
		return nil, fmt.Errorf("load state: %w", err)
	}
	if strings.TrimSpace(st.Body) == "" {
		what := "the file is empty"
		if st.BodyLine > 1 {
			what = "it has nothing after its frontmatter"
		}
		return nil, fmt.Errorf("load state: %s: %s, but a state needs a prompt to send; write what the agent should do", file, what)
	}
	st.Path = filepath.Join(s.dir, file)
	return st, nil
}

// ParseState reads a markdown state from content, without the file system.
// name is used in messages and as State.Name.
func ParseState(name string, content []byte) (*State, error) {
	m, err := split(name, content)
	if err != nil {
		return nil, err
	}
	st := &State{Name: name, Body: string(m.body), BodyLine: m.bodyLine}
	if m.yaml != nil {
		st.Policy, st.Warnings, err = decodePolicy(name, m)
		if err != nil {
			return nil, err
		}
	}
	return st, nil
}

// checkText refuses a state file that cannot be sent as a prompt: a NUL
// byte cannot be passed in a process's arguments (every start would fail
// with "invalid argument"), and a prompt must be UTF-8 text. Both are found
// here, when the state is loaded, rather than by the first real claude.
func checkText(name string, content []byte) error {
	if i := bytes.IndexByte(content, 0); i >= 0 {
		return fmt.Errorf("%s:%d: the file holds a NUL byte, but a prompt must be text; remove it", name, lineOf(content, i))
	}
	if !utf8.Valid(content) {
		i := invalidUTF8(content)
		return fmt.Errorf("%s:%d: the file is not valid UTF-8 (byte %#02x), but a prompt must be UTF-8 text; save it as UTF-8", name, lineOf(content, i), content[i])
	}
	return nil
}

// invalidUTF8 returns the offset of the first byte of content that is not
// part of a valid UTF-8 sequence, or len(content).
func invalidUTF8(content []byte) int {
	for i := 0; i < len(content); {
		r, n := utf8.DecodeRune(content[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(content)
}

// lineOf returns the 1-based line of the byte at offset i.
func lineOf(content []byte, i int) int {
	return 1 + bytes.Count(content[:i], []byte("\n"))
}
