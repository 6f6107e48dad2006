package telemetry

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// DefaultServiceName is the service.name of raymond's spans unless
// OTEL_SERVICE_NAME or the config's [otel] service_name says otherwise.
const DefaultServiceName = "raymond"

// ShutdownTimeout bounds how long Shutdown waits for the last spans to be
// exported: a collector that is down never holds raymond's exit longer.
const ShutdownTimeout = 3 * time.Second

// Config says where traces go: the config's [otel] table, which the
// standard OTEL_* variables override.
type Config struct {
	// Endpoint is the OTLP/HTTP base URL ("http://localhost:4318"; the
	// spans go to its /v1/traces), used when neither
	// OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
	// is set.
	Endpoint string
	// Headers are sent with every export (an API key), unless
	// OTEL_EXPORTER_OTLP_HEADERS or OTEL_EXPORTER_OTLP_TRACES_HEADERS is
	// set.
	Headers map[string]string
	// ServiceName is the service.name of the spans, "" for
	// DefaultServiceName; OTEL_SERVICE_NAME wins over it.
	ServiceName string
	// Version is raymond's version, the spans' service.version.
	Version string
	// Caller is the W3C trace context of whoever started raymond
	// (TRACEPARENT and TRACESTATE in a CI job that traces itself, or in
	// the step of another raymond run); every run span links to it. ""
	// for none.
	Caller, CallerState string
	// Getenv reads the environment, nil for os.Getenv. The exporter
	// itself reads the process's environment for the other OTEL_*
	// variables.
	Getenv func(string) string
}

func (c Config) getenv(key string) string {
	if c.Getenv == nil {
		return os.Getenv(key)
	}
	return c.Getenv(key)
}

// Enabled reports whether c exports traces: an endpoint is configured and
// neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none turns them
// off.
func (c Config) Enabled() bool {
	if disabled, _ := strconv.ParseBool(c.getenv("OTEL_SDK_DISABLED")); disabled {
		return false
	}
	if strings.TrimSpace(c.getenv("OTEL_TRACES_EXPORTER")) == "none" {
		return false
	}
	return c.Endpoint != "" || c.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || c.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// Provider exports the spans of a Tracer; Shutdown exports what is left.
type Provider struct {
	tp *sdktrace.TracerProvider
	// Tracer is the sink to hand to the drivers.
	Tracer *Tracer
}

// Start sets up the export of traces c configures: an OTLP/HTTP exporter
// (protobuf, unless OTEL_EXPORTER_OTLP_PROTOCOL says http/json) behind a
// batch span processor, whose bounded queue drops spans rather than wait
// for a collector that is slow or down. It returns nil, and starts
// nothing, when c is not Enabled. Nothing connects before the first
// export.
func Start(ctx context.Context, c Config) (*Provider, error) {
	if !c.Enabled() {
		return nil, nil
	}
	var opts []otlptracehttp.Option
	if c.getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && c.getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		opts = append(opts, otlptracehttp.WithEndpointURL(strings.TrimRight(c.Endpoint, "/")+"/v1/traces"))
	}
	if len(c.Headers) > 0 && c.getenv("OTEL_EXPORTER_OTLP_HEADERS") == "" && c.getenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS") == "" {
		opts = append(opts, otlptracehttp.WithHeaders(c.Headers))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("set up the OTLP exporter: %w", err)
	}
	name := c.ServiceName
	if name == "" {
		name = DefaultServiceName
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if c.Version != "" {
		attrs = append(attrs, attribute.String("service.version", c.Version))
	}
	// The variables come last: OTEL_SERVICE_NAME and
	// OTEL_RESOURCE_ATTRIBUTES win over the config.
	res, err := resource.New(ctx, resource.WithAttributes(attrs...), resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("set up the traces' resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(idGenerator{}),
	)
	tracer := newTracer(tp)
	if c.Caller != "" {
		carrier := propagation.MapCarrier{"traceparent": c.Caller, "tracestate": c.CallerState}
		if sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(ctx, carrier)); sc.IsValid() {
			tracer.caller = &trace.Link{SpanContext: sc}
		}
	}
	return &Provider{tp: tp, Tracer: tracer}, nil
}

// Shutdown exports the spans still queued, waiting at most
// ShutdownTimeout, and stops the exporter.
func (p *Provider) Shutdown(ctx context.Context) error {
	if p == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, ShutdownTimeout)
	defer cancel()
	return p.tp.Shutdown(ctx)
}
