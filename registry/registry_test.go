package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// server serves body at every path and counts the requests.
func server(t *testing.T, body []byte) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestFetch(t *testing.T) {
	body := []byte("PK fake archive bytes")
	sum := sumOf(body)
	srv, hits := server(t, body)
	dir := filepath.Join(t.TempDir(), "registry")
	r := New(dir, srv.Client())

	p, err := r.Fetch(context.Background(), srv.URL+"/wf/review-"+sum+".zip")
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(dir, sum+".zip") {
		t.Errorf("path = %s", p)
	}
	if got, _ := os.ReadFile(p); string(got) != string(body) {
		t.Errorf("cached %q", got)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("registry folder: %v %v", fi.Mode(), err)
	}

	// A second fetch reads the cache.
	if _, err := r.Fetch(context.Background(), srv.URL+"/other/"+sum+".zip"); err != nil {
		t.Fatal(err)
	}
	if hits.Load() != 1 {
		t.Errorf("%d downloads, want 1", hits.Load())
	}

	// A cached file that no longer matches is fetched again.
	if err := os.WriteFile(p, []byte("tampered"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Fetch(context.Background(), srv.URL+"/wf/"+sum+".zip"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != string(body) || hits.Load() != 2 {
		t.Errorf("after tampering: %q, %d downloads", got, hits.Load())
	}
}

func TestFetchMismatch(t *testing.T) {
	srv, _ := server(t, []byte("other bytes"))
	dir := t.TempDir()
	want := strings.Repeat("ab", 32)
	_, err := New(dir, srv.Client()).Fetch(context.Background(), srv.URL+"/"+want+".zip")
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), sumOf([]byte("other bytes"))) {
		t.Fatalf("err = %v, want both hashes", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("registry holds %v after a mismatch", entries)
	}
}

func TestCheck(t *testing.T) {
	h := strings.Repeat("0f", 32)
	tests := []struct {
		url, err string
	}{
		{url: "https://example.com/a/" + h + ".zip"},
		{url: "https://example.com/a/wf-" + h + ".zip"},
		{url: "http://127.0.0.1:9/" + h + ".zip"},
		{url: "http://localhost/" + h + ".zip"},
		{url: "http://[::1]/" + h + ".zip"},
		{url: "http://example.com/" + h + ".zip", err: "plain http"},
		{url: "ftp://example.com/" + h + ".zip", err: "only https"},
		{url: "https://example.com/wf.zip", err: "64 lower-case"},
		{url: "https://example.com/" + strings.ToUpper(h) + ".zip", err: "lower-case"},
		{url: "https://example.com/" + h + "-" + h + ".zip", err: "exactly one run"},
		{url: "https://example.com/" + h + "0.zip", err: "exactly one run"},
		{url: "https://example.com/" + h + ".tar", err: ".zip"},
	}
	for _, tt := range tests {
		_, err := Check(tt.url)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Check(%s) = %v, want %q", tt.url, err, tt.err)
		}
	}
}

func TestFetchRedirect(t *testing.T) {
	body := []byte("zip")
	sum := sumOf(body)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/good/" + sum + ".zip":
			http.Redirect(w, r, "/final/"+sum+".zip", http.StatusFound)
		case "/bad/" + sum + ".zip":
			http.Redirect(w, r, "/final/unpinned.zip", http.StatusFound)
		default:
			w.Write(body)
		}
	}))
	defer srv.Close()
	r := New(t.TempDir(), srv.Client())
	if _, err := r.Fetch(context.Background(), srv.URL+"/good/"+sum+".zip"); err != nil {
		t.Errorf("pinned redirect: %v", err)
	}
	r = New(t.TempDir(), srv.Client())
	if _, err := r.Fetch(context.Background(), srv.URL+"/bad/"+sum+".zip"); err == nil || !strings.Contains(err.Error(), "refused redirect") {
		t.Errorf("unpinned redirect: %v", err)
	}
}

func TestFetchStall(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("some"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	dir := t.TempDir()
	r := New(dir, srv.Client())
	r.Stall = 50 * time.Millisecond
	_, err := r.Fetch(context.Background(), srv.URL+"/"+strings.Repeat("ab", 32)+".zip")
	if err == nil || !strings.Contains(err.Error(), "stalled") {
		t.Fatalf("err = %v, want a stall", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("registry holds %v after a stall", entries)
	}
}

func TestFetchTooLarge(t *testing.T) {
	srv, _ := server(t, make([]byte, 4096))
	r := New(t.TempDir(), srv.Client())
	r.MaxBytes = 1024
	_, err := r.Fetch(context.Background(), srv.URL+"/"+strings.Repeat("ab", 32)+".zip")
	if err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Fatalf("err = %v", err)
	}
}

func TestFetchConcurrentDownloadsOnce(t *testing.T) {
	body := []byte("archive")
	sum := sumOf(body)
	gate, started := make(chan struct{}), make(chan struct{}, 8)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		started <- struct{}{}
		<-gate
		w.Write(body)
	}))
	defer srv.Close()
	r := New(t.TempDir(), srv.Client())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if _, err := r.Fetch(context.Background(), srv.URL+"/"+sum+".zip"); err != nil {
				t.Error(err)
			}
		})
	}
	// Wait for the one request, then let it finish.
	<-started
	close(gate)
	wg.Wait()
	if hits.Load() != 1 {
		t.Errorf("%d downloads, want 1", hits.Load())
	}
}
