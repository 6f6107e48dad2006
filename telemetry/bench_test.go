package telemetry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"raymond/orchestrator"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// batched returns a Tracer as Start sets one up, a batch span processor in
// front of exp.
func batched(exp sdktrace.SpanExporter) (*Tracer, func()) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithIDGenerator(idGenerator{}))
	return newTracer(tp), func() { _ = tp.Shutdown(context.Background()) }
}

// otlpSink is an OTLP/HTTP exporter to a collector on loopback that reads
// and drops what it gets: the whole export, protobuf and HTTP included.
func otlpSink(b *testing.B) sdktrace.SpanExporter {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	b.Cleanup(srv.Close)
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(srv.URL+"/v1/traces"))
	if err != nil {
		b.Fatal(err)
	}
	return exp
}

// BenchmarkTracerStep is what the tracer does for one step: its start, the
// trace context handed to its process, two tool calls, its end and its
// transition. The run and its agent are already open.
func BenchmarkTracerStep(b *testing.B) {
	for _, c := range []struct {
		name string
		exp  func(*testing.B) sdktrace.SpanExporter
	}{
		{"export=none", func(*testing.B) sdktrace.SpanExporter { return tracetest.NewNoopExporter() }},
		{"export=otlp", otlpSink},
	} {
		b.Run(c.name, func(b *testing.B) {
			tracer, stop := batched(c.exp(b))
			defer stop()
			tracer.Event(transcript.Event{Type: transcript.EventRunStarted, Run: "r1"})
			cost := 0.01
			seq := 0
			b.ReportAllocs()
			for b.Loop() {
				seq++
				req := step.Request{RunID: "r1", Agent: "main", Seq: seq}
				tracer.Event(transcript.Event{Type: transcript.EventStepStarted, Run: "r1", Agent: "main", State: "WORK.md",
					Step: "main_WORK_001", Seq: seq, Attempt: 1, Mode: "resume", Model: "sonnet", Session: "3cfc1498-bbaa-41e2-9eb2-687163416c7c"})
				if parent, _ := tracer.StepTrace(req); parent == "" {
					b.Fatal("no trace context")
				}
				for _, id := range []string{"toolu_1", "toolu_2"} {
					tracer.StepEvent(req, step.Event{Kind: step.EventToolUse, Tool: "Bash", ToolID: id})
					tracer.StepEvent(req, step.Event{Kind: step.EventToolResult, Tool: "Bash", ToolID: id})
				}
				tracer.Event(transcript.Event{Type: transcript.EventStepEnded, Run: "r1", Agent: "main", Outcome: "success",
					CostUSD: &cost, InputTokens: 1200, OutputTokens: 300, DurationMS: 5000, Session: "3cfc1498-bbaa-41e2-9eb2-687163416c7c"})
				tracer.Event(transcript.Event{Type: transcript.EventTransition, Run: "r1", Agent: "main", Tag: "goto", Target: "WORK.md"})
			}
		})
	}
}

// chainLen is the number of steps of the chain BenchmarkDrive drives.
const chainLen = 50

// BenchmarkDrive drives a run of chainLen steps, each with two tool calls,
// through the orchestrator and the scripted runner (no process, no
// transcript), with tracing off (no sink: what every run does unless it is
// configured) and on (the tracer and a batch span processor, exporting
// over OTLP/HTTP to a collector on loopback), and reports the time per
// step.
func BenchmarkDrive(b *testing.B) {
	dir := b.TempDir()
	wf := filepath.Join(dir, "wf")
	if err := os.MkdirAll(wf, 0o755); err != nil {
		b.Fatal(err)
	}
	var replies strings.Builder
	replies.WriteString("replies:\n")
	for i := 1; i <= chainLen; i++ {
		next := fmt.Sprintf("<goto>S%02d.md</goto>", i+1)
		if i == chainLen {
			next = "<result>done</result>"
		}
		if err := os.WriteFile(filepath.Join(wf, fmt.Sprintf("S%02d.md", i)), []byte("Do the work.\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(&replies, "  S%02d.md:\n    - text: %q\n      tools: [{name: Bash, input: {command: ls}, result: a.go}, {name: Read, input: {file_path: a.go}, result: x}]\n", i, next)
	}
	for _, traced := range []bool{false, true} {
		b.Run(fmt.Sprintf("tracing=%v", traced), func(b *testing.B) {
			var sinks []orchestrator.Sink
			if traced {
				tracer, stop := batched(otlpSink(b))
				defer stop()
				sinks = []orchestrator.Sink{tracer}
			}
			base := b.TempDir()
			n := 0
			var elapsed time.Duration
			for b.Loop() {
				b.StopTimer()
				runner, err := scripted.Parse("replies.yaml", []byte(replies.String()))
				if err != nil {
					b.Fatal(err)
				}
				store := &state.Store{Dir: filepath.Join(base, fmt.Sprintf("state%d", n))}
				n++
				if err := os.MkdirAll(store.Dir, 0o755); err != nil {
					b.Fatal(err)
				}
				if _, err := orchestrator.Create(store, orchestrator.NewRun{Workflow: filepath.Join(wf, "S01.md"), ID: "r1", Cwd: dir}); err != nil {
					b.Fatal(err)
				}
				d := &orchestrator.Driver{Store: store, Runner: runner, Clock: &orchestrator.InstantClock{}, Sinks: sinks}
				b.StartTimer()
				start := time.Now()
				r, err := d.Drive(context.Background(), "r1", nil)
				elapsed += time.Since(start)
				if err != nil || r.Status != state.StatusCompleted {
					b.Fatalf("run %v: %v", r.Status, err)
				}
			}
			b.ReportMetric(float64(elapsed.Nanoseconds())/float64(n*chainLen), "ns/step")
		})
	}
}
