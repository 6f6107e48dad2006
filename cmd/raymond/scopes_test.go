package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdZipDir builds a zip archive of a folder's files, named relative to the
// folder, for the zip scope scenarios:
//
//	zipdir lib lib.zip
//	zipdir lib 'lib-{sha256}.zip' LIBZIP
//
// A {sha256} in the name becomes the archive's SHA-256, pinning it; a third
// argument names an environment variable that receives the name made. With
// -raw, the arguments after the name are entry names, each holding "x", for
// layouts no folder can give (an entry with ..):
//
//	zipdir -raw bad.zip ../evil.md
func cmdZipDir(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: zipdir SRC DST [VAR] | zipdir -raw DST NAME...")
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	dst, vars := args[1], args[2:]
	if args[0] == "-raw" {
		dst, vars = args[1], nil
		for _, name := range args[2:] {
			w, err := zw.Create(name)
			ts.Check(err)
			_, err = w.Write([]byte("x\n"))
			ts.Check(err)
		}
	} else {
		src := ts.MkAbs(args[0])
		ts.Check(filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(src, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			w, err := zw.Create(filepath.ToSlash(rel))
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}))
	}
	ts.Check(zw.Close())
	sum := sha256.Sum256(buf.Bytes())
	dst = strings.ReplaceAll(dst, "{sha256}", hex.EncodeToString(sum[:]))
	ts.Check(os.WriteFile(ts.MkAbs(dst), buf.Bytes(), 0o644))
	if len(vars) == 1 {
		ts.Setenv(vars[0], dst)
	}
}

// cmdHTTPServe serves a folder on a loopback HTTP server for the rest of
// the script and puts its base URL (no trailing slash) in an environment
// variable; every request's path is appended to $WORK/VAR.log:
//
//	httpserve site URL
//	httpserve -stall site URL
//	httpserve -wrong site URL
//	httpserve -away site URL
//
// VAR holds the server's URL and VAR_ADDR its HOST:PORT.
// With -stall, the server sends its headers and a few bytes and then
// nothing until the script ends; with -wrong, it serves each file with one
// byte changed; with -away, it redirects every request to the same path on
// http://example.com, which raymond must refuse without connecting.
func cmdHTTPServe(ts *testscript.TestScript, neg bool, args []string) {
	mode := ""
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		mode, args = args[0], args[1:]
	}
	if neg || len(args) != 2 || (mode != "" && mode != "-stall" && mode != "-wrong" && mode != "-away") {
		ts.Fatalf("usage: httpserve [-stall|-wrong|-away] DIR VAR")
	}
	dir := ts.MkAbs(args[0])
	logPath := ts.MkAbs(args[1] + ".log")
	done := make(chan struct{})
	var logMu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		logMu.Lock()
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.WriteString(r.URL.Path + "\n")
			f.Close()
		}
		logMu.Unlock()
		if mode == "-away" {
			http.Redirect(w, r, "http://example.com"+r.URL.Path, http.StatusFound)
			return
		}
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		switch mode {
		case "-stall":
			w.WriteHeader(http.StatusOK)
			w.Write(data[:min(len(data), 10)])
			w.(http.Flusher).Flush()
			select {
			case <-done:
			case <-r.Context().Done():
			}
			return
		case "-wrong":
			data[len(data)/2] ^= 0xff
		}
		w.Write(data)
	}))
	ts.Defer(func() {
		close(done)
		srv.Close()
	})
	ts.Setenv(args[1], srv.URL)
	ts.Setenv(args[1]+"_ADDR", strings.TrimPrefix(srv.URL, "http://"))
}
