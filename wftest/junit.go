package wftest

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"time"
)

// The JUnit XML that CI systems read: one testsuite per test file, one
// testcase per case, a failure for a case that failed and an error for a
// test file that could not be loaded. Times are in seconds.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",cdata"`
}

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, r *Report) error {
	out := junitSuites{Name: "raymond test", Time: xmlSeconds(r.Duration)}
	for _, f := range r.Files {
		s := junitSuite{Name: f.Path, Time: xmlSeconds(f.Duration)}
		if f.Err != nil {
			msg := f.Err.Error()
			s.Tests, s.Errors = 1, 1
			s.Cases = append(s.Cases, junitCase{
				Name: "(test file)", Classname: f.prefix(), Time: xmlSeconds(0),
				Error: &junitProblem{Message: firstLine(msg), Text: msg},
			})
		}
		for _, c := range f.Cases {
			jc := junitCase{Name: c.Name, Classname: f.prefix(), Time: xmlSeconds(c.Duration)}
			if !c.Passed() {
				jc.Failure = &junitProblem{Message: headlines(c.Failures), Text: strings.Join(c.Failures, "\n")}
				s.Failures++
			}
			s.Tests++
			s.Cases = append(s.Cases, jc)
		}
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Suites = append(out.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("write JUnit XML: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// headlines joins the first lines of the failures, for a message
// attribute.
func headlines(failures []string) string {
	lines := make([]string, len(failures))
	for i, f := range failures {
		lines[i] = firstLine(f)
	}
	return strings.Join(lines, "; ")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func xmlSeconds(d time.Duration) string {
	return fmt.Sprintf("%.3f", d.Seconds())
}
