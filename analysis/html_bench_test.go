package analysis

import (
	"io"
	"testing"
)

// htmlCountingWriter counts the bytes written to it.
type htmlCountingWriter struct{ n int64 }

func (w *htmlCountingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkWriteHTMLWide writes the report of a 1,000-agent run (2,001
// steps, each with its prompt and stream) and reports its size.
func BenchmarkWriteHTMLWide(b *testing.B) {
	r := htmlWideRun(1000)
	details := htmlDetails(r, false)
	for _, s := range r.Steps {
		if details[s.Name] == nil {
			details[s.Name] = &Detail{Step: s, Prompt: "Work on your part.", Answer: "Done. <result>ok</result>"}
		}
	}
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		w := &htmlCountingWriter{}
		if err := WriteHTML(w, r, detailsOf(details)); err != nil {
			b.Fatal(err)
		}
		size = w.n
	}
	b.ReportMetric(float64(size), "bytes/report")
}

// BenchmarkWriteMermaidWide writes the flowchart of the same run.
func BenchmarkWriteMermaidWide(b *testing.B) {
	r := htmlWideRun(1000)
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteMermaid(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
}
