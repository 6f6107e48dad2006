package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// A server with a page still answers the API's unknown routes in JSON, and
// the page only to GET.
func TestServerWithAPage(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte("<!doctype html><title>raymond</title>"))
	})
	s := New(Config{Token: testToken, Page: page})
	for _, c := range []struct {
		method, path string
		status       int
		ctype        string
	}{
		{"GET", "/", 200, "text/html"},
		{"GET", "/index.html", 200, "text/html"},
		{"POST", "/", 405, "application/json"},
		{"GET", "/api/v1/nope", 404, "application/json"},
		{"GET", "/api/", 404, "application/json"},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		req.Host = "127.0.0.1:7777"
		req.Header.Set("Authorization", "Bearer "+testToken)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != c.status || rec.Header().Get("Content-Type") != c.ctype {
			t.Errorf("%s %s: %d %s, want %d %s", c.method, c.path, rec.Code, rec.Header().Get("Content-Type"), c.status, c.ctype)
		}
	}
}

// A server made without a token lets nobody in, not even with an empty
// bearer token or a link signed with the empty key.
func TestNoTokenNoEntry(t *testing.T) {
	s := New(Config{})
	exp := "99999999999"
	for _, path := range []string{"/api/v1/runs", "/api/v1/runs/20200101-000000-000000-abcdef/report?exp=" + exp + "&sig=" + s.sign("20200101-000000-000000-abcdef", exp)} {
		for _, auth := range []string{"", "Bearer ", "Bearer  "} {
			req := httptest.NewRequest("GET", path, nil)
			req.Host = "127.0.0.1:7777"
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("GET %s with %q: %d, want 401", path, auth, rec.Code)
			}
		}
	}
}
