package workflow

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// State is one state of a workflow, read and checked: a markdown prompt or
// a script (§11).
type State struct {
	// Name is the state's file name in the scope, e.g. "REVIEW.md"; in a
	// YAML workflow, its virtual file name.
	Name string
	// Path is the file's path: the scope joined with Name. Empty for a
	// state made by ParseState.
	Path string
	// Body is the prompt (the file without its frontmatter) or, for a
	// script, the script's text as written.
	Body string
	// Policy is what the frontmatter (or the YAML state) says; empty
	// without. A script's policy holds at most its Timeout.
	Policy Policy
	// Warnings are problems worth telling the user that do not stop the
	// run (unknown keys, an unknown effort), one line each, naming the file.
	Warnings []string
	// BodyLine is the line of the file where Body starts (1 without
	// frontmatter), so a tool can point into the file.
	BodyLine int
	// Script is set for a .sh state.
	Script bool
	// ScriptPath is the real, absolute path of a script state's file in a
	// folder scope, for bash to run. It is "" in a zip or YAML scope, whose
	// scripts run from a private copy of Body (§11.2).
	ScriptPath string
}

// Load reads the state name from the scope. name is resolved like a target
// (§2), so "REVIEW" loads REVIEW.md. Its errors name the workflow and the
// state file: "workflow review: CHECK.md:3: invalid frontmatter: …".
func (s *Scope) Load(name string) (*State, error) {
	st, err := s.load(name)
	if err != nil {
		return nil, fmt.Errorf("workflow %s: %w", s.Label(), err)
	}
	return st, nil
}

// load is Load without the workflow's name in its errors.
func (s *Scope) load(name string) (*State, error) {
	file, err := s.Resolve(name)
	if err != nil {
		return nil, err
	}
	if s.yaml != nil {
		return s.loadYAML(file)
	}
	content, err := s.read(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if filepath.Ext(file) == shExt {
		return s.script(file, content)
	}
	if err := checkText(file, content); err != nil {
		return nil, err
	}
	st, err := ParseState(file, content)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(st.Body) == "" {
		what := "the file is empty"
		if st.BodyLine > 1 {
			what = "it has nothing after its frontmatter"
		}
		return nil, fmt.Errorf("%s: %s, but a state needs a prompt to send; write what the agent should do", file, what)
	}
	st.Path = filepath.Join(s.dir, file)
	return st, nil
}

// script makes the script state file, whose text is content.
func (s *Scope) script(file string, content []byte) (*State, error) {
	st := &State{Name: file, Path: filepath.Join(s.dir, file), Body: string(content), BodyLine: 1, Script: true}
	if s.root == nil {
		return st, nil
	}
	real, err := filepath.EvalSymlinks(st.Path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	realDir, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if !within(realDir, real) {
		return nil, fmt.Errorf("%s: %w", file, outside(file))
	}
	st.ScriptPath = real
	return st, nil
}

// loadYAML makes the state of the virtual file of a YAML workflow, read
// from the file as it is now.
func (s *Scope) loadYAML(file string) (*State, error) {
	wf, err := s.yaml.load()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	ys, ok := wf.states[file]
	if !ok {
		return nil, fmt.Errorf("%s: %w", file, &TargetError{Kind: NotFound, Target: file,
			Msg: fmt.Sprintf("target %q does not exist in the workflow", file)})
	}
	return &State{Name: file, Path: s.dir + "/" + file, Body: ys.body, Policy: ys.policy,
		Warnings: slices.Clone(ys.warnings), BodyLine: ys.line, Script: ys.script}, nil
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
