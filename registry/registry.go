// Package registry downloads workflows published as pinned zip URLs
// (protocol.md §13.2) into a local cache, .raymond/registry/, checking each
// against the SHA-256 its name holds. It implements workflow.Fetcher.
package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sync/singleflight"
)

// Defaults of a Registry's limits.
const (
	// DefaultStall is how long a download may go without a byte.
	DefaultStall = 60 * time.Second
	// DefaultMaxBytes caps a download's size.
	DefaultMaxBytes = 256 << 20
)

// Registry is a cache of downloaded workflow archives, one file
// <sha256>.zip each. It is safe for concurrent use; concurrent fetches of
// one URL download once.
type Registry struct {
	dir    string
	client *http.Client
	group  singleflight.Group

	// Stall is how long a download may receive nothing before it fails.
	Stall time.Duration
	// MaxBytes caps a download's size.
	MaxBytes int64
}

// New returns a registry keeping its files in dir (created 0700 when
// needed) and downloading with client (nil: a client of its own).
func New(dir string, client *http.Client) *Registry {
	if client == nil {
		client = &http.Client{}
	}
	return &Registry{dir: dir, client: client, Stall: DefaultStall, MaxBytes: DefaultMaxBytes}
}

// Fetch returns the path of the verified archive that rawURL names,
// downloading it unless the cache holds a copy that still matches.
func (r *Registry) Fetch(ctx context.Context, rawURL string) (string, error) {
	sum, err := Check(rawURL)
	if err != nil {
		return "", err
	}
	v, err, _ := r.group.Do(sum, func() (any, error) {
		dst := filepath.Join(r.dir, sum+".zip")
		if ok, err := matches(dst, sum); err != nil || ok {
			return dst, err
		}
		return dst, r.download(ctx, rawURL, sum, dst)
	})
	if err != nil {
		return "", fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	return v.(string), nil
}

// Check returns the SHA-256 the workflow URL pins, or an error saying why
// raymond will not fetch it: the scheme must be https, or http to a
// loopback host, and the file name must hold exactly one run of 64
// lower-case hex digits and end in .zip.
func Check(rawURL string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", fmt.Errorf("%s: not a valid URL: %w", rawURL, err)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && loopback(u.Hostname()):
	case u.Scheme == "http":
		return "", fmt.Errorf("%s: plain http is allowed only to this machine; use https", rawURL)
	default:
		return "", fmt.Errorf("%s: only https URLs name workflows", rawURL)
	}
	name := path.Base(u.Path)
	if !strings.HasSuffix(name, ".zip") {
		return "", fmt.Errorf("%s: a workflow URL names a .zip file", rawURL)
	}
	var pin string
	run := 0
	for i := 0; i <= len(name); i++ {
		if i < len(name) && isHex(name[i]) {
			run++
			continue
		}
		switch {
		case run == 64 && pin == "":
			pin = name[i-64 : i]
		case run == 64, run > 64:
			return "", fmt.Errorf("%s: the file name must hold exactly one run of 64 hex digits (the SHA-256)", rawURL)
		}
		run = 0
	}
	if pin == "" || strings.ToLower(pin) != pin {
		return "", fmt.Errorf("%s: the file name must hold the archive's SHA-256 as 64 lower-case hex digits", rawURL)
	}
	return pin, nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// loopback reports whether host is localhost or a loopback address.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// matches reports whether the file at p exists and has the SHA-256 sum. A
// file that does not match is removed.
func matches(p, sum string) (bool, error) {
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	h := sha256.New()
	_, err = io.Copy(h, f)
	f.Close()
	if err != nil {
		return false, err
	}
	if hex.EncodeToString(h.Sum(nil)) == sum {
		return true, nil
	}
	return false, os.Remove(p)
}

// download streams rawURL into a temporary file in the registry while
// hashing it, and renames it to dst when it has the SHA-256 sum.
func (r *Registry) download(ctx context.Context, rawURL, sum, dst string) error {
	if err := os.MkdirAll(r.dir, 0o700); err != nil {
		return fmt.Errorf("create the registry folder: %w", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	client := *r.client
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("too many redirects")
		}
		if _, err := Check(req.URL.String()); err != nil {
			return fmt.Errorf("refused redirect: %w", err)
		}
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return err
	}
	stall := time.AfterFunc(r.Stall, func() { cancel(errStall) })
	defer stall.Stop()
	resp, err := client.Do(req)
	if err != nil {
		return r.cause(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the server answered %s", resp.Status)
	}

	tmp, err := os.CreateTemp(r.dir, ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	h := sha256.New()
	w := io.MultiWriter(tmp, h)
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, rerr := resp.Body.Read(buf)
		if k > 0 {
			stall.Reset(r.Stall)
			n += int64(k)
			if n > r.MaxBytes {
				return fmt.Errorf("the download is larger than the limit of %d MiB", r.MaxBytes>>20)
			}
			if _, err := w.Write(buf[:k]); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return r.cause(ctx, rerr)
		}
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != sum {
		return fmt.Errorf("SHA-256 mismatch: the URL pins %s but the download has %s; nothing from it runs", sum, got)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

var errStall = errors.New("stalled")

// cause explains an error of the request: a stall, or err itself.
func (r *Registry) cause(ctx context.Context, err error) error {
	if errors.Is(context.Cause(ctx), errStall) {
		return fmt.Errorf("the download stalled: nothing received for %v", r.Stall)
	}
	return err
}
