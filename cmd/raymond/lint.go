package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"raymond/lint"
	"raymond/workflow"
)

var lintHelp = help{
	name:  "lint",
	usage: "raymond lint [PATH...] [flags]",
	text: `
Check workflows without running them: entry points, frontmatter and YAML,
targets, calls, forks and asks, unreachable states, dead ends, loops without
an exit, placeholders nothing binds, and the workflows reached through
cross-workflow tags, which are checked too. PATH is what 'raymond run'
takes: a workflow folder, a state in it, a YAML or zip file; default ".".
A folder that is no workflow but holds some (folders with a START or
1_START state or a workflow.yaml, YAML workflow files, zip archives; not
hidden folders, node_modules/, vendor/ or testdata/) lints each of them.

Each finding has a check id, a severity (error, warning, info), a place and
a fix; docs/lint.md lists every check. The text report groups findings by
file and ends with a count. --json prints one JSON array instead, an
object per workflow with its findings; --sarif FILE also writes SARIF 2.1.0 for code-scanning tools ('-': stdout,
in place of the report).

raymond run and raymond start lint the workflow first and refuse one with
an error (--no-lint, or lint = false in .raymond/config.toml, skips that).

Exit status: 0 no error (warnings allowed), 1 an error was found, 2 bad
usage (a flag, a PATH that names no workflow). With --strict a warning
counts as an error for the exit status (1), as CI may want; infos never do.`,
	examples: []string{
		"raymond lint                         # the workflow in this folder",
		"raymond lint workflows/              # every workflow in workflows/",
		"raymond lint wf/ --json | jq '.[].findings[] | select(.severity == \"error\")'",
		"raymond lint wf/ --sarif lint.sarif # for GitHub code scanning",
		"raymond lint --strict workflows/     # in CI: warnings fail too",
	},
}

func runLint(_ context.Context, env *cmdEnv, args []string) error {
	flags := newFlagSet("lint")
	asJSON := flags.Bool("json", false, "print one JSON array of reports on stdout instead of the text report")
	sarif := flags.String("sarif", "", "also write the findings as SARIF 2.1.0 to `FILE` ('-': stdout)")
	strict := flags.Bool("strict", false, "exit 1 on warnings too, not only on errors")
	if done, err := parseFlags(flags, args, lintHelp, env.stdout); done || err != nil {
		return err
	}
	if flags.Changed("sarif") && *sarif == "" {
		return lintHelp.usageError("--sarif needs a FILE to write ('-': stdout)")
	}
	if *asJSON && *sarif == "-" {
		return lintHelp.usageError("--json and --sarif - both want stdout; give --sarif a file")
	}
	paths := flags.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	ss := workflow.NewScopes(lintFetcher(paths))
	defer ss.Close()
	expanded, reports := expandLintPaths(paths, workflow.Find)
	for _, p := range expanded {
		r, err := lint.Check(ss, p)
		if err != nil {
			return &usageError{msg: err.Error(), hint: "Give a workflow folder, a state file, or a YAML or zip workflow."}
		}
		reports = append(reports, r)
	}
	if *sarif != "" {
		if err := writeSARIF(*sarif, env.stdout, reports); err != nil {
			return err
		}
	}
	switch {
	case *asJSON:
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(reports); err != nil {
			return err
		}
	case *sarif != "-":
		for _, r := range reports {
			writeLintText(env.stdout, r)
		}
	}
	warnings := 0
	for _, r := range reports {
		if r.HasErrors() {
			return &exitError{code: exitFailed}
		}
		warnings += r.Count(lint.Warning)
	}
	if *strict && warnings > 0 {
		return &exitError{code: exitFailed, msg: fmt.Sprintf("--strict: %d warning(s) count as errors", warnings)}
	}
	return nil
}

// lintFetcher downloads the pinned URLs among paths into the project's
// registry, as raymond run does; nil (no downloads) when no path is a URL
// or there is no project.
func lintFetcher(paths []string) workflow.Fetcher {
	for _, p := range paths {
		if !strings.Contains(p, "://") {
			continue
		}
		if proj, err := openProject("", true); err == nil {
			return fetcher(proj)
		}
	}
	return nil
}

// expandLintPaths replaces each folder that is not a workflow but holds
// some by those workflows (find is workflow.Find). A folder under it that
// could not be read may hold a workflow: it is not passed over in silence
// but comes back as a report with an error, so that lint of a tree never
// says "no problems" about what it did not see.
func expandLintPaths(paths []string, find func(string) ([]string, error)) ([]string, []lint.Report) {
	var out []string
	var unread []lint.Report
	for _, p := range paths {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			found, err := find(p)
			missed := pathErrors(err)
			if len(found) > 0 || len(missed) > 0 {
				out = append(out, found...)
				self := false
				for _, pe := range missed {
					unread = append(unread, unreadFolder(pe))
					self = self || pe.Path == p
				}
				if len(found) == 0 && !self {
					out = append(out, p) // its own states, if any, are still linted
				}
				continue
			}
		}
		out = append(out, p)
	}
	return out, unread
}

// pathErrors returns the *fs.PathError values err wraps, alone or joined.
func pathErrors(err error) []*fs.PathError {
	if pe, ok := err.(*fs.PathError); ok {
		return []*fs.PathError{pe}
	}
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		var out []*fs.PathError
		for _, inner := range e.Unwrap() {
			out = append(out, pathErrors(inner)...)
		}
		return out
	case interface{ Unwrap() error }:
		return pathErrors(e.Unwrap())
	}
	return nil
}

