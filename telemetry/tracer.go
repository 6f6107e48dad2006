package telemetry

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"raymond/step"
	"raymond/transcript"
)

// The attributes of raymond's spans. Models, tokens, sessions and tools use
// the names of OpenTelemetry's conventions for generative AI.
const (
	AttrRun         = "raymond.run.id"
	AttrWorkflow    = "raymond.workflow"
	AttrEntryState  = "raymond.entry_state"
	AttrResumed     = "raymond.resumed"
	AttrScripted    = "raymond.scripted"
	AttrRunStatus   = "raymond.run.status"
	AttrRunCost     = "raymond.run.cost_usd"
	AttrAgent       = "raymond.agent.id"
	AttrParentAgent = "raymond.agent.parent"
	AttrAgentStatus = "raymond.agent.status"
	AttrState       = "raymond.state"
	AttrSeq         = "raymond.step.seq"
	AttrStepName    = "raymond.step.name"
	AttrAttempt     = "raymond.step.attempt"
	AttrMode        = "raymond.step.mode"
	AttrReminder    = "raymond.step.reminder"
	AttrOutcome     = "raymond.step.outcome"
	AttrNotStarted  = "raymond.step.not_started"
	AttrCost        = "raymond.step.cost_usd"
	AttrDuration    = "raymond.step.duration_ms"
	AttrError       = "raymond.error"
	AttrModel       = "gen_ai.request.model"
	AttrSession     = "gen_ai.conversation.id"
	AttrInputTokens = "gen_ai.usage.input_tokens"
	AttrOutTokens   = "gen_ai.usage.output_tokens"
	AttrTool        = "gen_ai.tool.name"
	AttrToolCall    = "gen_ai.tool.call.id"
	AttrTag         = "raymond.tag"
	AttrTarget      = "raymond.target"
	AttrChild       = "raymond.agent.child"
	AttrAskID       = "raymond.ask.id"
	AttrUntil       = "raymond.until"
	AttrHTTPStatus  = "http.response.status_code"
)

// The outcome of a step that succeeded, in the words of every runner.
const success = "success"

// Tracer keeps the spans of the runs being driven, from their events. It is
// safe for concurrent use: a daemon's runs share one. A nil *Tracer is not
// usable; Start returns nil when tracing is off, and callers then add no
// sink at all.
type Tracer struct {
	tracer trace.Tracer
	now    func() time.Time
	// caller, when set, is the span that started this process: every run
	// span links to it.
	caller *trace.Link

	mu   sync.Mutex
	runs map[string]*runSpan
}

type runSpan struct {
	span   trace.Span
	ctx    context.Context
	agents map[string]*agentSpan
}

type agentSpan struct {
	span trace.Span
	ctx  context.Context
	step *stepSpan
}

type stepSpan struct {
	span  trace.Span
	ctx   context.Context
	seq   int
	tools []toolSpan // open, oldest first
}

type toolSpan struct {
	id, name string
	span     trace.Span
}

// newTracer returns a Tracer whose spans come from tp, which should make
// its ids with an idGenerator.
func newTracer(tp trace.TracerProvider) *Tracer {
	return &Tracer{tracer: tp.Tracer("raymond"), now: time.Now, runs: map[string]*runSpan{}}
}

// Event implements orchestrator.Sink.
func (t *Tracer) Event(e transcript.Event) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := t.now()
	if e.Type == transcript.EventRunStarted || e.Type == transcript.EventRunResumed {
		t.startRun(e, now)
		return
	}
	r := t.runs[e.Run]
	if r == nil {
		return
	}
	switch e.Type {
	case transcript.EventStepStarted:
		a := r.agent(t, e.Run, e.Agent, now)
		if a.step != nil {
			a.step.end(now, "", "a new step started before this one ended")
		}
		a.step = t.startStep(a, e, now)
	case transcript.EventStepEnded:
		if a := r.agents[e.Agent]; a != nil && a.step != nil {
			a.step.ended(e, now)
			a.step = nil
		}
	case transcript.EventSpawn:
		child := r.agent(t, e.Run, e.Child, now)
		child.span.SetAttributes(attribute.String(AttrParentAgent, e.Parent))
		r.agent(t, e.Run, e.Agent, now).span.AddEvent("spawn", trace.WithTimestamp(now),
			trace.WithAttributes(attribute.String(AttrChild, e.Child), attribute.String(AttrState, e.State)))
	case transcript.EventTransition:
		r.agent(t, e.Run, e.Agent, now).span.AddEvent("transition", trace.WithTimestamp(now),
			trace.WithAttributes(attribute.String(AttrTag, e.Tag), attribute.String(AttrTarget, e.Target)))
	case transcript.EventRetry, transcript.EventReminder, transcript.EventVisitCap:
		r.agent(t, e.Run, e.Agent, now).span.AddEvent(e.Type, trace.WithTimestamp(now),
			trace.WithAttributes(attribute.String(AttrState, e.State)))
	case transcript.EventAsk, transcript.EventAnswered, transcript.EventAskExpired:
		// The question and the answer are a person's words: only the ask's id.
		r.agent(t, e.Run, e.Agent, now).span.AddEvent(e.Type, trace.WithTimestamp(now),
			trace.WithAttributes(attribute.String(AttrAskID, e.AskID)))
	case transcript.EventAgentCompleted, transcript.EventAgentFailed:
		if a := r.agents[e.Agent]; a != nil {
			status := "completed"
			if e.Type == transcript.EventAgentFailed {
				status = "failed"
				a.span.SetStatus(codes.Error, e.Message)
				a.span.SetAttributes(attribute.String(AttrError, e.Message))
			}
			a.end(now, status)
			delete(r.agents, e.Agent)
		}
	case transcript.EventWait:
		if e.Until != nil {
			r.span.AddEvent("wait", trace.WithTimestamp(now), trace.WithAttributes(attribute.String(AttrUntil, e.Until.UTC().Format(time.RFC3339))))
		}
	case transcript.EventWaitOver:
		r.span.AddEvent("wait_over", trace.WithTimestamp(now))
	case transcript.EventRunEnded:
		t.endRun(e, r, now)
	}
}

