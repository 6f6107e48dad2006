// Package telemetry turns a run's event stream into OpenTelemetry traces.
//
// A Tracer is an orchestrator.StepSink: it receives every transcript.Event a
// driver publishes, and every live step.Event of a step, and keeps one span
// open for what is going on: the run (one per drive), each agent under it,
// each agent's step under the agent, and each of the step's tool calls
// (a tool_use and its tool_result, paired by the call's id) under the step.
// The span of a step is the trace context the step's processes get
// (TRACEPARENT, through step.Request.TraceParent), so a claude or a script
// that traces itself joins the run's trace.
//
// The trace id of a run is derived from its run id, and the first drive's
// run span has a span id derived from it too: a drive of the same run later
// (raymond resume, a daemon that recovers it, another machine) adds its
// spans to the same trace, its run span a child of the first one, with
// nothing stored in the state file.
//
// Spans carry ids, names, states, models, costs, tokens, outcomes and
// raymond's own error messages, never a prompt, an answer, a tool's input
// or its output.
//
// Start sets up the OTLP/HTTP exporter, with a batch span processor, when an
// endpoint is configured (the OTEL_EXPORTER_OTLP_* variables or the config's
// [otel] table); unconfigured, it returns a nil Tracer and nothing runs.
package telemetry
