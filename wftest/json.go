package wftest

import (
	"encoding/json"
	"io"
)

// SchemaVersion is the version of the JSON that WriteJSON writes (`raymond
// test --json`). Adding a field keeps it; renaming, removing or changing
// the meaning of one bumps it.
const SchemaVersion = 1

// jsonReport is the --json object.
type jsonReport struct {
	Schema int `json:"schema"`
	// Passed is false when no case ran.
	Passed bool `json:"passed"`
	// Files counts the test files, Invalid those that could not be loaded.
	Files   int `json:"files"`
	Invalid int `json:"invalid_files"`
	// Cases counts the cases run, Failed those that failed, Unselected
	// those --run left out.
	Cases      int        `json:"cases"`
	Failed     int        `json:"failed"`
	Unselected int        `json:"unselected"`
	DurationMS int64      `json:"duration_ms"`
	Results    []jsonFile `json:"results"`
}

type jsonFile struct {
	File       string     `json:"file"`
	Passed     bool       `json:"passed"`
	Error      string     `json:"error,omitempty"`
	DurationMS int64      `json:"duration_ms"`
	Cases      []jsonCase `json:"cases"`
}

type jsonCase struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Line       int      `json:"line,omitempty"`
	Passed     bool     `json:"passed"`
	Failures   []string `json:"failures"`
	DurationMS int64    `json:"duration_ms"`
	// What the run did; status is "" when the run could not be analysed.
	Status    string     `json:"status"`
	Result    *string    `json:"result"`
	Steps     int        `json:"steps"`
	Reminders int        `json:"reminders"`
	Retries   int        `json:"retries"`
	CostUSD   float64    `json:"cost_usd"`
	Paths     []jsonPath `json:"paths"`
	// Asks are the run's asks, absent when it asked none.
	Asks []AskResult `json:"asks,omitempty"`
	// Dir is the case's project folder, when --keep kept it.
	Dir string `json:"dir,omitempty"`
	// Prints are the run's <print> outputs, absent when it printed none.
	Prints []string `json:"prints,omitempty"`
}

type jsonPath struct {
	Agent  string      `json:"agent"`
	Visits []jsonVisit `json:"visits"`
}

type jsonVisit struct {
	State  string `json:"state"`
	Via    string `json:"via"`
	NotRun string `json:"not_run,omitempty"`
}

// WriteJSON writes the report as one indented JSON object; its schema is
// described in docs/testing-workflows.md.
func WriteJSON(w io.Writer, r *Report) error {
	out := jsonReport{
		Schema: SchemaVersion, Files: len(r.Files), Cases: r.CaseCount(), Unselected: r.Unselected,
		DurationMS: r.Duration.Milliseconds(), Results: []jsonFile{},
	}
	for _, f := range r.Files {
		jf := jsonFile{File: f.Path, Passed: f.Err == nil, DurationMS: f.Duration.Milliseconds(), Cases: []jsonCase{}}
		if f.Err != nil {
			jf.Error = f.Err.Error()
			out.Invalid++
		}
		for _, c := range f.Cases {
			jc := jsonCase{
				ID: c.ID, Name: c.Name, Line: c.Line, Passed: c.Passed(), Failures: append([]string{}, c.Failures...),
				DurationMS: c.Duration.Milliseconds(), Status: c.Status, Result: c.Result, Steps: c.Steps,
				Reminders: c.Reminders, Retries: c.Retries, CostUSD: c.CostUSD,
				Paths: []jsonPath{}, Asks: c.Asks, Prints: c.Prints,
			}
			if c.Kept {
				jc.Dir = c.Dir
			}
			for _, p := range c.Paths {
				jp := jsonPath{Agent: p.Agent, Visits: []jsonVisit{}}
				for _, v := range p.Visits {
					jp.Visits = append(jp.Visits, jsonVisit(v))
				}
				jc.Paths = append(jc.Paths, jp)
			}
			if !c.Passed() {
				jf.Passed = false
				out.Failed++
			}
			jf.Cases = append(jf.Cases, jc)
		}
		out.Results = append(out.Results, jf)
	}
	out.Passed = r.Passed()
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
