package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// openAPI is the document, decoded.
func openAPI(t *testing.T) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	return doc
}

var httpMethods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// documented returns "METHOD /path" of every operation of the document.
func documented(doc map[string]any) map[string]map[string]any {
	out := make(map[string]map[string]any)
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			if slices.Contains(httpMethods, method) {
				out[strings.ToUpper(method)+" "+path] = op.(map[string]any)
			}
		}
	}
	return out
}

// routeKey is a route as the document writes it: {id...} is {id}.
func routeKey(r route) string {
	return r.method + " " + strings.ReplaceAll(r.path, "...}", "}")
}

func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	doc := openAPI(t)
	if doc["openapi"] != "3.1.0" {
		t.Errorf("openapi %v, want 3.1.0", doc["openapi"])
	}
	if !strings.Contains(fmt.Sprint(doc["servers"]), "http://127.0.0.1:7777") {
		t.Errorf("servers %v: no http://127.0.0.1:7777", doc["servers"])
	}
	ops := documented(doc)
	s := New(Config{Token: testToken, Metrics: http.NotFoundHandler()})
	routed := make(map[string]route)
	for _, r := range routes(s) {
		routed[routeKey(r)] = r
		if _, ok := ops[routeKey(r)]; !ok {
			t.Errorf("route %s is not in openapi.json", routeKey(r))
		}
	}
	var keys []string
	for k := range ops {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	global := doc["security"]
	for _, k := range keys {
		op := ops[k]
		r, ok := routed[k]
		if !ok {
			t.Errorf("openapi.json describes %s, which is no route", k)
			continue
		}
		// Security: the token everywhere but /healthz.
		sec, own := op["security"]
		if !own {
			sec = global
		}
		needsBearer := strings.Contains(fmt.Sprint(sec), "bearer")
		if r.path == "/healthz" || r.path == "/api/v1/hooks/{name}" {
			if needsBearer {
				t.Errorf("%s: documented as needing the token", k)
			}
			if r.path != "/healthz" && !strings.Contains(fmt.Sprint(sec), "hookSignature") {
				t.Errorf("%s: not documented as needing the hook's signature", k)
			}
		} else if !needsBearer {
			t.Errorf("%s: not documented as needing the token", k)
		}
		if r.auth && fmt.Sprint(sec) != fmt.Sprint(global) {
			t.Errorf("%s: needs the token alone, documented as %v", k, sec)
		}
		// Every documented answer is described; the token's refusal too.
		resps, _ := op["responses"].(map[string]any)
		if len(resps) == 0 {
			t.Errorf("%s: no responses", k)
		}
		if _, ok := resps["401"]; !ok && r.path != "/healthz" {
			t.Errorf("%s: 401 is not documented", k)
		}
		if r.method != "GET" {
			if _, ok := resps["403"]; !ok {
				t.Errorf("%s: 403 (cross-site) is not documented", k)
			}
		}
		for code, v := range resps {
			resp := resolve(t, doc, v.(map[string]any))
			if resp["description"] == nil {
				t.Errorf("%s %s: no description", k, code)
			}
			if code >= "400" && !strings.Contains(fmt.Sprint(resp["content"]), "#/components/schemas/Error") &&
				!strings.Contains(fmt.Sprint(resp["content"]), "#/components/schemas/LintErrorBody") {
				t.Errorf("%s %s: an error answer not in the Error shape", k, code)
			}
		}
		// Every path parameter is declared.
		item := doc["paths"].(map[string]any)[strings.SplitN(k, " ", 2)[1]].(map[string]any)
		params := append(asList(item["parameters"]), asList(op["parameters"])...)
		for _, m := range regexp.MustCompile(`\{([^}]+)\}`).FindAllStringSubmatch(k, -1) {
			found := false
			for _, p := range params {
				p := resolve(t, doc, p.(map[string]any))
				if p["in"] == "path" && p["name"] == m[1] {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: path parameter %s is not declared", k, m[1])
			}
		}
	}
	// The event stream honours Last-Event-ID.
	if !strings.Contains(fmt.Sprint(ops["GET /api/v1/runs/{id}/events"]["parameters"]), "LastEventID") {
		t.Errorf("GET /api/v1/runs/{id}/events does not document Last-Event-ID")
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func TestOpenAPIRefsResolve(t *testing.T) {
	doc := openAPI(t)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if _, err := pointer(doc, ref); err != nil {
					t.Errorf("%s: %v", path, err)
				}
			}
			for k, x := range v {
				walk(path+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", path, i), x)
			}
		}
	}
	walk("#", doc)
	// Each schema an answer names exists.
	for k, op := range documented(doc) {
		for code, v := range op["responses"].(map[string]any) {
			resp := resolve(t, doc, v.(map[string]any))
			content, _ := resp["content"].(map[string]any)
			for ct, m := range content {
				schema, ok := m.(map[string]any)["schema"].(map[string]any)
				if !ok {
					t.Errorf("%s %s %s: no schema", k, code, ct)
				}
				if ref, ok := schema["$ref"].(string); ok {
					if _, err := pointer(doc, ref); err != nil {
						t.Errorf("%s %s: %v", k, code, err)
					}
				}
			}
		}
	}
}

// pointer resolves a local JSON pointer.
func pointer(doc map[string]any, ref string) (any, error) {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("$ref %q is not local", ref)
	}
	var v any = doc
	for _, part := range strings.Split(rest, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if v, ok = m[part]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	return v, nil
}

// resolve follows an object's $ref, if it has one.
func resolve(t *testing.T, doc map[string]any, v map[string]any) map[string]any {
	t.Helper()
	for {
		ref, ok := v["$ref"].(string)
		if !ok {
			return v
		}
		target, err := pointer(doc, ref)
		if err != nil {
			t.Fatal(err)
		}
		v = target.(map[string]any)
	}
}

// conform returns how value fails schema (a small JSON Schema: $ref, type,
// const, enum, properties, required, additionalProperties, items, allOf,
// format date-time).
func conform(doc map[string]any, schema map[string]any, value any, at string) []string {
	if ref, ok := schema["$ref"].(string); ok {
		target, err := pointer(doc, ref)
		if err != nil {
			return []string{at + ": " + err.Error()}
		}
		return conform(doc, target.(map[string]any), value, at)
	}
	var errs []string
	for _, sub := range asList(schema["allOf"]) {
		errs = append(errs, conform(doc, sub.(map[string]any), value, at)...)
	}
	if c, ok := schema["const"]; ok && fmt.Sprint(c) != fmt.Sprint(value) {
		errs = append(errs, fmt.Sprintf("%s: %v, want %v", at, value, c))
	}
	if enum := asList(schema["enum"]); enum != nil && !slices.ContainsFunc(enum, func(e any) bool { return e == value }) {
		errs = append(errs, fmt.Sprintf("%s: %v is not one of %v", at, value, enum))
	}
	if typ, ok := schema["type"]; ok {
		types := asList(typ)
		if types == nil {
			types = []any{typ}
		}
		if !slices.ContainsFunc(types, func(want any) bool { return hasType(value, want.(string)) }) {
			return append(errs, fmt.Sprintf("%s: %s, want %v", at, jsonType(value), typ))
		}
	}
	switch v := value.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, r := range asList(schema["required"]) {
			if _, ok := v[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: no %s", at, r))
			}
		}
		for k, x := range v {
			if p, ok := props[k]; ok {
				errs = append(errs, conform(doc, p.(map[string]any), x, at+"."+k)...)
				continue
			}
			switch extra := schema["additionalProperties"].(type) {
			case bool:
				if !extra {
					errs = append(errs, fmt.Sprintf("%s: %s is not documented", at, k))
				}
			case map[string]any:
				errs = append(errs, conform(doc, extra, x, at+"."+k)...)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, x := range v {
				errs = append(errs, conform(doc, items, x, fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	case string:
		if schema["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %q is not a date-time", at, v))
			}
		}
	}
	return errs
}

func hasType(v any, want string) bool {
	got := jsonType(v)
	return got == want || want == "number" && got == "integer"
}

func jsonType(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// checker validates live answers against the document.
type checker struct {
	t    *testing.T
	doc  map[string]any
	ops  map[string]map[string]any
	seen map[string]bool // "METHOD /path STATUS" checked
}

// answer checks the answer to method path (a route of the document, as
// "METHOD /api/v1/runs/{id}") against its documented response.
func (c *checker) answer(op string, status int, ctype string, body []byte) {
	c.t.Helper()
	o, ok := c.ops[op]
	if !ok {
		c.t.Fatalf("no operation %s", op)
	}
	v, ok := o["responses"].(map[string]any)[fmt.Sprint(status)]
	if !ok {
		c.t.Errorf("%s answered %d, which is not documented: %.200s", op, status, body)
		return
	}
	c.seen[fmt.Sprintf("%s %d", op, status)] = true
	resp := resolve(c.t, c.doc, v.(map[string]any))
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if len(body) != 0 {
			c.t.Errorf("%s %d: a body, documented as none", op, status)
		}
		return
	}
	media, ok := content[strings.SplitN(ctype, ";", 2)[0]].(map[string]any)
	if !ok {
		c.t.Errorf("%s %d: Content-Type %s, documented %v", op, status, ctype, content)
		return
	}
	if !strings.HasPrefix(ctype, "application/json") {
		return
	}
	var value any
	if err := json.Unmarshal(body, &value); err != nil {
		c.t.Errorf("%s %d: %v", op, status, err)
		return
	}
	for _, e := range conform(c.doc, media["schema"].(map[string]any), value, op) {
		c.t.Error(e)
	}
}

// event checks the data of one event of a documented stream.
func (c *checker) event(op string, ev sseEvent) {
	c.t.Helper()
	media := c.ops[op]["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["text/event-stream"].(map[string]any)
	events := media["x-events"].(map[string]any)
	schema, ok := events[ev.Event].(map[string]any)
	if !ok {
		schema, ok = events["*"].(map[string]any)
	}
	if !ok {
		c.t.Errorf("%s: event %s is not documented", op, ev.Event)
		return
	}
	var value any
	if err := json.Unmarshal([]byte(ev.Data), &value); err != nil {
		c.t.Errorf("%s: event %s: %v", op, ev.Event, err)
		return
	}
	for _, e := range conform(c.doc, schema, value, op+" "+ev.Event) {
		c.t.Error(e)
	}
}

func TestAnswersMatchTheDocument(t *testing.T) {
	e := newEnv(t, askingReplies, map[string]states{"asking": asking})
	doc := openAPI(t)
	c := &checker{t: t, doc: doc, ops: documented(doc), seen: make(map[string]bool)}
	call := func(op string, r request) []byte {
		t.Helper()
		resp, body := e.do(r)
		c.answer(op, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		return body
	}
	daemonEvents := e.follow("/api/v1/events", nil)

	var created detail
	decodeJSON(t, string(call("POST /api/v1/runs", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "asking", "input": "hi", "budget": 3}`})), &created)
	id := created.WorkflowID
	asks := e.waitAsks("the ask", func(a []pendingAsk) bool { return len(a) == 1 })
	run := "/api/v1/runs/" + id
	call("GET /api/v1/runs/{id}", request{method: "GET", path: run})
	call("GET /api/v1/asks", request{method: "GET", path: "/api/v1/asks"})
	call("GET /api/v1/runs", request{method: "GET", path: "/api/v1/runs"})
	call("GET /api/v1/daemon", request{method: "GET", path: "/api/v1/daemon"})
	call("GET /api/v1/workflows", request{method: "GET", path: "/api/v1/workflows"})
	call("GET /api/v1/workflows/{id}", request{method: "GET", path: "/api/v1/workflows/asking"})
	call("POST /api/v1/runs/{id}/report-link", request{method: "POST", path: run + "/report-link"})
	call("GET /api/v1/runs/{id}/report", request{method: "GET", path: run + "/report"})
	call("DELETE /api/v1/runs/{id}", request{method: "DELETE", path: run})
	call("POST /api/v1/runs/{id}/asks/{ask_id}", request{method: "POST", path: run + "/asks/" + asks[0].AskID, body: `{"answer": "red"}`})
	e.waitStatus(id, "completed")
	call("GET /api/v1/runs/{id}", request{method: "GET", path: run})
	call("POST /api/v1/runs/{id}/asks/{ask_id}", request{method: "POST", path: run + "/asks/" + asks[0].AskID, body: `{"answer": "red"}`})
	call("POST /api/v1/runs/{id}/resume", request{method: "POST", path: run + "/resume"})
	call("POST /api/v1/runs/{id}/pause", request{method: "POST", path: run + "/pause"})
	call("GET /api/v1/runs", request{method: "GET", path: "/api/v1/runs?status=bogus"})
	call("POST /api/v1/runs", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": 1}`})
	call("POST /api/v1/runs", request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "nope"}`})
	call("GET /api/v1/runs/{id}", request{method: "GET", path: "/api/v1/runs/20200101-000000-000000-abcdef"})
	call("GET /healthz", request{method: "GET", path: "/healthz", noToken: true})
	call("GET /metrics", request{method: "GET", path: "/metrics"})
	call("GET /api/v1/daemon", request{method: "GET", path: "/api/v1/daemon", noToken: true})

	for _, ev := range e.follow(run+"/events", nil).rest(t) {
		c.event("GET /api/v1/runs/{id}/events", ev)
	}
	for _, ev := range daemonEvents.until(t, func(ev sseEvent) bool { return ev.Event == "run" && strings.Contains(ev.Data, `"completed"`) }) {
		c.event("GET /api/v1/events", ev)
	}
	call("DELETE /api/v1/runs/{id}", request{method: "DELETE", path: run})
	for _, ev := range daemonEvents.until(t, func(ev sseEvent) bool { return ev.Event == "run_removed" }) {
		c.event("GET /api/v1/events", ev)
	}

	served := call("GET /api/v1/openapi.json", request{method: "GET", path: "/api/v1/openapi.json"})
	if !bytes.Equal(served, openAPIDoc) {
		t.Errorf("GET /api/v1/openapi.json does not serve openapi.json")
	}
	for _, want := range []string{"POST /api/v1/runs 201", "DELETE /api/v1/runs/{id} 409", "DELETE /api/v1/runs/{id} 204",
		"POST /api/v1/runs/{id}/asks/{ask_id} 200", "POST /api/v1/runs/{id}/asks/{ask_id} 409", "GET /api/v1/runs/{id} 404"} {
		if !c.seen[want] {
			t.Errorf("%s was not checked", want)
		}
	}
}

// The workflow id of GET /workflows/{id} may hold slashes, escaped or not.
func TestWorkflowIDWithSlashes(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"team/hello": hello})
	for _, path := range []string{"/api/v1/workflows/team/hello", "/api/v1/workflows/" + url.PathEscape("team/hello")} {
		var wf struct {
			ID string `json:"id"`
		}
		e.call(request{method: "GET", path: path}, http.StatusOK, &wf)
		if wf.ID != "team/hello" {
			t.Errorf("GET %s: %q", path, wf.ID)
		}
	}
}
