package scripted

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"raymond/claude"
)

// BenchmarkRun measures one typical scripted step: a say block, two tool
// calls and a final text with a transition, rendered and streamed to a
// handler that keeps nothing.
func BenchmarkRun(b *testing.B) {
	r := parse(b, `
replies:
  WORKER.md:
    - text: "Checked {{item}}: the package builds and its tests pass. <result>{{item}}: ok</result>"
      repeat: true
      cost: 0.0123
      say: ["Looking at {{item}}. <print>checking {{item}}</print>"]
      tools:
        - {name: Bash, input: {command: "go vet ./{{item}}/..."}, result: ""}
        - {name: Read, input: {file_path: "{{item}}/doc.go"}, result: "// Package {{item}} …"}
`)
	req := request("WORKER.md", map[string]string{"item": "parsing"})
	h := claude.Handler{OnLine: func([]byte) {}, OnEvent: func(claude.Event) {}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.play(ctx, req, h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse measures parsing the example replies file.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "replies.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("replies.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
