package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"raymond/orchestrator"
	"raymond/scripted"
	"raymond/state"
	"raymond/step"
	"raymond/transcript"
)

// recorder returns a Tracer whose spans end in an in-memory exporter.
func recorder() (*Tracer, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithIDGenerator(idGenerator{}))
	return newTracer(tp), exp
}

// contexts records the trace context each step was given.
type contexts struct {
	step.Runner
	mu   sync.Mutex
	seen map[string]string // step name → traceparent
}

func (c *contexts) Run(ctx context.Context, req step.Request, h step.Handler) step.Result {
	c.mu.Lock()
	c.seen[req.Name()] = req.Env()[step.TraceParentEnv]
	c.mu.Unlock()
	return c.Runner.Run(ctx, req, h)
}

const forkReplies = `
replies:
  START.md:
    - text: '<fork next="DONE.md" item="a">W.md</fork><fork next="DONE.md" item="b">W.md</fork>'
      tools: [{name: Read, input: {file_path: plan.md}, result: "the plan"}]
      cost: 0.01
  W.md:
    - text: '<result>{{item}} checked</result>'
      times: 2
      cost: 0.02
      tools:
        - {name: Bash, input: {command: "ls {{item}}"}, result: "a.go"}
        - {name: Grep, input: {pattern: "secret"}, result: "no such file", error: true}
  DONE.md:
    - '<result>all done</result>'
`

// drive runs a workflow whose main agent forks two workers that use tools,
// with the scripted runner, traced, and returns the spans by name.
func drive(t *testing.T) (tracetest.SpanStubs, map[string]string) {
	t.Helper()
	dir := t.TempDir()
	wf := filepath.Join(dir, "wf")
	require.NoError(t, os.MkdirAll(wf, 0o755))
	for name, body := range map[string]string{"START.md": "Plan the work.", "W.md": "Check {{item}}.", "DONE.md": "Sum up."} {
		require.NoError(t, os.WriteFile(filepath.Join(wf, name), []byte(body), 0o644))
	}
	replies, err := scripted.Parse("replies.yaml", []byte(forkReplies))
	require.NoError(t, err)
	store := &state.Store{Dir: filepath.Join(dir, ".raymond", "state")}
	require.NoError(t, os.MkdirAll(store.Dir, 0o755))
	_, err = orchestrator.Create(store, orchestrator.NewRun{Workflow: wf, ID: "r1", Cwd: dir,
		Options: state.Options{MaxParallel: 2, SkipPermissions: true}})
	require.NoError(t, err)
	tracer, exp := recorder()
	seen := &contexts{Runner: replies, seen: map[string]string{}}
	d := &orchestrator.Driver{Store: store, Runner: seen, Clock: &orchestrator.InstantClock{}, Sinks: []orchestrator.Sink{tracer}}
	r, err := d.Drive(t.Context(), "r1", nil)
	require.NoError(t, err)
	require.Equal(t, state.StatusCompleted, r.Status)
	return exp.GetSpans(), seen.seen
}

func attrs(s tracetest.SpanStub) map[string]attribute.Value {
	m := map[string]attribute.Value{}
	for _, kv := range s.Attributes {
		m[string(kv.Key)] = kv.Value
	}
	return m
}

func named(spans tracetest.SpanStubs, prefix string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if strings.HasPrefix(s.Name, prefix) {
			out = append(out, s)
		}
	}
	return out
}

