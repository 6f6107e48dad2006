package server

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPageServesFilesWithStrictHeaders(t *testing.T) {
	srv := httptest.NewServer(Page())
	defer srv.Close()
	for path, ctype := range map[string]string{
		"/":            "text/html; charset=utf-8",
		"/app.js":      "text/javascript; charset=utf-8",
		"/app.css":     "text/css; charset=utf-8",
		"/dom.js":      "text/javascript; charset=utf-8",
		"/sse.js":      "text/javascript; charset=utf-8",
		"/timeline.js": "text/javascript; charset=utf-8",
	} {
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusOK, res.StatusCode, path)
		assert.Equal(t, ctype, res.Header.Get("Content-Type"), path)
		assert.Equal(t, "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "+
			"img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
			res.Header.Get("Content-Security-Policy"), path)
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), path)
		assert.Equal(t, "no-referrer", res.Header.Get("Referrer-Policy"), path)
	}
	res, err := http.Get(srv.URL + "/nothing-here")
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusNotFound, res.StatusCode)
}

func TestPageRefusesOtherMethods(t *testing.T) {
	rec := httptest.NewRecorder()
	Page().ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x")))
	assert.Equal(t, http.StatusMethodNotAllowed, rec.Code)
	assert.Equal(t, "GET, HEAD", rec.Header().Get("Allow"))
}

// The page works offline and under its CSP: no external URL, no inline
// script or style, no innerHTML.
func TestPageIsSelfContained(t *testing.T) {
	external := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]{2,}`)
	inline := regexp.MustCompile(`(?i)<script>|<script [^>]*>[^<]|<style|\sstyle=|\son[a-z]+=`)
	err := fs.WalkDir(pageFiles, "web", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(pageFiles, path)
		require.NoError(t, err)
		s := string(b)
		assert.NotRegexp(t, external, s, path)
		assert.NotContains(t, s, "innerHTML", path)
		if strings.HasSuffix(path, ".html") {
			assert.NotRegexp(t, inline, s, path)
		}
		return nil
	})
	require.NoError(t, err)
}
