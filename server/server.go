// Package server puts a daemon on HTTP: the JSON API under /api/v1
// (described by the OpenAPI document it serves), its server-sent event
// streams, the Prometheus metrics, the health check and the web page.
//
// Security: every /api request and /metrics need the bearer token; nothing
// sends CORS headers, so no other site's script can read an answer or send
// the header; a request whose Host is not the address the daemon serves is
// refused (DNS rebinding); a state-changing request from another origin
// is refused; request bodies are limited to 1 MiB. limits.go bounds what
// clients hold: connections, event streams, the time to send a request.
package server

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"syscall"
	"time"

	"raymond/daemon"
	"raymond/state"
	"raymond/step"
)

// Config is what a Server is made with.
type Config struct {
	// Daemon is the daemon it serves.
	Daemon *daemon.Daemon
	// Workflows is the daemon's catalog of workflows.
	Workflows Workflows
	// Token is the bearer token every /api request must carry.
	Token string
	// Version is raymond's version, for GET /api/v1/daemon.
	Version string
	// Log receives one line per request that failed, and the server's own
	// troubles; nil discards them.
	Log *slog.Logger
	// Hosts are the Host header values (host or host:port) the server
	// answers; empty allows loopback names only.
	Hosts []string
	// Page serves the web page at "/"; nil serves none.
	Page http.Handler
	// Metrics serves /metrics; nil serves none.
	Metrics http.Handler
	// MaxStreams is how many event streams are served at once; 0 means
	// DefaultMaxStreams.
	MaxStreams int
	// Schedules are the daemon's schedules; nil for none.
	Schedules *daemon.Schedules
	// Hooks are the daemon's webhooks; nil for none.
	Hooks *daemon.Hooks
}

// MaxBody is the largest request body the API reads.
const MaxBody = 1 << 20

// Server is the daemon's HTTP handler.
type Server struct {
	cfg Config
	d   *daemon.Daemon
	log *slog.Logger
	mux *http.ServeMux
	// reports signs the links of GET /report/{id}.
	reportKey []byte
	// ping is the interval of the event streams' keep-alive comments.
	ping time.Duration
	// streams holds a token per event stream being served.
	streams chan struct{}
}

// New returns the daemon's HTTP handler.
func New(cfg Config) *Server {
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	s := &Server{cfg: cfg, d: cfg.Daemon, log: cfg.Log, mux: http.NewServeMux(), ping: 15 * time.Second,
		streams: make(chan struct{}, cfg.MaxStreams)}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.reportKey = []byte(cfg.Token + "/report")
	for _, r := range routes(s) {
		h := r.handler
		if r.auth {
			h = s.authorized(h)
		}
		s.mux.HandleFunc(r.method+" "+r.path, h)
	}
	if cfg.Page != nil {
		// "/" rather than "GET /", which would conflict with "/api/"
		// (ServeMux panics at the second registration).
		s.mux.Handle("/", pageOnly(cfg.Page))
	}
	s.mux.HandleFunc("/api/", s.noRoute)
	return s
}

// pageOnly lets only GET and HEAD through to the page.
func pageOnly(page http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, http.StatusMethodNotAllowed, "method_not_allowed", fmt.Sprintf("%s %s: the page is only read (GET)", r.Method, cut(r.URL.Path)))
			return
		}
		page.ServeHTTP(w, r)
	}
}

// noRoute answers a request no API route takes: 405 with the methods the
// path has, else 404.
func (s *Server) noRoute(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
		other := r.Clone(r.Context())
		other.Method = m
		if _, pattern := s.mux.Handler(other); pattern != "" && pattern != "/api/" {
			allow = append(allow, m)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, "method_not_allowed",
			fmt.Sprintf("%s %s is not a route; this path takes %s", r.Method, cut(r.URL.Path), strings.Join(allow, ", ")))
		return
	}
	writeError(w, http.StatusNotFound, "no_route", fmt.Sprintf("no API route %s %s: GET /api/v1/openapi.json lists them", r.Method, cut(r.URL.Path)))
}