// startRun starts the run span of a drive: the run's root span on its
// first drive, else a child of that root, in the run's own trace.
func (t *Tracer) startRun(e transcript.Event, now time.Time) {
	if old := t.runs[e.Run]; old != nil {
		t.endRun(transcript.Event{Status: "unknown"}, old, now)
	}
	resumed := e.Type == transcript.EventRunResumed
	ctx := context.Background()
	opts := []trace.SpanStartOption{trace.WithTimestamp(now), trace.WithAttributes(
		attribute.String(AttrRun, e.Run), attribute.String(AttrWorkflow, e.Message),
		attribute.String(AttrEntryState, e.State), attribute.Bool(AttrResumed, resumed))}
	if e.Scripted {
		// --replies: no model ran, and its tool calls never happened.
		opts = append(opts, trace.WithAttributes(attribute.Bool(AttrScripted, true)))
	}
	if resumed {
		ctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: RunTraceID(e.Run), SpanID: runSpanID(e.Run), TraceFlags: trace.FlagsSampled, Remote: true}))
	} else {
		ctx = context.WithValue(ctx, rootKey{}, rootIDs{trace: RunTraceID(e.Run), span: runSpanID(e.Run)})
		opts = append(opts, trace.WithNewRoot())
	}
	if t.caller != nil {
		opts = append(opts, trace.WithLinks(*t.caller))
	}
	name := "run"
	if resumed {
		name = "resume"
	}
	ctx, span := t.tracer.Start(ctx, name, opts...)
	t.runs[e.Run] = &runSpan{span: span, ctx: ctx, agents: map[string]*agentSpan{}}
}

// endRun ends a drive's run span and whatever is still open under it.
func (t *Tracer) endRun(e transcript.Event, r *runSpan, now time.Time) {
	for _, a := range r.agents {
		if a.step != nil {
			a.step.end(now, "", "the run stopped before the step ended")
		}
		a.end(now, "unfinished")
	}
	attrs := []attribute.KeyValue{attribute.String(AttrRunStatus, e.Status)}
	if e.TotalCostUSD != nil {
		attrs = append(attrs, attribute.Float64(AttrRunCost, *e.TotalCostUSD))
	}
	r.span.SetAttributes(attrs...)
	if e.Status == "failed" {
		r.span.SetStatus(codes.Error, e.Message)
		r.span.SetAttributes(attribute.String(AttrError, e.Message))
	}
	r.span.End(trace.WithTimestamp(now))
	for id, run := range t.runs {
		if run == r {
			delete(t.runs, id)
		}
	}
}

// agent returns the span of agent id, started now if it has none in this
// drive.
func (r *runSpan) agent(t *Tracer, run, id string, now time.Time) *agentSpan {
	if a := r.agents[id]; a != nil {
		return a
	}
	ctx, span := t.tracer.Start(r.ctx, "agent "+id, trace.WithTimestamp(now),
		trace.WithAttributes(attribute.String(AttrRun, run), attribute.String(AttrAgent, id)))
	a := &agentSpan{span: span, ctx: ctx}
	r.agents[id] = a
	return a
}

func (a *agentSpan) end(now time.Time, status string) {
	a.span.SetAttributes(attribute.String(AttrAgentStatus, status))
	a.span.End(trace.WithTimestamp(now))
}

// startStep starts the span of the step e announces, under its agent.
func (t *Tracer) startStep(a *agentSpan, e transcript.Event, now time.Time) *stepSpan {
	attrs := []attribute.KeyValue{
		attribute.String(AttrRun, e.Run), attribute.String(AttrAgent, e.Agent), attribute.String(AttrState, e.State),
		attribute.Int(AttrSeq, e.Seq), attribute.String(AttrStepName, e.Step), attribute.Int(AttrAttempt, e.Attempt),
		attribute.String(AttrMode, e.Mode),
	}
	if e.Model != "" {
		attrs = append(attrs, attribute.String(AttrModel, e.Model))
	}
	if e.Session != "" {
		attrs = append(attrs, attribute.String(AttrSession, e.Session))
	}
	if e.Reminder {
		attrs = append(attrs, attribute.Bool(AttrReminder, true))
	}
	ctx, span := t.tracer.Start(a.ctx, "step "+e.State, trace.WithTimestamp(now), trace.WithAttributes(attrs...))
	return &stepSpan{span: span, ctx: ctx, seq: e.Seq}
}

