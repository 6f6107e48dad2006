package server

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed web
var pageFiles embed.FS

// pageCSP is the page's Content-Security-Policy: its own scripts, styles and
// API only, the transcript report in a frame of the same origin, and no
// framing of the page itself.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Page serves the web page's files (embedded with embed.FS) at "/", with a strict CSP:
// default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self';
// img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none';
// frame-ancestors 'none' — plus X-Content-Type-Options nosniff, Referrer-Policy no-referrer.
// Only GET and HEAD are served; any other method is refused with 405.
func Page() http.Handler {
	files, err := fs.Sub(pageFiles, "web")
	if err != nil {
		panic("server: the embedded page is missing: " + err.Error())
	}
	serve := http.FileServerFS(files)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", pageCSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// The files change with the binary, which stamps no modification
		// time on them: revalidate rather than cache a stale page.
		h.Set("Cache-Control", "no-cache")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed: the page is read with GET", http.StatusMethodNotAllowed)
			return
		}
		serve.ServeHTTP(w, r)
	})
}