// route is one route of the API.
type route struct {
	method, path string
	auth         bool
	handler      http.HandlerFunc
}

// routes lists every route; the OpenAPI document must describe each one
// (a test checks).
func routes(s *Server) []route {
	r := []route{
		{"GET", "/healthz", false, s.healthz},
		{"GET", "/api/v1/openapi.json", true, s.openAPI},
		{"GET", "/api/v1/daemon", true, s.daemonStatus},
		{"GET", "/api/v1/events", true, s.stream(s.events)},
		{"GET", "/api/v1/workflows", true, s.workflows},
		{"GET", "/api/v1/workflows/{id...}", true, s.workflow},
		{"POST", "/api/v1/runs", true, s.launch},
		{"GET", "/api/v1/runs", true, s.runs},
		{"GET", "/api/v1/runs/{id}", true, s.run},
		{"DELETE", "/api/v1/runs/{id}", true, s.deleteRun},
		{"POST", "/api/v1/runs/{id}/pause", true, s.pause},
		{"POST", "/api/v1/runs/{id}/cancel", true, s.cancel},
		{"POST", "/api/v1/runs/{id}/resume", true, s.resume},
		{"GET", "/api/v1/runs/{id}/diff", true, s.diff},
		{"POST", "/api/v1/runs/{id}/publish", true, s.publish},
		{"POST", "/api/v1/runs/{id}/discard", true, s.discard},
		{"GET", "/api/v1/runs/{id}/events", true, s.stream(s.runEvents)},
		{"GET", "/api/v1/runs/{id}/report", false, s.report}, // a bearer token or a signed link
		{"POST", "/api/v1/runs/{id}/report-link", true, s.reportLink},
		{"GET", "/api/v1/asks", true, s.asks},
		{"POST", "/api/v1/runs/{id}/asks/{ask_id}", true, s.answer},
		{"GET", "/api/v1/schedules", true, s.schedules},
		{"POST", "/api/v1/hooks/{name}", false, s.hook}, // signed with the hook's secret instead
	}
	if s.cfg.Metrics != nil {
		r = append(r, route{"GET", "/metrics", true, s.cfg.Metrics.ServeHTTP})
	}
	return r
}

// ServeHTTP checks the Host and the origin of state-changing requests, then
// routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.hostAllowed(r.Host) {
		writeError(w, http.StatusMisdirectedRequest, "wrong_host",
			fmt.Sprintf("this daemon does not answer for host %q; use the address raymond serve printed", r.Host))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && crossSite(r) {
		writeError(w, http.StatusForbidden, "cross_site", "requests from another site may not change anything here: use the daemon's own page, or send the request without Origin and Sec-Fetch-Site headers, as curl and scripts do")
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	s.mux.ServeHTTP(w, r)
}

// hostAllowed says whether the Host header names this server.
func (s *Server) hostAllowed(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	for _, h := range s.cfg.Hosts {
		if strings.EqualFold(h, host) || strings.EqualFold(h, name) {
			return true
		}
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(name, "[]"))
	return ip != nil && ip.IsLoopback()
}

// crossSite says whether a request comes from a page of another origin.
// A request without Origin or Sec-Fetch-Site does not come from a page
// (curl, a script): the token alone guards it.
func crossSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "cross-site", "same-site":
		return true
	case "same-origin", "none":
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host == "" || !strings.EqualFold(u.Host, r.Host)
}

