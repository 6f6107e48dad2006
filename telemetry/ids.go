package telemetry

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"

	"go.opentelemetry.io/otel/trace"
)

// RunTraceID is the trace id of run id: every drive of the run adds its
// spans to this trace.
func RunTraceID(run string) trace.TraceID {
	sum := sha256.Sum256([]byte("raymond run " + run))
	var id trace.TraceID
	copy(id[:], sum[:16])
	if !id.IsValid() {
		id[15] = 1
	}
	return id
}

// runSpanID is the span id of the run span of the run's first drive, the
// parent of the run spans of later drives.
func runSpanID(run string) trace.SpanID {
	sum := sha256.Sum256([]byte("raymond run " + run))
	var id trace.SpanID
	copy(id[:], sum[16:24])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}

// rootKey is the context key under which a span to be started asks the
// idGenerator for the ids it must have.
type rootKey struct{}

type rootIDs struct {
	trace trace.TraceID
	span  trace.SpanID
}

// idGenerator gives a root span started with a rootKey in its context the
// ids it names, and random ids to every other span.
type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if ids, ok := ctx.Value(rootKey{}).(rootIDs); ok {
		return ids.trace, ids.span
	}
	var t trace.TraceID
	for !t.IsValid() {
		binary.BigEndian.PutUint64(t[:8], rand.Uint64())
		binary.BigEndian.PutUint64(t[8:], rand.Uint64())
	}
	return t, newSpanID()
}

func (idGenerator) NewSpanID(context.Context, trace.TraceID) trace.SpanID { return newSpanID() }

func newSpanID() trace.SpanID {
	var s trace.SpanID
	for !s.IsValid() {
		binary.BigEndian.PutUint64(s[:], rand.Uint64())
	}
	return s
}
