package wftest

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/scripted"
	"raymond/workflow"
)

// File is a test file, read and checked.
type File struct {
	// Path is the file as it was given (relative paths stay relative).
	Path string
	// Workflow is the absolute workflow folder or entry state file; Scope
	// the workflow folder.
	Workflow string
	Scope    string
	// Cwd is the absolute folder the agents work in.
	Cwd   string
	Cases []*Case
}

// Case is one case of a test file.
type Case struct {
	// Name is unique in the file; ID is "<file stem>/<name>", what --run
	// matches and reports show (Run puts another prefix in front of the
	// name when two files it runs have the same stem: see IDPrefixes).
	Name string
	ID   string
	// Line is the case's line in the file, 0 when unknown.
	Line int
	// Input is the run's --input, nil when not given.
	Input *string
	// BudgetUSD is the run's --budget, 0 for none.
	BudgetUSD float64
	// MaxParallel is the run's --max-parallel (default 1).
	MaxParallel int
	// replies is the value of the replies key as decoded; every run of the
	// case parses it afresh into a runner of its own.
	replies any
	// Answers are the answers the case gives to the run's asks, by ask id
	// (ask_main_1), AGENT/STATE or STATE: a queue each, used in order.
	// Timeouts are the asks (same keys) left to expire at their deadline,
	// which the instant clock reaches at once. OnAsk is OnAskAnswer (""
	// too), OnAskPause or OnAskReject.
	Answers  map[string][]string
	Timeouts []string
	OnAsk    string
	// Files are written into a fresh working folder made for the case
	// (Fresh: files: was given, perhaps empty), which replaces File.Cwd
	// for it; TaskFiles into main's task folder, before the first step.
	Files     []SetupFile
	Fresh     bool
	TaskFiles []SetupFile
	// InterruptAfter, when above 0, stops the run as a crash would once
	// that many steps have ended, then resumes it (see interrupt.go).
	InterruptAfter int
	// Rewind, when set, rewinds the run once it has ended to just before
	// one of its steps (raymond rewind) and drives the new run with replies
	// of its own: Expect is then about the new run (see rewind.go).
	Rewind *Rewind
	Expect Expect
}

// Expect is what must hold after a case's run. Only Status is always
// checked; a nil or empty field is not.
type Expect struct {
	// Status is the run's final status; default completed.
	Status string
	// Result is main's result, compared after trimming surrounding white
	// space on both sides.
	Result *string
	// ResultMatches is a regular expression main's result, trimmed, must
	// match.
	ResultMatches *regexp.Regexp
	// Paths are the states each agent went through, in order; when not nil
	// every agent of the run must be listed.
	Paths []AgentStates
	// Steps is the run's number of steps.
	Steps *int
	// Reminders and Retries are how many reminders and retries the run
	// sent (analysis.Run.Reminders and Retries).
	Reminders *int
	Retries   *int
	// CostUSD is the run's total cost, within CostTolerance.
	CostUSD *float64
	// Unvisited are states no agent may enter.
	Unvisited []string
	// Asks are the asks of the run, in the order asked; when not nil,
	// every ask must be listed.
	Asks []ExpectAsk
	// Files are what files must hold after the run.
	Files []ExpectFile
	// Prints are texts that must appear, in this order, among the run's
	// <print> outputs: each one a substring of a later print than the one
	// before it matched.
	Prints []string
}

// AgentStates is the expected path of one agent.
type AgentStates struct {
	Agent string
	// States are the states in order, as written (with or without .md);
	// Tags, when not nil, the tag each was entered by, "" when the entry
	// names none and any will do ("reset FIX" is the state FIX and the
	// tag reset).
	States []string
	Tags   []string
}

// CostTolerance is how far a run's cost may be from the expected one.
const CostTolerance = 1e-6

// Runner returns a fresh scripted runner for the case's replies.
func (c *Case) Runner() (*scripted.Runner, error) {
	return scripted.ParseValue(c.ID, c.replies)
}

// Load reads and checks the test file at path.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read test file: %w", err)
	}
	return Parse(path, data)
}

// Parse reads and checks the content of the test file at path: its keys
// and values, the workflow and the agents' folder, and that every state
// its replies and unvisited name is a state of the workflow. Every problem
// found is reported, each as "FILE:LINE: what is wrong".
func Parse(path string, data []byte) (*File, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("test file %s: %w", path, err)
	}
	p := &parser{name: path, dir: filepath.Dir(abs), lines: strings.Count(strings.TrimSuffix(string(data), "\n"), "\n") + 1}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, p.yamlError(data, err)
	}
	if len(doc.Content) > 0 {
		p.root = doc.Content[0]
	}
	v := scripted.Value(&doc)
	top, ok := v.(scripted.Mapping)
	if !ok && v != nil {
		return nil, fmt.Errorf("%s:1: a test file is a mapping with the keys %s", p.name, fileKeys)
	}
	f := &File{Path: path}
	p.file(f, top)
	if p.scopes != nil {
		p.scopes.Close()
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return f, nil
}

