package workflow

import (
	"fmt"
	"path/filepath"
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
	st, err := ParseState(file, content)
	if err != nil {
		return nil, fmt.Errorf("load state: %w", err)
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
