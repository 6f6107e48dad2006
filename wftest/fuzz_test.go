package wftest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary test files to Parse: it must never panic, and
// every line it points at must be a line of the file.
func FuzzParse(f *testing.F) {
	f.Add([]byte(loopCases))
	f.Add([]byte("cases:\n- name: a\n  replies: {START: [x]}\n  expect:\n    path:\n      main: [START]\n"))
	f.Add([]byte("cases:\n  - name: a\n    inptu: |\n      - not: a key\n    budget: -1\n"))
	f.Add([]byte("\"cases\": [\n  {name: a}]\n"))
	dir := f.TempDir()
	write(f, dir, loopWorkflow)
	path := filepath.Join(dir, "wf", "f.test.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Parse(path, data)
		lines := strings.Count(string(data), "\n") + 1
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			rest, ok := strings.CutPrefix(line, path+":")
			if !ok {
				continue
			}
			var n int
			for _, c := range rest {
				if c < '0' || c > '9' {
					break
				}
				n = n*10 + int(c-'0')
			}
			if n > lines {
				t.Fatalf("error points at line %d of a file of %d lines: %s", n, lines, line)
			}
		}
	})
}

// BenchmarkRunCase runs one case of four steps, start to end: project
// folder, orchestrator, transcript, analysis and checks.
func BenchmarkRunCase(b *testing.B) {
	dir := b.TempDir()
	write(b, dir, loopWorkflow)
	write(b, dir, map[string]string{"wf/loop.test.yaml": loopCases})
	file, err := Load(filepath.Join(dir, "wf", "loop.test.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	c := file.Cases[0]
	for b.Loop() {
		if res := file.RunCase(context.Background(), c, 0); !res.Passed() {
			b.Fatal(res.Failures)
		}
	}
}

// BenchmarkParse parses a test file of 4 cases.
func BenchmarkParse(b *testing.B) {
	dir := b.TempDir()
	write(b, dir, loopWorkflow)
	path := filepath.Join(dir, "wf", "loop.test.yaml")
	for b.Loop() {
		if _, err := Parse(path, []byte(loopCases)); err != nil {
			b.Fatal(err)
		}
	}
}
