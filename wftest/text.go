package wftest

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteText writes the report as `go test` does: a line per case, its
// failures indented below it, a line per file and a summary. Files with
// no selected case are left out. verbose also shows what passing cases
// did: each agent's path, status, steps and cost.
func WriteText(w io.Writer, r *Report, verbose bool) error {
	var b strings.Builder
	for _, f := range r.Files {
		writeFile(&b, f, verbose)
	}
	b.WriteString(Summary(r) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFile writes the lines of one test file.
func writeFile(b *strings.Builder, f *FileResult, verbose bool) {
	if f.Err != nil {
		fmt.Fprintf(b, "# %s\n%s\n", f.Path, f.Err)
		fmt.Fprintf(b, "FAIL  %s  [invalid test file]\n", f.Path)
		return
	}
	if len(f.Cases) == 0 {
		return
	}
	failed := 0
	for _, c := range f.Cases {
		verdict := "PASS"
		if !c.Passed() {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(b, "--- %s: %s (%s)\n", verdict, c.ID, seconds(c.Duration))
		for _, msg := range c.Failures {
			b.WriteString(indent(msg))
		}
		if verbose && c.Passed() {
			b.WriteString(indent(what(c)))
		}
		if c.Kept && c.Passed() {
			b.WriteString(indent("the case's folder is kept: " + c.Dir))
		}
	}
	if failed > 0 {
		fmt.Fprintf(b, "FAIL  %s  %d of %s failed  %s\n", f.Path, failed, count(len(f.Cases), "case", "cases"), seconds(f.Duration))
		return
	}
	fmt.Fprintf(b, "ok    %s  %s  %s\n", f.Path, count(len(f.Cases), "case", "cases"), seconds(f.Duration))
}

// what describes what a passing case's run did: each agent's path as
// expect.path writes it, so that it can be pasted into a case, a comment
// marking a visit that ran no step; its asks as expect.asks writes them;
// then status, steps, reminders, retries and cost.
func what(c *CaseResult) string {
	lines := []string{"path:"}
	for _, p := range c.Paths {
		entries := make([]string, len(p.Visits))
		var notRun []string
		for i, v := range p.Visits {
			entries[i] = flowScalar(entryText(v.State, v.Via, i == 0))
			if v.NotRun != "" {
				notRun = append(notRun, entryText(v.State, v.Via, i == 0)+notRunNote(v.NotRun))
			}
		}
		line := fmt.Sprintf("  %s: [%s]", flowScalar(p.Agent), strings.Join(entries, ", "))
		if len(notRun) > 0 {
			line += "  # " + strings.Join(notRun, ", ")
		}
		lines = append(lines, line)
	}
	if len(c.Asks) > 0 {
		asks := make([]string, len(c.Asks))
		for i, k := range c.Asks {
			asks[i] = fmt.Sprintf("{id: %s, status: %s", k.ID, k.Status)
			if k.Answer != nil {
				asks[i] += ", answer: " + quote(*k.Answer)
			}
			asks[i] += "}"
		}
		lines = append(lines, "asks: ["+strings.Join(asks, ", ")+"]")
	}
	sums := []string{c.Status, count(c.Steps, "step", "steps")}
	if c.Reminders > 0 {
		sums = append(sums, count(c.Reminders, "reminder", "reminders"))
	}
	if c.Retries > 0 {
		sums = append(sums, count(c.Retries, "retry", "retries"))
	}
	sums = append(sums, money(c.CostUSD)+" USD")
	return strings.Join(append(lines, strings.Join(sums, ", ")), "\n")
}

// Summary is the report's last line: PASS or FAIL, with counts and time;
// NO CASES RUN when nothing was selected, which is not a pass.
func Summary(r *Report) string {
	cases, files := r.CaseCount(), len(r.Files)
	failed, invalid := 0, 0
	for _, f := range r.Files {
		if f.Err != nil {
			invalid++
		}
		for _, c := range f.Cases {
			if !c.Passed() {
				failed++
			}
		}
	}
	in := fmt.Sprintf("in %s (%s)", count(files, "file", "files"), seconds(r.Duration))
	switch {
	case cases == 0 && invalid == 0:
		return fmt.Sprintf("NO CASES RUN: 0 of %s selected %s", count(r.Unselected, "case", "cases"), in)
	case cases == 0:
		return fmt.Sprintf("FAIL: %s invalid, no case run, %s", count(invalid, "test file", "test files"), in)
	case failed == 0 && invalid == 0:
		return fmt.Sprintf("PASS: %s %s", count(cases, "case", "cases"), in)
	case invalid == 0:
		return fmt.Sprintf("FAIL: %d of %s failed %s", failed, count(cases, "case", "cases"), in)
	}
	return fmt.Sprintf("FAIL: %d of %s failed, %s invalid, %s", failed, count(cases, "case", "cases"), count(invalid, "test file", "test files"), in)
}

// indent indents every line of msg by four spaces.
func indent(msg string) string {
	var b strings.Builder
	for line := range strings.Lines(msg) {
		b.WriteString("    " + strings.TrimSuffix(line, "\n") + "\n")
	}
	return b.String()
}

// count writes n with the noun it counts.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// seconds writes a duration as go test does: 0.41s.
func seconds(d time.Duration) string {
	return fmt.Sprintf("%.2fs", d.Seconds())
}