// ended records how the step ended (its step_ended event) and ends its span.
func (s *stepSpan) ended(e transcript.Event, now time.Time) {
	attrs := []attribute.KeyValue{attribute.String(AttrOutcome, e.Outcome)}
	if e.Session != "" {
		attrs = append(attrs, attribute.String(AttrSession, e.Session))
	}
	if e.CostUSD != nil {
		attrs = append(attrs, attribute.Float64(AttrCost, *e.CostUSD))
	}
	if e.InputTokens != 0 || e.OutputTokens != 0 {
		attrs = append(attrs, attribute.Int64(AttrInputTokens, e.InputTokens), attribute.Int64(AttrOutTokens, e.OutputTokens))
	}
	if e.DurationMS != 0 {
		attrs = append(attrs, attribute.Int64(AttrDuration, e.DurationMS))
	}
	if e.NotStarted {
		attrs = append(attrs, attribute.Bool(AttrNotStarted, true))
	}
	s.span.SetAttributes(attrs...)
	switch {
	case e.Message != "":
		// The answer was refused (no tag, a bad target): raymond's words.
		s.end(now, e.Message, e.Message)
	case e.NotStarted && e.Outcome == "":
		s.end(now, "", "the step did not start")
	case e.Outcome != success:
		s.end(now, "", e.Outcome)
	default:
		s.end(now, "", "")
	}
}

// end ends the step's span and its open tools; failure, when not "", is
// the status's description and errText, when not "", the error attribute.
func (s *stepSpan) end(now time.Time, errText, failure string) {
	for _, tool := range s.tools {
		tool.span.SetStatus(codes.Error, "the step ended before the tool returned")
		tool.span.End(trace.WithTimestamp(now))
	}
	s.tools = nil
	if errText != "" {
		s.span.SetAttributes(attribute.String(AttrError, errText))
	}
	if failure != "" {
		s.span.SetStatus(codes.Error, failure)
	}
	s.span.End(trace.WithTimestamp(now))
}

// StepTrace implements orchestrator.StepSink: the W3C trace context of the
// step's span.
func (t *Tracer) StepTrace(req step.Request) (traceparent, tracestate string) {
	t.mu.Lock()
	s := t.step(req)
	t.mu.Unlock()
	if s == nil {
		return "", ""
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(s.ctx, carrier)
	return carrier.Get("traceparent"), carrier.Get("tracestate")
}

// StepEvent implements orchestrator.StepSink: a tool call starts a span
// under the step's, which its result ends; an API error the model's client
// retries is an event of the step's span.
func (t *Tracer) StepEvent(req step.Request, e step.Event) {
	switch e.Kind {
	case step.EventToolUse, step.EventToolResult, step.EventRetry:
	default:
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.step(req)
	if s == nil {
		return
	}
	now := t.now()
	switch e.Kind {
	case step.EventToolUse:
		attrs := []attribute.KeyValue{attribute.String(AttrTool, e.Tool)}
		if e.ToolID != "" {
			attrs = append(attrs, attribute.String(AttrToolCall, e.ToolID))
		}
		_, span := t.tracer.Start(s.ctx, "tool "+e.Tool, trace.WithTimestamp(now), trace.WithAttributes(attrs...))
		s.tools = append(s.tools, toolSpan{id: e.ToolID, name: e.Tool, span: span})
	case step.EventToolResult:
		i := s.tool(e)
		if i < 0 {
			return
		}
		tool := s.tools[i]
		s.tools = append(s.tools[:i], s.tools[i+1:]...)
		if e.IsError {
			tool.span.SetStatus(codes.Error, "the tool reported an error")
		}
		tool.span.End(trace.WithTimestamp(now))
	case step.EventRetry:
		s.span.AddEvent("api_retry", trace.WithTimestamp(now), trace.WithAttributes(
			attribute.Int(AttrHTTPStatus, e.Status), attribute.Int(AttrAttempt, e.Attempt)))
	}
}

// tool finds the open tool call a result answers: by its id, else the
// oldest call of the same tool; -1 for none.
func (s *stepSpan) tool(e step.Event) int {
	for i, tool := range s.tools {
		if e.ToolID != "" && tool.id == e.ToolID {
			return i
		}
	}
	for i, tool := range s.tools {
		if (e.ToolID == "" || tool.id == "") && tool.name == e.Tool {
			return i
		}
	}
	return -1
}

// step is the open span of req's step, nil when there is none; t.mu is
// held.
func (t *Tracer) step(req step.Request) *stepSpan {
	r := t.runs[req.RunID]
	if r == nil {
		return nil
	}
	a := r.agents[req.Agent]
	if a == nil || a.step == nil || a.step.seq != req.Seq {
		return nil
	}
	return a.step
}
