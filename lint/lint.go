package lint

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
)

// Severity says how bad a finding is.
type Severity int

// The severities, worst first.
const (
	// Error: the workflow cannot work as written; raymond run refuses it.
	Error Severity = iota
	// Warning: probably a mistake, but a run may still go well.
	Warning
	// Info: worth knowing, not a mistake.
	Info
)

var severityNames = []string{"error", "warning", "info"}

// String returns "error", "warning" or "info".
func (s Severity) String() string {
	if s >= 0 && int(s) < len(severityNames) {
		return severityNames[s]
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// MarshalJSON writes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// Finding is one problem found in a workflow.
type Finding struct {
	// Check is the stable id of the check, e.g. "missing-target".
	Check string `json:"check"`
	// Severity is how bad it is.
	Severity Severity `json:"severity"`
	// File is the file the finding is in: a state file, a YAML workflow's
	// file, or the workflow itself (its folder, YAML or zip file) when no
	// state is to blame. Line and Column are 1-based, 0 when unknown.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Message says what is wrong; Fix, in one line, what to do.
	Message string `json:"message"`
	Fix     string `json:"fix"`
}

// Report is what Check found in a workflow and the workflows it reaches.
type Report struct {
	// Workflow is the workflow argument as given.
	Workflow string `json:"workflow"`
	// Findings are sorted by file, line, column and check.
	Findings []Finding `json:"findings"`
	// Scopes are the paths (Scope.Dir) of the workflows the check read,
	// the workflow's own first: a change to any of them may change the
	// findings.
	Scopes []string `json:"-"`
}

// Count returns how many findings have severity sev.
func (r Report) Count(sev Severity) int {
	n := 0
	for _, f := range r.Findings {
		if f.Severity == sev {
			n++
		}
	}
	return n
}

// HasErrors reports whether a finding is an error.
func (r Report) HasErrors() bool { return r.Count(Error) > 0 }

// Only returns the findings of severity sev.
func (r Report) Only(sev Severity) []Finding {
	var out []Finding
	for _, f := range r.Findings {
		if f.Severity == sev {
			out = append(out, f)
		}
	}
	return out
}

// sortFindings orders findings by file, line, column, check and message,
// and drops exact duplicates.
func sortFindings(fs []Finding) []Finding {
	slices.SortFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Check, b.Check), cmp.Compare(a.Message, b.Message))
	})
	// The same problem in the same file is said once: a tag written in the
	// prompt and in allowed_transitions is one mistake.
	seen := make(map[[3]string]bool)
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		k := [3]string{f.File, f.Check, f.Message}
		if !seen[k] {
			seen[k] = true
			out = append(out, f)
		}
	}
	return out
}