// authorized lets a request through only with the bearer token.
func (s *Server) authorized(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.hasToken(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="raymond"`)
			msg := "this needs the header 'Authorization: Bearer TOKEN'; the token is in .raymond/serve.token"
			if _, ok := bearer(r); ok {
				// A stale token (the file was deleted and the daemon
				// made a new one) must not read as a missing header.
				msg = "the token does not match this daemon's: use the one in .raymond/serve.token (a new one is made when the file is deleted)"
			}
			writeError(w, http.StatusUnauthorized, "unauthorized", msg)
			return
		}
		h(w, r)
	}
}

// hasToken says whether r carries the bearer token. A server made without
// a token lets nobody in.
func (s *Server) hasToken(r *http.Request) bool {
	if s.cfg.Token == "" {
		return false
	}
	token, ok := bearer(r)
	return ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Token)) == 1
}

// bearer returns the credentials of r's Authorization header when its
// scheme is Bearer, in any case: schemes are case-insensitive (RFC 7235
// §2.1), and some clients send "bearer".
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// apiError is the one shape of every error answer.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeError answers an error.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// fail answers err with the status its kind calls for.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var (
		le *daemon.LintError
		de *daemon.Error
		lk *state.LockedError
	)
	switch {
	case errors.As(err, &le):
		writeJSON(w, http.StatusUnprocessableEntity, struct {
			apiError
			Findings any `json:"findings"`
		}{apiError: errBody("workflow_has_errors", err.Error()+"; fix them and launch again"), Findings: le.Findings})
	case errors.Is(err, daemon.ErrNotFound):
		writeError(w, http.StatusNotFound, "not_found", err.Error())
	case errors.Is(err, daemon.ErrConflict), errors.As(err, &lk):
		// A run another process has just locked is a conflict too.
		writeError(w, http.StatusConflict, "conflict", err.Error())
	case errors.Is(err, daemon.ErrInvalid):
		writeError(w, http.StatusBadRequest, "invalid", err.Error())
	case errors.Is(err, daemon.ErrClosing):
		writeError(w, http.StatusServiceUnavailable, "stopping", err.Error())
	case errors.Is(err, daemon.ErrUnavailable):
		writeError(w, http.StatusServiceUnavailable, "claude_unavailable", err.Error())
	case errors.As(err, &de):
		writeError(w, http.StatusBadRequest, "bad_request", err.Error())
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		s.log.Error("request failed: no space left", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInsufficientStorage, "insufficient_storage",
			"the disk that holds the project's .raymond/ folder is full (or over quota): free some space there, then try again; "+err.Error())
	case step.Exhausted(err):
		s.log.Error("request failed: out of descriptors or processes", "method", r.Method, "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", "10")
		writeError(w, http.StatusServiceUnavailable, "busy",
			"the daemon is short of file descriptors or processes right now: try again in a moment; "+err.Error())
	default:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal", err.Error())
	}
}

func errBody(code, msg string) apiError {
	var e apiError
	e.Error.Code, e.Error.Message = code, msg
	return e
}

// decode reads a JSON body into v: at most MaxBody bytes, no unknown
// field, one value. It answers the error itself and reports false.
func decode(w http.ResponseWriter, r *http.Request, v any, optional bool) bool {
	ct := r.Header.Get("Content-Type")
	if r.ContentLength == 0 && optional {
		return true
	}
	if ct != "" && !strings.HasPrefix(strings.ToLower(ct), "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "bad_content_type",
			fmt.Sprintf("the body must be JSON (Content-Type: application/json), not %s", ct))
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value")
	}
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return true
	case errors.As(err, &mbe):
		writeError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("the body is over %d bytes: send a smaller one; a long input belongs in a file the workflow reads", MaxBody))
	case errors.Is(err, io.EOF) && optional:
		return true
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "bad_json", "the body is empty; send a JSON object")
	default:
		writeError(w, http.StatusBadRequest, "bad_json", "the body is not the JSON object expected: "+jsonProblem(err))
	}
	return false
}

// jsonProblem says what is wrong with a body in the API's terms: a value of
// the wrong type names its field and the type wanted, not the server's Go
// types.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return strings.TrimPrefix(err.Error(), "json: ")
	}
	if te.Field == "" {
		return fmt.Sprintf("it is %s; send a JSON object", withArticle(te.Value))
	}
	return fmt.Sprintf("%q must be %s, not %s", te.Field, jsonKind(te.Type), withArticle(te.Value))
}

// jsonKind names the JSON type that decodes into t.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}

// withArticle puts the article before the name of a JSON value's type, as the json
// package gives it (string, number, array, object, bool).
func withArticle(kind string) string {
	switch kind {
	case "array", "object":
		return "an " + kind
	case "bool":
		return "true or false"
	}
	return "a " + kind
}
