package wftest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"raymond/analysis"
	"raymond/scripted"
	"raymond/transcript"
	"raymond/workflow"
)

// WriteRecorded records run as a test case (see Record) and writes it.
// path "-" writes the case to w, as an item to paste under a test file's
// cases. Any other path is a test file: when it does not exist it is
// created with the run's workflow and the agents' folder (both relative
// to the file) and the case; when it exists the case is appended to its
// cases, which must then be the file's last top-level key. The file
// written is checked as `raymond test` reads it before it replaces the
// old one, so a file is never left half written or invalid.
func WriteRecorded(w io.Writer, path string, run *analysis.Run, o RecordOptions) error {
	if path == "-" {
		item, err := Record(run, o, 0)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "# A case recorded from run %s of %s.\n%s", run.ID, run.Workflow, item)
		return err
	}
	item, err := Record(run, o, 2)
	if err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	var content string
	switch {
	case errors.Is(err, fs.ErrNotExist):
		head, err := header(path, run)
		if err != nil {
			return err
		}
		content = head + "cases:\n" + item
	case err != nil:
		return fmt.Errorf("read test file: %w", err)
	default:
		if content, err = appendCase(path, old, item, run); err != nil {
			return err
		}
	}
	if _, err := Parse(path, []byte(content)); err != nil {
		return fmt.Errorf("the recorded case would leave %s invalid, so it was not written:\n%w", path, err)
	}
	return writeAtomic(path, []byte(content))
}

// sameWorkflow checks that the test file whose top level is top tests the
// workflow run ran.
func sameWorkflow(path string, top scripted.Mapping, run *analysis.Run) error {
	wf, _ := lookup(top, "workflow").(string)
	if wf == "" {
		wf = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("record into %s: %w", path, err)
	}
	if !filepath.IsAbs(wf) {
		wf = filepath.Join(filepath.Dir(abs), wf)
	}
	s, _, err := workflow.Entry(wf)
	if err != nil {
		return nil // a workflow that does not load is reported by the check of the whole file
	}
	s.Close()
	if scope := s.Dir(); run.Workflow != "" && !sameFile(scope, run.Workflow) {
		return fmt.Errorf("%s tests the workflow %s, but run %s ran %s; record into a test file of that workflow", path, scope, run.ID, run.Workflow)
	}
	return nil
}

// sameFile reports whether a and b name the same file or folder.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA != nil || errB != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return os.SameFile(fa, fb)
}

// header is the start of a new test file for run: where it came from, and
// the workflow and agents' folder relative to the file.
func header(path string, run *analysis.Run) (string, error) {
	if run.Workflow == "" {
		return "", fmt.Errorf("record run %s: its transcript does not say which workflow ran", run.ID)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("record into %s: %w", path, err)
	}
	dir := filepath.Dir(abs)
	wf := run.Workflow
	if s, entry, err := workflow.Entry(run.Workflow); err == nil {
		s.Close()
		if run.Entry != "" && entry != run.Entry {
			wf = filepath.Join(run.Workflow, run.Entry) // started from another state than the folder's first
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Recorded from run %s. Replay it with: raymond test %s\n", run.ID, path)
	fmt.Fprintf(&b, "workflow: %s\n", flowScalar(relative(dir, wf)))
	if cwd := firstCwd(run); cwd != "" {
		fmt.Fprintf(&b, "cwd: %s\n", flowScalar(relative(dir, cwd)))
	}
	return b.String(), nil
}

// relative returns target relative to dir when it can, else target.
func relative(dir, target string) string {
	if rel, err := filepath.Rel(dir, target); err == nil {
		return filepath.ToSlash(rel)
	}
	return target
}

// firstCwd returns the folder main's first step ran in, from its meta
// file; "" when unknown.
func firstCwd(run *analysis.Run) string {
	for _, s := range run.Steps {
		if s.Agent != "main" || !s.HasMeta {
			continue
		}
		data, err := os.ReadFile(filepath.Join(run.Dir, s.Name+".meta.json"))
		if err != nil {
			return ""
		}
		var m transcript.Meta
		if json.Unmarshal(data, &m) != nil {
			return ""
		}
		return m.Cwd
	}
	return ""
}

// appendCase appends item to the cases of the test file old, after
// checking that this is safe: the file reads, cases is its last key and a
// block list, and no case has the new one's name.
func appendCase(path string, old []byte, item string, run *analysis.Run) (string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(old, &doc); err != nil {
		return "", fmt.Errorf("%s is not valid YAML (%v); fix it, or record into a new file", path, err)
	}
	top, _ := scripted.Value(&doc).(scripted.Mapping)
	if err := sameWorkflow(path, top, run); err != nil {
		return "", err
	}
	if len(top) == 0 || top[len(top)-1].Key != "cases" {
		return "", fmt.Errorf("cannot append to %s: cases is not its last top-level key; move cases: to the end of the file, or record into a new file", path)
	}
	list, isList := top[len(top)-1].Value.([]any)
	if top[len(top)-1].Value != nil && !isList {
		return "", fmt.Errorf("cannot append to %s: cases is not a list", path)
	}
	var cases *yaml.Node
	if len(doc.Content) > 0 {
		_, cases = child(doc.Content[0], "cases")
	}
	if cases == nil || cases.Style&yaml.FlowStyle != 0 || cases.Kind == yaml.ScalarNode && cases.ShortTag() != "!!null" {
		return "", fmt.Errorf("cannot append to %s: its cases are written on one line ([...]); write them as a list of \"- name: …\" items, or record into a new file", path)
	}
	var newDoc yaml.Node
	var newItem []any
	if err := yaml.Unmarshal([]byte(item), &newDoc); err == nil {
		newItem, _ = scripted.Value(&newDoc).([]any)
	}
	if len(newItem) == 1 {
		name := lookup(newItem[0], "name")
		for _, c := range list {
			if lookup(c, "name") == name {
				return "", fmt.Errorf("%s already has a case named %q; give this one another name with --case-name NAME", path, name)
			}
		}
	}
	// New items line up with the file's own; Record indented by 2.
	if cases.Kind == yaml.SequenceNode && len(cases.Content) > 0 {
		if indent := dashColumn(old, cases.Content[0].Line); indent != 2 {
			item = reindent(item, indent-2)
		}
	}
	text := string(old)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + item, nil
}

// dashColumn returns the column (from 0) of the "-" that starts the block
// list item on line of data: the line's indentation.
func dashColumn(data []byte, line int) int {
	lines := strings.Split(string(data), "\n")
	if line < 1 || line > len(lines) {
		return 2
	}
	l := lines[line-1]
	return len(l) - len(strings.TrimLeft(l, " "))
}

// reindent shifts every non-empty line of text by delta columns (delta is
// -2 or more, and every line starts with at least 2 spaces).
func reindent(text string, delta int) string {
	if delta >= 0 {
		return indentLines(text, delta)
	}
	var b strings.Builder
	for line := range strings.Lines(text) {
		if line != "\n" {
			line = line[-delta:]
		}
		b.WriteString(line)
	}
	return b.String()
}

// writeAtomic replaces path with data: a temporary file in the same
// folder, renamed over it.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("write test file %s: the folder %s does not exist; create it or give another path", path, dir)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write test file: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write test file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write test file: %w", err)
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return fmt.Errorf("write test file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write test file: %w", err)
	}
	return nil
}
