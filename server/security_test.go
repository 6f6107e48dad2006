package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"
)

// examplePath fills the parameters of a route's path.
func examplePath(path, run string) string {
	r := strings.NewReplacer("{id...}", "hello", "{id}", run, "{ask_id}", "ask_main_1")
	return r.Replace(path)
}

func TestEveryRouteNeedsTheToken(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	id := e.launch("hello")
	e.waitStatus(id, "completed")
	before := e.snapshot()
	tokens := map[string]string{
		"none":         "",
		"wrong":        "Bearer not-the-token",
		"longer":       "Bearer " + testToken + "x",
		"prefix":       "Bearer " + testToken[:10],
		"other scheme": "Basic " + testToken,
		"bare":         testToken,
	}
	for _, r := range routes(e.srv) {
		path := examplePath(r.path, id)
		if r.path == "/api/v1/hooks/{name}" {
			// Signed instead of the token (hooks_test.go); this daemon
			// has no hook.
			resp, body := e.do(request{method: r.method, path: path, noToken: true, body: "{}"})
			if resp.StatusCode != http.StatusNotFound {
				t.Errorf("%s %s without a hook: %d %s, want 404", r.method, path, resp.StatusCode, body)
			}
			continue
		}
		if !r.auth && r.path == "/healthz" {
			resp, body := e.do(request{method: r.method, path: path, noToken: true})
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"ok"`) {
				t.Errorf("%s %s without a token: %d %s, want 200", r.method, path, resp.StatusCode, body)
			}
			continue
		}
		for what, auth := range tokens {
			req := request{method: r.method, path: path, noToken: true, header: map[string]string{}}
			if auth != "" {
				req.header["Authorization"] = auth
			}
			if r.method == "POST" {
				req.body = `{"workflow": "hello", "answer": "x"}`
			}
			var er errorBody
			resp := e.call(req, http.StatusUnauthorized, &er)
			er.check(t, "unauthorized")
			if resp.Header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s %s with token %s: no WWW-Authenticate", r.method, path, what)
			}
		}
	}
	sameFiles(t, before, e.snapshot(), "requests without the token")
	// The same routes with the token answer (not 401).
	resp, body := e.do(request{method: "GET", path: "/metrics"})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "raymond_runs{") {
		t.Errorf("GET /metrics with the token: %d %.200s", resp.StatusCode, body)
	}
	resp, _ = e.do(request{method: "GET", path: "/api/v1/runs/" + id + "/report"})
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET report with the token: %d", resp.StatusCode)
	}
}

func TestWrongHost(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	for _, host := range []string{"evil.example.com", "evil.example.com:7777", "127.0.0.1.nip.io", "localhost.evil.example", "10.0.0.1:80"} {
		for _, path := range []string{"/healthz", "/api/v1/runs", "/metrics", "/"} {
			var er errorBody
			e.call(request{method: "GET", path: path, header: map[string]string{"Host": host}}, http.StatusMisdirectedRequest, &er)
			er.check(t, "wrong_host")
		}
	}
	before := e.snapshot()
	var er errorBody
	e.call(request{method: "POST", path: "/api/v1/runs", body: `{"workflow": "hello"}`, header: map[string]string{"Host": "evil.example.com"}}, http.StatusMisdirectedRequest, &er)
	sameFiles(t, before, e.snapshot(), "a POST to another host")
	for _, host := range []string{"localhost", "127.0.0.1:7777", "[::1]:7777"} {
		e.call(request{method: "GET", path: "/healthz", header: map[string]string{"Host": host}}, http.StatusOK, nil)
	}
}

func TestCrossSiteRequests(t *testing.T) {
	e := newEnv(t, gatedReplies, map[string]states{"gated": gated})
	id := e.launch("gated")
	e.waitStep(id)
	before := e.snapshot()
	crossSite := []map[string]string{
		{"Origin": "http://evil.example.com"},
		{"Origin": "http://127.0.0.1:1"},
		{"Origin": "null"},
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
		{"Sec-Fetch-Site": "cross-site", "Origin": e.ts.URL},
	}
	for _, h := range crossSite {
		for _, r := range []request{
			{method: "POST", path: "/api/v1/runs", body: `{"workflow": "gated"}`},
			{method: "POST", path: "/api/v1/runs/" + id + "/pause"},
			{method: "DELETE", path: "/api/v1/runs/" + id},
			{method: "POST", path: "/api/v1/runs/" + id + "/report-link"},
		} {
			r.header = h
			var er errorBody
			e.call(r, http.StatusForbidden, &er)
			er.check(t, "cross_site")
		}
	}
	sameFiles(t, before, e.snapshot(), "cross-site requests")
	if d := e.get(id); d.Status != "running" {
		t.Errorf("after cross-site requests the run is %s", d.Status)
	}
	// The page's own requests pass.
	e.call(request{method: "POST", path: "/api/v1/runs/" + id + "/report-link", header: map[string]string{"Origin": e.ts.URL, "Sec-Fetch-Site": "same-origin"}}, http.StatusOK, nil)
	e.release()
	e.waitStatus(id, "completed")
}

func TestNoCORSPreflight(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	for _, origin := range []string{"http://evil.example.com", e.ts.URL} {
		for _, path := range []string{"/api/v1/runs", "/api/v1/asks", "/healthz", "/metrics"} {
			resp, body := e.do(request{method: "OPTIONS", path: path, noToken: true, header: map[string]string{
				"Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type",
			}})
			if resp.StatusCode < 400 {
				t.Errorf("OPTIONS %s from %s: %d %s, want a refusal", path, origin, resp.StatusCode, body)
			}
		}
	}
}

// TestBearerAnyCase: the auth scheme is case-insensitive (RFC 7235 §2.1).
func TestBearerAnyCase(t *testing.T) {
	e := newEnv(t, helloReplies, map[string]states{"hello": hello})
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req := request{method: "GET", path: "/api/v1/runs", noToken: true,
			header: map[string]string{"Authorization": scheme + " " + testToken}}
		if resp, body := e.do(req); resp.StatusCode != http.StatusOK {
			t.Errorf("Authorization: %s TOKEN: %d %.200s, want 200", scheme, resp.StatusCode, body)
		}
	}
	// A wrong token in lower case reads as a wrong token, not a missing header.
	var er errorBody
	e.call(request{method: "GET", path: "/api/v1/runs", noToken: true,
		header: map[string]string{"Authorization": "bearer not-the-token"}}, http.StatusUnauthorized, &er)
	if !strings.Contains(er.Error.Message, "does not match") {
		t.Errorf("a wrong lower-case bearer token: %q, want it named a mismatch", er.Error.Message)
	}
}

// TestFullDiskIs507: a request that fails because the disk is full says so
// (507 Insufficient Storage), rather than an internal error.
func TestFullDiskIs507(t *testing.T) {
	s := New(Config{Token: "t"})
	for _, errno := range []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT} {
		rec := httptest.NewRecorder()
		err := fmt.Errorf("create run: %w", &os.PathError{Op: "write", Path: ".raymond/state/r.json", Err: errno})
		s.fail(rec, httptest.NewRequest("POST", "/api/v1/runs", nil), err)
		if rec.Code != http.StatusInsufficientStorage || !strings.Contains(rec.Body.String(), `"insufficient_storage"`) ||
			!strings.Contains(rec.Body.String(), "free some space") {
			t.Errorf("%v: %d %s, want 507 insufficient_storage", errno, rec.Code, rec.Body)
		}
	}
	// Out of descriptors is a moment's trouble: 503 and try again.
	rec := httptest.NewRecorder()
	err := fmt.Errorf("read run r: %w", &os.PathError{Op: "open", Path: ".raymond/state/r.json", Err: syscall.EMFILE})
	s.fail(rec, httptest.NewRequest("POST", "/api/v1/runs", nil), err)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"busy"`) || rec.Header().Get("Retry-After") == "" {
		t.Errorf("EMFILE: %d %s, want 503 busy with Retry-After", rec.Code, rec.Body)
	}
}