func TestForkWithToolsMakesATree(t *testing.T) {
	spans, seen := drive(t)
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID()] = s
		require.Equal(t, RunTraceID("r1"), s.SpanContext.TraceID(), "%s is in the run's trace", s.Name)
	}
	parentOf := func(s tracetest.SpanStub) tracetest.SpanStub {
		p, ok := byID[s.Parent.SpanID()]
		require.True(t, ok, "the parent of %s was exported", s.Name)
		return p
	}

	runs := named(spans, "run")
	require.Len(t, runs, 1)
	run := runs[0]
	require.False(t, run.Parent.IsValid(), "the run span is the root")
	require.Equal(t, runSpanID("r1"), run.SpanContext.SpanID())
	ra := attrs(run)
	require.Equal(t, "r1", ra[AttrRun].AsString())
	require.Equal(t, "completed", ra[AttrRunStatus].AsString())
	require.InDelta(t, 0.01+0.02+0.02, ra[AttrRunCost].AsFloat64(), 1e-9)
	require.True(t, strings.HasSuffix(ra[AttrWorkflow].AsString(), "wf"), "workflow = %s", ra[AttrWorkflow].AsString())

	agents := named(spans, "agent ")
	var ids []string
	for _, a := range agents {
		require.Equal(t, run.SpanContext.SpanID(), a.Parent.SpanID(), "%s is under the run", a.Name)
		aa := attrs(a)
		ids = append(ids, aa[AttrAgent].AsString())
		require.Equal(t, "completed", aa[AttrAgentStatus].AsString())
		if aa[AttrAgent].AsString() != "main" {
			require.Equal(t, "main", aa[AttrParentAgent].AsString(), "a worker names the agent that forked it")
		}
	}
	slices.Sort(ids)
	require.Equal(t, []string{"main", "main_w1", "main_w2"}, ids)

	steps := named(spans, "step ")
	require.Len(t, steps, 4)
	for _, s := range steps {
		sa := attrs(s)
		agent := parentOf(s)
		require.Equal(t, "agent "+sa[AttrAgent].AsString(), agent.Name, "%s is under its agent", s.Name)
		require.Equal(t, "success", sa[AttrOutcome].AsString())
		require.Equal(t, codes.Unset, s.Status.Code)
		require.NotEmpty(t, sa[AttrSession].AsString())
		require.Equal(t, "r1", sa[AttrRun].AsString())
		want := trace.SpanContextFromContext(trace.ContextWithSpanContext(context.Background(), s.SpanContext))
		require.Equal(t, "00-"+want.TraceID().String()+"-"+want.SpanID().String()+"-01", seen[sa[AttrStepName].AsString()],
			"the step's processes were given its span as their parent")
	}
	w := steps[slices.IndexFunc(steps, func(s tracetest.SpanStub) bool { return s.Name == "step W.md" })]
	wa := attrs(w)
	require.InDelta(t, 0.02, wa[AttrCost].AsFloat64(), 1e-9)
	require.Equal(t, int64(1), wa[AttrSeq].AsInt64())
	require.Equal(t, "W.md", wa[AttrState].AsString())

	tools := named(spans, "tool ")
	require.Len(t, tools, 5, "one Read, two Bash, two Grep")
	for _, tool := range tools {
		st := parentOf(tool)
		require.True(t, strings.HasPrefix(st.Name, "step "), "%s is under a step, not %s", tool.Name, st.Name)
		ta := attrs(tool)
		require.Equal(t, strings.TrimPrefix(tool.Name, "tool "), ta[AttrTool].AsString())
		require.NotEmpty(t, ta[AttrToolCall].AsString())
		if tool.Name == "tool Grep" {
			require.Equal(t, codes.Error, tool.Status.Code, "a tool that failed")
		} else {
			require.Equal(t, codes.Unset, tool.Status.Code)
		}
		require.False(t, tool.EndTime.Before(tool.StartTime))
	}
	require.Equal(t, "step START.md", parentOf(named(spans, "tool Read")[0]).Name)

	for _, s := range spans {
		for _, kv := range s.Attributes {
			v := kv.Value.String()
			require.NotContains(t, v, "Plan the work", "no prompt in %s", s.Name)
			require.NotContains(t, v, "checked", "no answer in %s", s.Name)
			require.NotContains(t, v, "ls a", "no tool input in %s", s.Name)
		}
	}
}

