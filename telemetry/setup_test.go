package telemetry

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"raymond/transcript"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestEnabled(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    Config
		want bool
	}{
		{"nothing", Config{Getenv: env(nil)}, false},
		{"config", Config{Endpoint: "http://localhost:4318", Getenv: env(nil)}, true},
		{"variable", Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"})}, true},
		{"traces variable", Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"})}, true},
		{"sdk disabled", Config{Endpoint: "http://c", Getenv: env(map[string]string{"OTEL_SDK_DISABLED": "true"})}, false},
		{"exporter none", Config{Endpoint: "http://c", Getenv: env(map[string]string{"OTEL_TRACES_EXPORTER": "none"})}, false},
	} {
		t.Run(tt.name, func(t *testing.T) { require.Equal(t, tt.want, tt.c.Enabled()) })
	}
	p, err := Start(t.Context(), Config{Getenv: env(nil)})
	require.NoError(t, err)
	require.Nil(t, p, "unconfigured: nothing is set up")
	require.NoError(t, p.Shutdown(t.Context()), "a nil Provider shuts down as nothing")
}

// TestStartExportsToTheConfiguredEndpoint: the config's endpoint gets
// /v1/traces and the config's headers, in OTLP/HTTP protobuf, once the
// provider shuts down.
func TestStartExportsToTheConfiguredEndpoint(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Team")+" "+string(body))
		mu.Unlock()
	}))
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	t.Setenv("OTEL_SERVICE_NAME", "")
	p, err := Start(t.Context(), Config{Endpoint: srv.URL + "/", Headers: map[string]string{"X-Team": "ops"}, ServiceName: "nightly", Version: "v9",
		Getenv: env(nil)})
	require.NoError(t, err)
	p.Tracer.Event(transcript.Event{Type: transcript.EventRunStarted, Run: "r1"})
	p.Tracer.Event(transcript.Event{Type: transcript.EventRunEnded, Run: "r1", Status: "completed"})
	require.NoError(t, p.Shutdown(t.Context()))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1)
	require.True(t, strings.HasPrefix(got[0], "/v1/traces application/x-protobuf ops "), got[0])
	for _, want := range []string{"service.name", "nightly", "service.version", "v9", "raymond.run.id", "r1"} {
		require.Contains(t, got[0], want)
	}
}
