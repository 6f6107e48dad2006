package wftest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"raymond/scripted"
)

// SetupFile is a file a case writes before its run: Path is relative to
// the folder it goes in (the case's working folder, or main's task
// folder), Content is written as given.
type SetupFile struct {
	Path    string
	Content string
}

// ExpectFile is what a file must hold after a case's run. Path is as the
// case wrote it; Folder is "" for a file under the case's working folder,
// "{{task_folder}}" for main's task folder as the run ended (a reset with
// task="new" changes it), else the name of a task folder of the run
// (main, main_worker1, main_task1: {{task_folder:NAME}}); Rel is the path
// under that folder. Exact, when not nil, is the whole
// content (both sides trimmed); Contains and NotContains are substrings
// that must and must not appear; Matches a regular expression the content
// matches; Absent that the file must not exist.
type ExpectFile struct {
	Path        string
	Folder      string
	Rel         string
	Exact       *string
	Contains    []string
	NotContains []string
	Matches     *regexp.Regexp
	Absent      bool
}

// fileExpectKeys are the keys of an expect.files mapping.
const fileExpectKeys = "contains, not_contains, matches, absent"

// setupFiles reads the files: or task_files: of a case, a mapping of
// relative paths to contents.
func (p *parser) setupFiles(v any, at []any, label, key string) []SetupFile {
	m, ok := v.(scripted.Mapping)
	if !ok && v != nil {
		p.fail(at, "%s: %s must map each file's path to its content, such as notes/plan.md: \"- [ ] one\"", label, key)
		return nil
	}
	out := []SetupFile{}
	seen := make(map[string]bool)
	for _, item := range m {
		name, _ := item.Key.(string)
		where := sub(at, name)
		if msg := badRelPath(name); msg != "" {
			p.fail(where, "%s: %s: %s", label, key, msg)
			continue
		}
		clean := filepath.Clean(name)
		if seen[clean] {
			p.fail(where, "%s: %s: %s is given twice", label, key, name)
			continue
		}
		seen[clean] = true
		content, ok := item.Value.(string)
		if !ok {
			p.fail(where, "%s: %s: %s: %s is not a text; give the file's content as a text (\"\" for an empty file)", label, key, name, scripted.Describe(item.Value))
			continue
		}
		out = append(out, SetupFile{Path: clean, Content: content})
	}
	return out
}

// badRelPath says why name cannot be a path under a case's folder: it must
// be relative and stay inside; "" when it can.
func badRelPath(name string) string {
	switch {
	case strings.TrimSpace(name) == "":
		return "a file needs a path"
	case filepath.IsAbs(name) || strings.HasPrefix(name, "/"):
		return fmt.Sprintf("%s is an absolute path; give a path relative to the case's folder", name)
	case !filepath.IsLocal(name):
		return fmt.Sprintf("%s leaves the case's folder; give a path inside it, without ..", name)
	}
	return ""
}

// taskFolderRef matches the start of an expect.files path in an agent's
// task folder: {{task_folder}}/ (main's) or {{task_folder:AGENT}}/.
var taskFolderRef = regexp.MustCompile(`^\{\{\s*task_folder(?:\s*:\s*([A-Za-z0-9_.-]+))?\s*\}\}/`)

// expectFiles reads expect.files: a mapping of paths to an exact content
// or to a mapping of checks.
func (p *parser) expectFiles(v any, at []any, label string) []ExpectFile {
	label += ": expect: files"
	m, ok := v.(scripted.Mapping)
	if !ok || len(m) == 0 {
		p.fail(at, "%s must map each file's path to what it must hold: a text (the whole content) or a mapping with %s", label, fileExpectKeys)
		return nil
	}
	var out []ExpectFile
	seen := make(map[string]bool)
	for _, item := range m {
		name, _ := item.Key.(string)
		where := sub(at, name)
		e := ExpectFile{Path: name, Rel: name}
		if loc := taskFolderRef.FindStringSubmatchIndex(name); loc != nil {
			e.Folder, e.Rel = mainTaskFolder, name[loc[1]:]
			if loc[2] >= 0 {
				e.Folder = name[loc[2]:loc[3]]
			}
		} else if strings.Contains(name, "{{") {
			p.fail(where, "%s: %s: a path starts with {{task_folder}}/ (main's task folder) or {{task_folder:NAME}}/, or is relative to the case's folder", label, name)
			continue
		}
		if msg := badRelPath(e.Rel); msg != "" {
			p.fail(where, "%s: %s", label, msg)
			continue
		}
		e.Rel = filepath.Clean(e.Rel)
		if key := e.Folder + "\x00" + e.Rel; seen[key] {
			p.fail(where, "%s: %s is given twice", label, name)
			continue
		} else {
			seen[key] = true
		}
		if p.fileChecks(&e, item.Value, where, label+": "+name) {
			out = append(out, e)
		}
	}
	return out
}

