package workflow

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	neturl "net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits on what a zip scope may hold, so that a crafted archive (a zip
// bomb) cannot exhaust memory.
const (
	// MaxZipBytes caps both the archive's size and the sum of its files'
	// uncompressed sizes.
	MaxZipBytes = 256 << 20
	// MaxZipEntries caps the number of entries.
	MaxZipEntries = 10000
)

// zipLimit is MaxZipBytes, lowered by tests.
var zipLimit int64 = MaxZipBytes

// Hash lengths: a SHA-256 written in hex.
const hashHexLen = 2 * sha256.Size

// HashMismatchError reports an archive whose bytes do not have the SHA-256
// its name pins.
type HashMismatchError struct {
	Path      string
	Want, Got string
}

// Error names both hashes.
func (e *HashMismatchError) Error() string {
	return fmt.Sprintf("%s: SHA-256 mismatch: the name pins %s but the file has %s; the archive changed or is not the one meant, so nothing in it runs", e.Path, e.Want, e.Got)
}

// Pin returns the SHA-256 that the file name name pins (§13.1), in lower
// case: its one run of exactly 64 hex digits, or "" when it has none. Two
// such runs, or a longer run of hex digits, are an error.
func Pin(name string) (string, error) {
	var pin string
	for run := range hexRuns(name) {
		switch {
		case len(run) > hashHexLen:
			return "", fmt.Errorf("%s: a run of %d hex digits in the name; a pinned name holds exactly one run of 64 (the SHA-256)", name, len(run))
		case len(run) < hashHexLen:
			continue
		case pin != "":
			return "", fmt.Errorf("%s: two runs of 64 hex digits in the name; a pinned name holds exactly one (the SHA-256)", name)
		}
		pin = strings.ToLower(run)
	}
	return pin, nil
}

// hexRuns yields the maximal runs of hex digits in s.
func hexRuns(s string) func(func(string) bool) {
	return func(yield func(string) bool) {
		start := -1
		for i := 0; i <= len(s); i++ {
			if i < len(s) && isHex(s[i]) {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && !yield(s[start:i]) {
				return
			}
			start = -1
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// scopeName is the short name of the scope at path (§14): the base name
// without extension and without a 64-hex-digit run and the - or _ joining
// it.
func scopeName(p string) string {
	base := filepath.Base(p)
	for _, ext := range []string{".zip", ".yaml", ".yml"} {
		if strings.HasSuffix(strings.ToLower(base), ext) {
			base = base[:len(base)-len(ext)]
			break
		}
	}
	for run := range hexRuns(base) {
		if len(run) != hashHexLen {
			continue
		}
		i := strings.Index(base, run)
		before, after := base[:i], base[i+len(run):]
		switch {
		case strings.HasSuffix(before, "-") || strings.HasSuffix(before, "_"):
			before = before[:len(before)-1]
		case strings.HasPrefix(after, "-") || strings.HasPrefix(after, "_"):
			after = after[1:]
		}
		base = before + after
		break
	}
	return base
}

// openZip opens the zip archive at path (absolute) as a scope: it reads the
// whole file once, checks the hash its name pins, and serves the states from
// those bytes only. url is the pinned URL it came from, or "".
func openZip(p, url string) (*Scope, error) {
	pin, err := Pin(filepath.Base(p))
	if err != nil {
		return nil, err
	}
	data, err := readCapped(p)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); pin != "" && got != pin {
		return nil, &HashMismatchError{Path: p, Want: pin, Got: got}
	}
	fsys, top, err := zipFS(p, data)
	if err != nil {
		return nil, err
	}
	s := &Scope{fsys: fsys, dir: p, kind: Zip, url: url, name: scopeName(p), zipRoot: fsys, zipTop: top}
	if u, err := neturl.Parse(url); url != "" && err == nil {
		s.name = scopeName(path.Base(u.Path))
	}
	if s.name == "" {
		s.name = top
	}
	if s.name == "" {
		s.name = "workflow"
	}
	if m, err := fs.ReadFile(fsys, ManifestFile); err == nil {
		if s.manifest, err = parseManifest(p+"/"+ManifestFile, m); err != nil {
			return nil, err
		}
	}
	// The states/ layout (§17) zipped: with no entry point at the scope
	// root, a states/ holding one is where the states are, as for the
	// folder it was made from; the manifest stays the root's.
	if !s.hasEntry() {
		if sub, err := fs.Sub(fsys, statesDir); err == nil {
			st := *s
			st.fsys = sub
			if st.hasEntry() {
				return &st, nil
			}
		}
	}
	return s, nil
}

// readCapped reads the file at p whole, refusing one over MaxZipBytes.
func readCapped(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open zip archive: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open zip archive: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file, so not a zip archive", p)
	}
	data, err := io.ReadAll(io.LimitReader(f, zipLimit+1))
	if err != nil {
		return nil, fmt.Errorf("read zip archive: %w", err)
	}
	if int64(len(data)) > zipLimit {
		return nil, fmt.Errorf("%s is larger than the limit of %d MiB for a zip workflow", p, zipLimit>>20)
	}
	return data, nil
}

// zipFS checks the archive in data against the layout rules (§13.1) and
// returns the file system of its scope root, and the name of the top-level
// folder that root is ("" when it is the archive's root).
func zipFS(p string, data []byte) (fs.FS, string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, "", fmt.Errorf("%s is not a valid zip archive: %w", p, err)
	}
	if len(zr.File) > MaxZipEntries {
		return nil, "", fmt.Errorf("%s has %d entries, more than the limit of %d", p, len(zr.File), MaxZipEntries)
	}
	var total uint64
	files, rootFiles := 0, 0
	tops := make(map[string]bool)
	for _, f := range zr.File {
		name := f.Name
		if err := checkEntryName(name); err != nil {
			return nil, "", fmt.Errorf("%s: entry %q: %v", p, name, err)
		}
		if ignoredEntry(name) {
			continue
		}
		total += f.UncompressedSize64
		if total > uint64(zipLimit) {
			return nil, "", fmt.Errorf("%s: its files hold more than the limit of %d MiB uncompressed", p, zipLimit>>20)
		}
		first, rest, nested := strings.Cut(name, "/")
		if nested {
			tops[first] = true
		}
		if strings.HasSuffix(name, "/") {
			continue
		}
		files++
		if !nested && rest == "" {
			rootFiles++
		}
	}
	switch {
	case files == 0:
		return nil, "", fmt.Errorf("%s holds no files; a zip workflow holds its states at its root or in one top-level folder", p)
	case rootFiles > 0:
		return zr, "", nil
	case len(tops) > 1:
		return nil, "", fmt.Errorf("%s has %d top-level folders and no file at its root; put the states at the root or in one folder", p, len(tops))
	}
	for top := range tops {
		sub, err := fs.Sub(zr, top)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", p, err)
		}
		return sub, top, nil
	}
	return nil, "", errors.New("unreachable")
}

// checkEntryName refuses an entry name that is absolute or climbs out with
// "..".
func checkEntryName(name string) error {
	if path.IsAbs(name) || strings.HasPrefix(name, `\`) || len(name) > 1 && name[1] == ':' {
		return errors.New("the name is absolute; a zip workflow's names are relative")
	}
	for _, el := range strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }) {
		if el == ".." {
			return errors.New("the name contains \"..\"")
		}
	}
	return nil
}

// ignoredEntry reports an entry of a macOS archiver's leavings.
func ignoredEntry(name string) bool {
	return name == "__MACOSX" || strings.HasPrefix(name, "__MACOSX/") || path.Base(name) == ".DS_Store"
}
