package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"go.opentelemetry.io/otel"

	"raymond/orchestrator"
	"raymond/project"
	"raymond/step"
	"raymond/telemetry"
)

// traces is the export of this process's traces (docs/observability.md):
// nil when neither the OTEL_* variables nor the config's [otel] table name
// an endpoint, and then nothing is set up at all.
type traces struct {
	p *telemetry.Provider
}

// startTraces sets up the export of traces from the project's [otel]
// table and the environment. A problem only turns traces off, with a
// warning on stderr: a run never fails for want of a collector. Errors of
// the exports themselves (a collector that is down) go to log, or, with
// no log, once to stderr.
//
// A run, resume or recover started from a traced process (a CI job, a
// script state of another run) links its runs to that process's span
// (TRACEPARENT); a daemon does not: its environment is not its runs'.
func startTraces(ctx context.Context, env *cmdEnv, p *project.Project, log *slog.Logger, stderr io.Writer, linkCaller bool) *traces {
	cfg := telemetry.Config{Getenv: env.getenv}
	if linkCaller {
		cfg.Caller, cfg.CallerState = env.getenv(step.TraceParentEnv), env.getenv(step.TraceStateEnv)
	}
	if p.Config != nil {
		o := p.Config.OTel
		cfg.Headers = o.Headers
		if o.Endpoint != nil {
			cfg.Endpoint = *o.Endpoint
		}
		if o.ServiceName != nil {
			cfg.ServiceName = *o.ServiceName
		}
	}
	cfg.Version, _ = buildVersion()
	if !cfg.Enabled() {
		return nil
	}
	var once sync.Once
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		if log != nil {
			log.Warn("traces", "err", err)
			return
		}
		once.Do(func() { fmt.Fprintf(stderr, "raymond: traces are not exported: %v\n", err) })
	}))
	tp, err := telemetry.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "raymond: traces are off: %v\n", err)
		return nil
	}
	return &traces{p: tp}
}

// sinks are the sinks a driver gets for the traces: none when off.
func (t *traces) sinks() []orchestrator.Sink {
	if t == nil {
		return nil
	}
	return []orchestrator.Sink{t.p.Tracer}
}

// stop exports the spans still queued, waiting at most
// telemetry.ShutdownTimeout.
func (t *traces) stop() {
	if t == nil {
		return
	}
	_ = t.p.Shutdown(context.Background())
}