// Top-level keys, case keys and expect keys, as error messages list them.
const (
	fileKeys   = "workflow, cwd, cases"
	caseKeys   = "name, input, budget, max_parallel, replies, answers, timeouts, on_ask, files, task_files, interrupt_after, rewind, expect"
	expectKeys = "status, result, result_matches, path, steps, reminders, retries, cost, unvisited, asks, files, prints"
)

// file reads the top level of the file into f.
func (p *parser) file(f *File, top scripted.Mapping) {
	fields, ok := p.mapping(top, nil, "", "a test file", fileKeys)
	if !ok {
		return
	}
	wf, cwd := ".", ""
	_, given := fields["workflow"]
	if given {
		wf, _ = p.text(fields["workflow"], []any{"workflow"}, "workflow")
	}
	if v, ok := fields["cwd"]; ok {
		cwd, _ = p.text(v, []any{"cwd"}, "cwd")
	}
	p.workflow(f, wf, given)
	p.cwd(f, cwd)
	v, ok := fields["cases"]
	if !ok {
		p.fail(nil, "no cases: a test file lists its cases under the key cases")
		return
	}
	list, ok := v.([]any)
	switch {
	case v == nil || ok && len(list) == 0:
		p.fail([]any{"cases"}, "cases is empty; give at least one case, each starting with \"- name: …\"")
		return
	case !ok:
		p.fail([]any{"cases"}, "cases must be a list of cases, each starting with \"- name: …\"")
		return
	}
	names := make(map[string]int)
	for i, item := range list {
		c, ok := p.caseAt(f, i, item)
		if first, dup := names[c.Name]; dup && c.Name != "" {
			p.fail([]any{"cases", i, "name"}, "case %q: the name is already taken by case %d; give every case its own name", c.Name, first+1)
			continue
		}
		names[c.Name] = i
		if ok {
			f.Cases = append(f.Cases, c)
		}
	}
}

// workflow resolves the workflow of the file. When it cannot start, Scope
// stays empty and states are not checked against it.
func (p *parser) workflow(f *File, wf string, given bool) {
	f.Workflow = p.resolve(wf)
	p.scopes = workflow.NewScopes(nil)
	scope, _, err := p.scopes.Start(f.Workflow)
	if err == nil {
		p.scope = scope
		f.Scope = scope.Dir()
		return
	}
	at := []any{"workflow"}
	if !given {
		at = nil
	}
	if hint := noEntry(f.Workflow, wf, given); hint != "" {
		p.fail(at, "%s", hint)
		return
	}
	p.fail(at, "workflow %s: %v", wf, err)
}

// noEntry explains why the folder dir, given in the file as workflow
// (given false: not given, the file's own folder), has no first state,
// and what to write in the test file; "" when dir is not a folder or has
// one.
func noEntry(dir, wf string, given bool) string {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return ""
	}
	numbered, plain := isFile(filepath.Join(dir, "1_START.md")), isFile(filepath.Join(dir, "START.md"))
	var all []string
	if s, err := workflow.OpenDir(dir); err == nil {
		all, _ = s.States()
		s.Close()
	}
	var states []string // the .md ones: a run cannot start from a script
	for _, s := range all {
		if strings.HasSuffix(s, ".md") {
			states = append(states, s)
		}
	}
	switch {
	case numbered && plain:
		return fmt.Sprintf("workflow %s: both 1_START.md and START.md exist in %s; say which to start from with workflow: %s",
			wf, dir, path.Join(wf, "1_START.md"))
	case numbered || plain:
		return ""
	case len(states) == 0 && !given:
		return fmt.Sprintf("this test file is in %s, which holds no workflow (no .md states); say where its workflow is with workflow: FOLDER, relative to the file (workflow: ../my-workflow)", dir)
	case len(states) == 0:
		return fmt.Sprintf("workflow %s: %s holds no workflow (no .md states); workflow: names the workflow folder, relative to the test file", wf, dir)
	}
	return fmt.Sprintf("workflow %s: %s has no 1_START.md or START.md; say which state to start from with workflow: %s",
		wf, dir, path.Join(wf, states[0]))
}

// isFile reports whether name is a file (or a link to one).
func isFile(name string) bool {
	fi, err := os.Stat(name)
	return err == nil && !fi.IsDir()
}

// cwd resolves the agents' folder: cwd relative to the file, or the
// current folder.
func (p *parser) cwd(f *File, cwd string) {
	var err error
	if cwd == "" {
		f.Cwd, err = os.Getwd()
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("%s: the current folder: %w", p.name, err))
		}
		return
	}
	f.Cwd = p.resolve(cwd)
	if fi, err := os.Stat(f.Cwd); err != nil || !fi.IsDir() {
		p.fail([]any{"cwd"}, "cwd %s is not a folder (%s); cwd: names the folder the agents work in, relative to the test file", cwd, f.Cwd)
	}
}

// resolve makes a path given in the file absolute, relative to its folder.
func (p *parser) resolve(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.dir, path)
}

// stem is the part of a test file's name that case ids start with: the
// name without .test.yaml (or without its extension).
func stem(path string) string {
	base := filepath.Base(path)
	if s, ok := strings.CutSuffix(base, TestFileSuffix); ok {
		return s
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}