// ev is an event of run r1 as the driver publishes it.
func ev(typ string, f func(*transcript.Event)) transcript.Event {
	e := transcript.Event{Type: typ, Run: "r1"}
	if f != nil {
		f(&e)
	}
	return e
}

func TestResumedDriveJoinsTheRunsTrace(t *testing.T) {
	tracer, exp := recorder()
	tracer.Event(ev(transcript.EventRunResumed, func(e *transcript.Event) { e.Message, e.Scripted = "/wf", true }))
	tracer.Event(ev(transcript.EventStepStarted, func(e *transcript.Event) { e.Agent, e.State, e.Seq = "main", "B.md", 3 }))
	tracer.Event(ev(transcript.EventStepEnded, func(e *transcript.Event) { e.Agent, e.Outcome = "main", "crash" }))
	tracer.Event(ev(transcript.EventRunEnded, func(e *transcript.Event) { e.Status, e.Message = "failed", "main failed" }))
	spans := exp.GetSpans()
	require.Len(t, spans, 3)
	run := named(spans, "resume")[0]
	require.Equal(t, RunTraceID("r1"), run.SpanContext.TraceID())
	require.Equal(t, runSpanID("r1"), run.Parent.SpanID(), "under the first drive's run span")
	require.True(t, attrs(run)[AttrResumed].AsBool())
	require.True(t, attrs(run)[AttrScripted].AsBool(), "a run answered from replies says so")
	require.Equal(t, codes.Error, run.Status.Code)
	require.Equal(t, "main failed", run.Status.Description)
	st := named(spans, "step ")[0]
	require.Equal(t, codes.Error, st.Status.Code)
	require.Equal(t, "crash", st.Status.Description)
	require.Equal(t, "unfinished", attrs(named(spans, "agent ")[0])[AttrAgentStatus].AsString())
}

func TestStepCutShortEndsItsTools(t *testing.T) {
	tracer, exp := recorder()
	req := step.Request{RunID: "r1", Agent: "main", Seq: 1}
	tracer.Event(ev(transcript.EventRunStarted, nil))
	tracer.Event(ev(transcript.EventStepStarted, func(e *transcript.Event) { e.Agent, e.State, e.Seq = "main", "A.md", 1 }))
	parent, _ := tracer.StepTrace(req)
	require.Regexp(t, `^00-[0-9a-f]{32}-[0-9a-f]{16}-01$`, parent)
	other, _ := tracer.StepTrace(step.Request{RunID: "r1", Agent: "main", Seq: 2})
	require.Empty(t, other, "no span for a step that did not start")
	tracer.StepEvent(req, step.Event{Kind: step.EventToolUse, Tool: "Bash", ToolID: "t1"})
	tracer.StepEvent(req, step.Event{Kind: step.EventToolUse, Tool: "Bash", ToolID: "t2"})
	tracer.StepEvent(req, step.Event{Kind: step.EventToolResult, Tool: "Bash", ToolID: "t2"})
	tracer.StepEvent(req, step.Event{Kind: step.EventRetry, Status: 529, Attempt: 1})
	tracer.Event(ev(transcript.EventStepEnded, func(e *transcript.Event) {
		e.Agent, e.Outcome, e.Message = "main", "success", "no transition tag in the answer"
	}))
	spans := exp.GetSpans()
	tools := named(spans, "tool ")
	require.Len(t, tools, 2)
	require.Equal(t, "t2", attrs(tools[0])[AttrToolCall].AsString(), "the call answered first ends first")
	require.Equal(t, codes.Unset, tools[0].Status.Code)
	require.Equal(t, codes.Error, tools[1].Status.Code, "a call never answered")
	st := named(spans, "step ")[0]
	require.Equal(t, codes.Error, st.Status.Code, "a refused answer")
	require.Equal(t, "no transition tag in the answer", attrs(st)[AttrError].AsString())
	require.Len(t, st.Events, 1)
	require.Equal(t, "api_retry", st.Events[0].Name)
	require.Empty(t, named(spans, "run"), "the run goes on")
}