// fileChecks reads what one file of expect.files must hold.
func (p *parser) fileChecks(e *ExpectFile, v any, at []any, label string) bool {
	if s, ok := v.(string); ok {
		e.Exact = &s
		return true
	}
	if _, ok := v.(scripted.Mapping); !ok {
		p.fail(at, "%s: %s is neither a text (the whole content) nor a mapping with %s", label, scripted.Describe(v), fileExpectKeys)
		return false
	}
	fields, ok := p.mapping(v, at, label, "a file's expectation", fileExpectKeys)
	if !ok {
		return false
	}
	before := len(p.errs)
	e.Contains = p.substrings(fields, "contains", at, label)
	e.NotContains = p.substrings(fields, "not_contains", at, label)
	if v, ok := fields["matches"]; ok {
		if s, ok := p.text(v, sub(at, "matches"), label+": matches"); ok {
			re, err := regexp.Compile(s)
			if err != nil {
				p.fail(sub(at, "matches"), "%s: matches: %v", label, err)
			}
			e.Matches = re
		}
	}
	if v, ok := fields["absent"]; ok {
		b, isBool := v.(bool)
		switch {
		case !isBool:
			p.fail(sub(at, "absent"), "%s: absent: %s is not true or false", label, scripted.Describe(v))
		case b && len(fields) > 1:
			p.fail(sub(at, "absent"), "%s: absent: true says the file must not exist, so it takes no other check", label)
		}
		e.Absent = b
	}
	if len(fields) == 0 {
		p.fail(at, "%s: no check; give %s", label, fileExpectKeys)
	}
	return len(p.errs) == before
}

// substrings reads contains or not_contains: a text or a list of texts.
func (p *parser) substrings(fields map[string]any, k string, at []any, label string) []string {
	v, ok := fields[k]
	if !ok {
		return nil
	}
	if s, ok := v.(string); ok {
		return []string{s}
	}
	list, ok := v.([]any)
	if ok {
		out := make([]string, 0, len(list))
		for _, item := range list {
			s, isText := item.(string)
			if !isText {
				ok = false
				break
			}
			out = append(out, s)
		}
		if ok {
			return out
		}
	}
	p.fail(sub(at, k), "%s: %s must be a text or a list of texts", label, k)
	return nil
}

// writeFiles writes files under dir, making the folders they need.
func writeFiles(dir string, files []SetupFile) error {
	for _, f := range files {
		name := filepath.Join(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(name, []byte(f.Content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// maxShown is the most of a file's content a failure quotes.
const maxShown = 1500

// mainTaskFolder is ExpectFile.Folder for {{task_folder}}.
const mainTaskFolder = "{{task_folder}}"

// checkFiles checks every file of expect.files; cwd is the case's working
// folder, taskFolder gives the path of an ExpectFile.Folder.
func checkFiles(want []ExpectFile, cwd string, taskFolder func(folder string) string) []string {
	var fails []string
	for _, e := range want {
		dir := cwd
		if e.Folder != "" {
			dir = taskFolder(e.Folder)
		}
		if msg := checkFile(e, filepath.Join(dir, e.Rel)); msg != "" {
			fails = append(fails, msg)
		}
	}
	return fails
}

// checkFile checks one file, at name; "" when it holds what it must.
func checkFile(e ExpectFile, name string) string {
	data, err := os.ReadFile(name)
	switch {
	case e.Absent && err == nil:
		return fmt.Sprintf("files: %s exists, want it absent; it holds:\n%s", e.Path, shown(string(data)))
	case e.Absent && os.IsNotExist(err):
		return ""
	case os.IsNotExist(err):
		return fmt.Sprintf("files: %s does not exist (%s)", e.Path, name)
	case err != nil:
		return fmt.Sprintf("files: %s: %v", e.Path, err)
	}
	got := string(data)
	var what []string
	if e.Exact != nil && strings.TrimSpace(got) != strings.TrimSpace(*e.Exact) {
		what = append(what, "differs; want exactly:\n"+indentContent(strings.TrimSpace(*e.Exact)))
	}
	for _, s := range e.Contains {
		if !strings.Contains(got, s) {
			what = append(what, fmt.Sprintf("does not contain %s", quote(s)))
		}
	}
	for _, s := range e.NotContains {
		if strings.Contains(got, s) {
			what = append(what, fmt.Sprintf("contains %s, which it must not", quote(s)))
		}
	}
	if e.Matches != nil && !e.Matches.MatchString(got) {
		what = append(what, fmt.Sprintf("does not match /%s/", e.Matches))
	}
	if len(what) == 0 {
		return ""
	}
	return fmt.Sprintf("files: %s %s\n  it holds:\n%s", e.Path, strings.Join(what, "; "), shown(got))
}

// shown is a file's content as a failure quotes it: trimmed, indented, cut
// after maxShown bytes.
func shown(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "    (empty)"
	}
	if len(s) > maxShown {
		cut := s[:maxShown]
		for !strings.HasSuffix(cut, "\n") && len(cut) > maxShown-200 && strings.Contains(cut, "\n") {
			cut = cut[:len(cut)-1]
		}
		s = strings.TrimRight(cut, "\n") + fmt.Sprintf("\n… (%d more bytes)", len(s)-len(cut))
	}
	return indentContent(s)
}

// indentContent puts four spaces before every line of s.
func indentContent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}