// unreadFolder is the report on a folder that lint could not look in.
func unreadFolder(pe *fs.PathError) lint.Report {
	file, err := filepath.Abs(pe.Path)
	if err != nil {
		file = pe.Path
	}
	return lint.Report{Workflow: pe.Path, Findings: []lint.Finding{{
		Check: "workflow-parse-error", Severity: lint.Error, File: file,
		Message: fmt.Sprintf("cannot look in this folder for workflows: %v", pe.Err),
		Fix:     "make the folder readable to you (chmod u+rx), or move it out of the folder you lint",
	}}}
}

// shown returns path relative to the working folder when it is inside it.
func shown(path string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(path) {
		return path
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	return rel
}

// printable escapes the control characters of s (a file name with a
// newline in it, from a hostile workflow) so that a finding stays on its
// line and cannot pass for another.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// writeLintText writes the findings of r grouped by file, and a count.
func writeLintText(w io.Writer, r lint.Report) {
	var b strings.Builder
	file := ""
	for _, f := range r.Findings {
		if f.File != file {
			file = f.File
			fmt.Fprintf(&b, "%s\n", printable(shown(file)))
		}
		b.WriteString("  " + findingLine(f) + "\n")
	}
	fmt.Fprintf(&b, "%s: %s\n", printable(r.Workflow), lintCounts(r))
	io.WriteString(w, b.String())
}

// findingLine is one finding without its file: LINE:COL severity message
// [check], then its fix.
func findingLine(f lint.Finding) string {
	where := ""
	switch {
	case f.Line > 0 && f.Column > 0:
		where = fmt.Sprintf("%d:%d: ", f.Line, f.Column)
	case f.Line > 0:
		where = fmt.Sprintf("%d: ", f.Line)
	}
	return fmt.Sprintf("%s%s: %s [%s]\n    fix: %s", where, f.Severity, printable(f.Message), f.Check, printable(f.Fix))
}

// lintCounts says how many errors, warnings and infos r has.
func lintCounts(r lint.Report) string {
	if len(r.Findings) == 0 {
		return "no problems found"
	}
	return fmt.Sprintf("%s, %s, %s", lintPlural(r.Count(lint.Error), "error"), lintPlural(r.Count(lint.Warning), "warning"), lintPlural(r.Count(lint.Info), "info"))
}

func lintPlural(n int, word string) string {
	if n == 1 || word == "info" {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// writeSARIF writes reports as one SARIF 2.1.0 log to path, or to stdout
// for "-".
func writeSARIF(path string, stdout io.Writer, reports []lint.Report) error {
	data, err := json.MarshalIndent(lint.SARIF(reports, lintToolVersion()), "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "-" {
		_, err = stdout.Write(data)
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return &usageError{msg: fmt.Sprintf("--sarif: %v", err), hint: "Give a file in a folder that exists and can be written."}
	}
	return nil
}

// startWarnings is how many of a workflow's warnings run and start print
// before saying how many more there are: the run's own first line must not
// be buried under them.
const startWarnings = 3

// lintBeforeRun lints workflow for run and start: every error is named on
// stderr and refuses the run (exit 2). Warnings are said once and briefly:
// at most startWarnings of them, without their fix, then how many more
// there are and the command that shows them all with their fixes.
func lintBeforeRun(env *cmdEnv, workflowArg string, fetcher workflow.Fetcher) error {
	ss := workflow.NewScopes(fetcher)
	defer ss.Close()
	r, err := lint.Check(ss, workflowArg)
	if err != nil {
		return nil // run says what is wrong with the argument, as it always has
	}
	var warnings []lint.Finding
	for _, f := range r.Only(lint.Warning) {
		switch f.Check {
		case "unknown-key", "frontmatter-warning", "tool-limits-on-script":
			continue // the run prints these itself when it loads the state
		}
		warnings = append(warnings, f)
	}
	for i, f := range warnings {
		if i == startWarnings {
			fmt.Fprintf(env.stderr, "raymond: warning: … and %d more ('raymond lint %s' shows them all, with their fixes)\n",
				len(warnings)-i, workflowArg)
			break
		}
		fmt.Fprintf(env.stderr, "raymond: warning: %s\n", findingBrief(f))
	}
	errs := r.Only(lint.Error)
	if len(errs) == 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s has %s, so no run was created:", workflowArg, lintPlural(len(errs), "error"))
	for _, f := range errs {
		b.WriteString("\n  " + findingOneLine(f))
	}
	hint := "Fix them, then run again."
	if len(errs) == 1 {
		hint = "Fix it as the message says, then run again."
	}
	return &usageError{msg: b.String(), hint: hint + "\n('raymond lint " + workflowArg + "' shows every finding; --no-lint skips this check.)"}
}

// findingOneLine is a finding on one line: FILE:LINE:COL: message [check]; fix.
func findingOneLine(f lint.Finding) string {
	where := printable(shown(f.File))
	if f.Line > 0 {
		where += fmt.Sprintf(":%d", f.Line)
		if f.Column > 0 {
			where += fmt.Sprintf(":%d", f.Column)
		}
	}
	return fmt.Sprintf("%s: %s [%s]; %s", where, printable(f.Message), f.Check, printable(f.Fix))
}

// findingBrief is a finding on one line without its fix: FILE:LINE:COL:
// message [check].
func findingBrief(f lint.Finding) string {
	line := findingOneLine(f)
	return strings.TrimSuffix(line, "; "+printable(f.Fix))
}

// lintToolVersion is raymond's version for SARIF's tool.driver.version.
func lintToolVersion() string {
	v, _ := buildVersion()
	return v
}
