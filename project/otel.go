package project

import (
	"fmt"
	"net/url"
	"strings"

	"raymond/internal/spelling"
)

// OTelKeys are the keys of the config's [otel] table: where raymond sends
// its traces (docs/observability.md).
var OTelKeys = []string{"endpoint", "headers", "service_name"}

// OTel is the config's [otel] table. The standard OTEL_* variables win
// over each of its keys.
type OTel struct {
	// Endpoint is the OTLP/HTTP base URL the spans go to (its
	// /v1/traces), as OTEL_EXPORTER_OTLP_ENDPOINT gives it.
	Endpoint *string
	// Headers go with every export (an API key of a hosted backend).
	Headers map[string]string
	// ServiceName is the spans' service.name (default raymond).
	ServiceName *string
}

// set reads the [otel] table.
func (o *OTel) set(v any) error {
	table, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("otel must be a table ([otel]), not %s", tomlType(v))
	}
	for _, key := range sortedKeys(table) {
		v := table[key]
		var err error
		switch key {
		case "endpoint":
			if o.Endpoint, err = tomlString("otel."+key, v); err == nil {
				err = CheckOTelEndpoint(*o.Endpoint)
			}
		case "service_name":
			if o.ServiceName, err = tomlString("otel."+key, v); err == nil && strings.TrimSpace(*o.ServiceName) == "" {
				err = fmt.Errorf("otel.service_name is empty; leave it out for the default raymond")
			}
		case "headers":
			h, ok := v.(map[string]any)
			if !ok {
				err = fmt.Errorf("otel.headers must be a table of header names and values ([otel.headers] or headers = {name = \"value\"}), not %s", tomlType(v))
				break
			}
			o.Headers = make(map[string]string, len(h))
			for _, name := range sortedKeys(h) {
				value, ok := h[name].(string)
				if !ok {
					err = fmt.Errorf("otel.headers.%s must be a string, not %s", name, tomlType(h[name]))
					break
				}
				o.Headers[name] = value
			}
		default:
			if near := spelling.Suggest(key, OTelKeys); near != "" {
				err = fmt.Errorf("unknown key otel.%s; did you mean otel.%s? The keys of [otel] are %s", key, near, strings.Join(OTelKeys, ", "))
			} else {
				err = fmt.Errorf("unknown key otel.%s; the keys of [otel] are %s", key, strings.Join(OTelKeys, ", "))
			}
		}
		if err != nil {
			return &keyError{path: []string{key}, err: err}
		}
	}
	return nil
}

// CheckOTelEndpoint accepts an [otel] endpoint: an http or https URL with
// a host, and no query or fragment.
func CheckOTelEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("otel.endpoint %q must be an http:// or https:// URL such as http://localhost:4318", endpoint)
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Errorf("otel.endpoint %q must have no query or fragment", endpoint)
	}
	return nil
}
