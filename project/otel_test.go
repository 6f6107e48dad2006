package project

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseConfigOTel(t *testing.T) {
	got, err := ParseConfig("c.toml", []byte(`[otel]
endpoint = "https://otlp.example.com:4318"
service_name = "raymond-ci"
headers = {authorization = "Bearer x", "x-team" = "ops"}
`))
	require.NoError(t, err)
	assert.Equal(t, OTel{Endpoint: ptr("https://otlp.example.com:4318"), ServiceName: ptr("raymond-ci"),
		Headers: map[string]string{"authorization": "Bearer x", "x-team": "ops"}}, got.OTel)

	got, err = ParseConfig("c.toml", []byte("[otel.headers]\napi-key = \"k\"\n"))
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"api-key": "k"}, got.OTel.Headers)
}

func TestParseConfigOTelErrors(t *testing.T) {
	for _, tt := range []struct{ name, text, want string }{
		{"typo", "[otel]\nendpoint = \"http://localhost:4318\"\nendpiont = \"x\"\n", "c.toml:3: unknown key otel.endpiont; did you mean otel.endpoint?"},
		{"no scheme", "[otel]\nendpoint = \"localhost:4318\"\n", `c.toml:2: otel.endpoint "localhost:4318" must be an http:// or https:// URL such as http://localhost:4318`},
		{"grpc scheme", "[otel]\nendpoint = \"grpc://collector:4317\"\n", "must be an http:// or https:// URL"},
		{"query", "[otel]\nendpoint = \"http://c:4318/?a=1\"\n", "must have no query or fragment"},
		{"header value", "[otel]\nheaders = {key = 1}\n", "otel.headers.key must be a string, not an integer"},
		{"headers list", "[otel]\nheaders = [\"a\"]\n", "otel.headers must be a table of header names and values"},
		{"empty service", "[otel]\nservice_name = \" \"\n", "otel.service_name is empty"},
		{"not a table", "otel = \"http://localhost:4318\"\n", "otel must be a table ([otel])"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("c.toml", []byte(tt.text))
			require.ErrorContains(t, err, tt.want)
		})
	}
}
