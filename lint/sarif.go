package lint

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/): the parts
// code-scanning tools read.

// SARIFLog is a SARIF 2.1.0 log.
type SARIFLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []SARIFRun `json:"runs"`
}

// SARIFRun is the run of one tool.
type SARIFRun struct {
	Tool    SARIFTool     `json:"tool"`
	Results []SARIFResult `json:"results"`
}

// SARIFTool names raymond and its checks.
type SARIFTool struct {
	Driver SARIFDriver `json:"driver"`
}

// SARIFDriver is the tool itself and its rules (the check ids).
type SARIFDriver struct {
	Name    string      `json:"name"`
	Version string      `json:"version,omitempty"`
	Rules   []SARIFRule `json:"rules"`
}

// SARIFRule is one check.
type SARIFRule struct {
	ID string `json:"id"`
}

// SARIFResult is one finding.
type SARIFResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   SARIFMessage    `json:"message"`
	Locations []SARIFLocation `json:"locations"`
}

// SARIFMessage is a text.
type SARIFMessage struct {
	Text string `json:"text"`
}

// SARIFLocation is where a finding is.
type SARIFLocation struct {
	PhysicalLocation SARIFPhysical `json:"physicalLocation"`
}

// SARIFPhysical is a file and a region in it.
type SARIFPhysical struct {
	ArtifactLocation SARIFArtifact `json:"artifactLocation"`
	Region           *SARIFRegion  `json:"region,omitempty"`
}

// SARIFArtifact is a file, as a URI.
type SARIFArtifact struct {
	URI string `json:"uri"`
}

// SARIFRegion is a place in a file, 1-based.
type SARIFRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifLevels maps severities to SARIF levels.
var sarifLevels = map[Severity]string{Error: "error", Warning: "warning", Info: "note"}

// SARIF returns the findings of reports as one SARIF 2.1.0 log; version is
// raymond's. A file's URI is relative (with /) when it is inside the
// working folder, else a file: URI.
func SARIF(reports []Report, version string) SARIFLog {
	run := SARIFRun{Tool: SARIFTool{Driver: SARIFDriver{Name: "raymond", Version: version, Rules: []SARIFRule{}}},
		Results: []SARIFResult{}}
	var ids []string
	for _, r := range reports {
		for _, f := range r.Findings {
			if !slices.Contains(ids, f.Check) {
				ids = append(ids, f.Check)
			}
			res := SARIFResult{RuleID: f.Check, Level: sarifLevels[f.Severity],
				Message: SARIFMessage{Text: strings.TrimSuffix(f.Message, ".") + ". Fix: " + f.Fix},
				Locations: []SARIFLocation{{PhysicalLocation: SARIFPhysical{
					ArtifactLocation: SARIFArtifact{URI: fileURI(f.File)}}}}}
			if f.Line > 0 {
				res.Locations[0].PhysicalLocation.Region = &SARIFRegion{StartLine: f.Line, StartColumn: f.Column}
			}
			run.Results = append(run.Results, res)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, SARIFRule{ID: id})
	}
	return SARIFLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []SARIFRun{run}}
}

// fileURI returns path as a SARIF artifact URI.
func fileURI(path string) string {
	if !filepath.IsAbs(path) {
		return filepath.ToSlash(path)
	}
	if wd, err := filepath.Abs("."); err == nil {
		if rel, err := filepath.Rel(wd, path); err == nil && filepath.IsLocal(rel) {
			return (&url.URL{Path: filepath.ToSlash(rel)}).String()
		}
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
