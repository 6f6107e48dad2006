package workflow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"golang.org/x/sync/singleflight"
)

// Fetcher downloads a pinned zip URL (§13.2) and returns the path of the
// verified local copy. registry.Registry implements it.
type Fetcher interface {
	Fetch(ctx context.Context, url string) (path string, err error)
}

// Scopes opens and caches the scopes of one run (one drive), so that every
// agent in a scope shares one open folder or one verified archive. It is
// safe for concurrent use.
type Scopes struct {
	fetcher Fetcher
	group   singleflight.Group

	mu     sync.Mutex
	scopes map[string]*Scope
}

// NewScopes returns an empty cache. f downloads URL scopes; with a nil f
// they fail with an error that says so.
func NewScopes(f Fetcher) *Scopes {
	return &Scopes{fetcher: f, scopes: make(map[string]*Scope)}
}

// UseError reports a cross-workflow specifier whose target exists but
// cannot be used (§14.3): an invalid YAML file, a bad or mismatched zip, a
// missing or ambiguous entry point, a failed download, an unsupported
// backend. Resolve returns one too, with Spec the target and no Path, when
// the agent's own scope cannot be read (a YAML file edited into an invalid
// one, §12). Either fails the agent: no answer can fix it.
type UseError struct {
	// Spec is the specifier as written; Path the scope it resolved to (a
	// path or a URL), "" when it did not get that far.
	Spec, Path string
	Err        error
}

// Error returns "SPEC (PATH): REASON", naming the path once: PATH is left
// out when it is SPEC (an absolute specifier), and a REASON that starts
// with "PATH: " (a zip's hash mismatch) loses that start.
func (e *UseError) Error() string {
	reason := e.Err.Error()
	switch {
	case e.Path == "":
	case e.Path == e.Spec:
		reason = strings.TrimPrefix(reason, e.Path+": ")
	default:
		return fmt.Sprintf("%s (%s): %s", e.Spec, e.Path, strings.TrimPrefix(reason, e.Path+": "))
	}
	return fmt.Sprintf("%s: %s", e.Spec, reason)
}

// Unwrap returns the reason.
func (e *UseError) Unwrap() error { return e.Err }

// Open returns the scope at path: an absolute folder, a .yaml or .yml file
// or a .zip archive. A non-empty url marks path as the downloaded copy of
// that pinned URL: when path is missing or no longer matches its hash, the
// URL is fetched again.
func (ss *Scopes) Open(path, url string) (*Scope, error) {
	key := "file\x00" + path
	if url != "" {
		key = "url\x00" + url
	}
	return ss.cached(key, func() (*Scope, error) {
		if url == "" {
			return openPath(path)
		}
		s, err := openZip(path, url)
		if _, bad := errors.AsType[*HashMismatchError](err); !bad && !errors.Is(err, fs.ErrNotExist) {
			return s, err
		}
		return ss.fetch(url)
	})
}

// cached returns the scope under key, opening it with open once.
func (ss *Scopes) cached(key string, open func() (*Scope, error)) (*Scope, error) {
	ss.mu.Lock()
	s, ok := ss.scopes[key]
	ss.mu.Unlock()
	if ok {
		return s, nil
	}
	v, err, _ := ss.group.Do(key, func() (any, error) {
		s, err := open()
		if err != nil {
			return nil, err
		}
		ss.mu.Lock()
		defer ss.mu.Unlock()
		if old, ok := ss.scopes[key]; ok {
			s.Close()
			return old, nil
		}
		ss.scopes[key] = s
		return s, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*Scope), nil
}

// fetch downloads the pinned zip url and opens it.
func (ss *Scopes) fetch(url string) (*Scope, error) {
	if ss.fetcher == nil {
		return nil, fmt.Errorf("%s is a workflow on the web, but nothing here downloads workflows; run it with raymond run", url)
	}
	p, err := ss.fetcher.Fetch(context.Background(), url)
	if err != nil {
		return nil, err
	}
	return openZip(p, url)
}

// openURL returns the scope of the pinned zip url, fetched unless it is
// open already.
func (ss *Scopes) openURL(url string) (*Scope, error) {
	return ss.cached("url\x00"+url, func() (*Scope, error) { return ss.fetch(url) })
}

// openPath opens the scope at path by its kind.
func openPath(p string) (*Scope, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, fmt.Errorf("open workflow %s: %w", p, err)
	}
	switch strings.ToLower(filepath.Ext(abs)) {
	case ".zip":
		return openZip(abs, "")
	case ".yaml", ".yml":
		if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
			return openYAML(abs)
		}
	}
	return OpenDir(abs)
}

// Close closes every scope opened through ss.
func (ss *Scopes) Close() error {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var errs []error
	for key, s := range ss.scopes {
		errs = append(errs, s.Close())
		delete(ss.scopes, key)
	}
	return errors.Join(errs...)
}

// scopeExts are the extensions of the files that are scopes.
var scopeExts = []string{".zip", ".yaml", ".yml"}

// isScopeFile reports whether the name ends in a scope file's extension.
func isScopeFile(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	for _, e := range scopeExts {
		if ext == e {
			return true
		}
	}
	return false
}

// splitFile splits the absolute path p after its first element that is a
// .zip, .yaml or .yml file: the file and the rest ("" or a state, with /).
func splitFile(p string) (file, rest string, ok bool) {
	vol := filepath.VolumeName(p)
	elems := strings.Split(filepath.ToSlash(p[len(vol):]), "/")
	prefix := vol
	for i, el := range elems {
		if i == 0 {
			prefix += string(filepath.Separator)
			continue
		}
		prefix = filepath.Join(prefix, el)
		if !isScopeFile(el) {
			continue
		}
		if fi, err := os.Stat(prefix); err == nil && fi.Mode().IsRegular() {
			return prefix, strings.Join(elems[i+1:], "/"), true
		}
	}
	return "", "", false
}

// isURL reports whether arg is written as a URL.
func isURL(arg string) bool { return strings.Contains(arg, "://") }

// Start resolves a workflow argument of raymond run (cli.md): a folder (or
// its states/, §17), a state in it, a .yaml, .yml or .zip file with an
// optional /STATE, or a pinned http(s) zip URL with an optional /STATE. It
// returns the scope and the file name of its first state. Errors are
// worded for a person.
func (ss *Scopes) Start(arg string) (*Scope, string, error) {
	s, name, err := ss.start(arg)
	if err != nil {
		return nil, "", err
	}
	if m := s.Manifest(); m != nil && !SupportedBackend(m.Backend) {
		return nil, "", fmt.Errorf("%s: the manifest asks for backend %q, but raymond runs claude only; run it with the tool it was written for", arg, m.Backend)
	}
	return s, name, nil
}

func (ss *Scopes) start(arg string) (*Scope, string, error) {
	if isURL(arg) {
		return ss.startURL(arg)
	}
	abs, err := filepath.Abs(arg)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", arg, err)
	}
	fi, statErr := os.Stat(abs)
	if statErr == nil && fi.IsDir() {
		s, err := ss.folder(abs)
		if err != nil {
			return nil, "", inArg(arg, abs, err)
		}
		name, err := s.entry(arg, "")
		return s, name, err
	}
	if file, rest, ok := splitFile(abs); ok {
		s, err := ss.Open(file, "")
		if err != nil {
			return nil, "", inArg(arg, file, err)
		}
		name, err := startState(s, arg, rest, strings.HasSuffix(filepath.ToSlash(arg), "/"))
		return s, name, err
	}

	dir, state := filepath.Dir(abs), filepath.Base(abs)
	missing := fmt.Errorf("%s: no such file or folder; give a workflow folder or the state file to start from", arg)
	if dfi, err := os.Stat(dir); err != nil || !dfi.IsDir() || statErr != nil && hasExt(state) {
		return nil, "", missing
	}
	if hasExt(state) && !hasStateExt(state) && !isWindowsScript(state) {
		return nil, "", fmt.Errorf("%s: not a state file; give a .md or .sh file or a workflow folder", arg)
	}
	s, err := ss.Open(dir, "")
	if err != nil {
		return nil, "", inArg(arg, dir, err)
	}
	name, err := s.Resolve(state)
	if te, ok := errors.AsType[*TargetError](err); ok && te.Kind == NotFound && statErr != nil {
		return nil, "", missing
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", arg, err)
	}
	return s, name, nil
}

// inArg words err, from opening the scope at abs for the workflow argument
// arg, for a person. An error that starts with a place in abs (a YAML
// file's "abs:3:3", a manifest's "abs/workflow.yaml:1") names that place
// once, as the user would write it: relative to the working directory when
// arg was. Any other error is prefixed with arg.
func inArg(arg, abs string, err error) error {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, abs)
	if !ok || rest == "" || rest[0] != ':' && rest[0] != filepath.Separator {
		return fmt.Errorf("%s: %w", arg, err)
	}
	shown := abs
	if !filepath.IsAbs(arg) {
		if wd, werr := os.Getwd(); werr == nil {
			if rel, rerr := filepath.Rel(wd, abs); rerr == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				shown = rel
			}
		}
	}
	return &placedError{msg: shown + rest, err: err}
}

// placedError is an error whose text names its place in the user's
// spelling; it unwraps to the error it rewords.
type placedError struct {
	msg string
	err error
}

func (e *placedError) Error() string { return e.msg }
func (e *placedError) Unwrap() error { return e.err }

// hasExt reports whether the file name has an extension.
func hasExt(name string) bool { return filepath.Ext(name) != "" }

// startURL starts from a pinned zip URL with an optional /STATE.
func (ss *Scopes) startURL(arg string) (*Scope, string, error) {
	u, err := url.Parse(arg)
	if err != nil {
		return nil, "", fmt.Errorf("%s: not a valid URL: %w", arg, err)
	}
	if u.Scheme != "https" && u.Scheme != "http" {
		return nil, "", fmt.Errorf("%s: only https URLs (or http to this machine) name workflows", arg)
	}
	zipURL, rest, err := splitZipURL(u)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", arg, err)
	}
	s, err := ss.openURL(zipURL)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", arg, err)
	}
	name, err := startState(s, arg, rest, strings.HasSuffix(u.Path, "/") && rest != "")
	return s, name, err
}

// startState picks the first state of a zip or YAML scope started as arg:
// the named one (rest) or its entry point.
func startState(s *Scope, arg, rest string, trailing bool) (string, error) {
	rest = strings.TrimSuffix(rest, "/")
	switch {
	case rest == "":
		return s.entry(arg, "")
	case trailing:
		return "", fmt.Errorf("%s: a / after a state of a %s; drop it", arg, s.kind)
	case strings.Contains(rest, "/"):
		return "", fmt.Errorf("%s: %q is not a state of the %s: its states are at its root; name one of them", arg, rest, s.kind)
	}
	name, err := s.Resolve(rest)
	if err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	return name, nil
}

// splitZipURL splits u after its path's first element ending in .zip,
// which must be pinned with a lower-case SHA-256 (§13.2).
func splitZipURL(u *url.URL) (zipURL, rest string, err error) {
	elems := strings.Split(u.Path, "/")
	for i, el := range elems {
		if strings.ToLower(path.Ext(el)) != ".zip" {
			continue
		}
		pin, err := Pin(el)
		if err != nil {
			return "", "", err
		}
		if pin == "" || !strings.Contains(el, pin) {
			return "", "", fmt.Errorf("%s is not pinned: a workflow URL's file name holds its SHA-256 as 64 lower-case hex digits", el)
		}
		z := *u
		z.Path, z.RawPath, z.RawQuery, z.Fragment = strings.Join(elems[:i+1], "/"), "", "", ""
		return z.String(), strings.Join(elems[i+1:], "/"), nil
	}
	return "", "", errors.New("not a zip URL: a workflow URL names a .zip file whose name holds its SHA-256")
}

// folder opens the folder scope at abs, or its states/ when the folder has
// no entry point and states/ has one (§17).
func (ss *Scopes) folder(abs string) (*Scope, error) {
	s, err := ss.Open(abs, "")
	if err != nil || s.hasEntry() {
		return s, err
	}
	sub := filepath.Join(abs, statesDir)
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		return s, nil
	}
	st, err := ss.Open(sub, "")
	if err != nil {
		return nil, err
	}
	if st.hasEntry() {
		return st, nil
	}
	return s, nil
}

// hasEntry reports whether the scope has 1_START or START.
func (s *Scope) hasEntry() bool {
	n, err1 := s.startFile(numberedStart)
	p, err2 := s.startFile(plainStart)
	return n != "" || p != "" || err1 != nil || err2 != nil
}

// Workflow resolves the cross-workflow specifier spec (§14.1) written by an
// agent in scope from: the scope it names and the file name of its first
// state. A specifier naming nothing is a *TargetError (the model can be
// reminded); a target that exists but cannot be used is a *UseError.
func (ss *Scopes) Workflow(from *Scope, spec string) (*Scope, string, error) {
	s := strings.ReplaceAll(strings.TrimSpace(spec), `\`, "/")
	switch {
	case s == "":
		return nil, "", &TargetError{Kind: NotFound, Target: spec, Msg: "the workflow specifier is empty; name a workflow folder, file or state"}
	case isURL(s):
		return nil, "", &UseError{Spec: spec, Err: errors.New("an absolute URL in a tag is refused; name the workflow by a relative path")}
	}
	sc, name, err := ss.workflow(from, spec, s)
	if err != nil {
		err = zipFolderHint(from, s, err)
	}
	return sc, name, err
}

// workflow is Workflow for the cleaned, non-empty, relative specifier s.
func (ss *Scopes) workflow(from *Scope, spec, s string) (*Scope, string, error) {
	trailing := strings.HasSuffix(s, "/")
	if from.url != "" {
		return ss.workflowURL(from, spec, s, trailing)
	}
	base := from.dir
	if from.kind != Folder {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	p := filepath.FromSlash(s)
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	p = filepath.Clean(p)

	if file, rest, ok := splitFile(p); ok {
		sc, err := ss.Open(file, "")
		if err != nil {
			return nil, "", &UseError{Spec: spec, Path: file, Err: err}
		}
		return workflowState(sc, spec, file, rest, trailing)
	}
	if fi, err := os.Stat(p); err == nil && fi.IsDir() {
		sc, err := ss.folder(p)
		if err != nil {
			return nil, "", &UseError{Spec: spec, Path: p, Err: err}
		}
		return workflowState(sc, spec, sc.dir, "", false)
	}
	parent, last := filepath.Dir(p), filepath.Base(p)
	if fi, err := os.Stat(parent); trailing || isScopeFile(last) || err != nil || !fi.IsDir() {
		return nil, "", notFound(spec, p)
	}
	sc, err := ss.Open(parent, "")
	if err != nil {
		return nil, "", &UseError{Spec: spec, Path: parent, Err: err}
	}
	return workflowState(sc, spec, parent, last, false)
}

// zipFolderHint adds to err, the failure to resolve the specifier s from a
// zip scope, that the folder s names inside the zip is not a workflow: the
// subfolders of a zip are ignored (§13.1) and a relative specifier goes
// beside the zip, not into it (§14.1).
func zipFolderHint(from *Scope, s string, err error) error {
	first, _, _ := strings.Cut(strings.TrimPrefix(s, "./"), "/")
	if from.kind != Zip || first == "" || first == "." || first == ".." || !fs.ValidPath(first) {
		return err
	}
	isDir := func(fsys fs.FS) bool {
		if fsys == nil {
			return false
		}
		fi, err := fs.Stat(fsys, first)
		return err == nil && fi.IsDir()
	}
	if !isDir(from.fsys) && !isDir(from.zipRoot) {
		return err
	}
	where := from.url
	if where == "" {
		where = from.dir
	}
	hint := fmt.Sprintf("the zip %s holds a folder %s, but the folders inside a zip are not workflows: "+
		"pack %s as a zip of its own (the specifier ../%s.zip names one beside the zip), or run the workflow from a folder",
		where, first, first, first)
	if te, ok := errors.AsType[*TargetError](err); ok {
		return &TargetError{Kind: te.Kind, Target: te.Target, Msg: te.Msg + "; " + hint}
	}
	if ue, ok := errors.AsType[*UseError](err); ok {
		return &UseError{Spec: ue.Spec, Path: ue.Path, Err: fmt.Errorf("%w; %s", ue.Err, hint)}
	}
	return err
}

// notFound is the error for a specifier that names nothing.
func notFound(spec, p string) *TargetError {
	return &TargetError{Kind: NotFound, Target: spec,
		Msg: fmt.Sprintf("workflow %q does not exist: no folder, state, .yaml, .yml or .zip file at %s", spec, p)}
}

// workflowState finds the first state of sc (at p) for the specifier
// spec: the state rest, or the entry point when rest is "".
func workflowState(sc *Scope, spec, p, rest string, trailing bool) (*Scope, string, error) {
	if m := sc.Manifest(); m != nil && !SupportedBackend(m.Backend) {
		return nil, "", &UseError{Spec: spec, Path: p, Err: fmt.Errorf("its manifest asks for backend %q, but raymond runs claude only", m.Backend)}
	}
	if rest == "" {
		name, err := sc.entry(p, spec)
		if te, ok := errors.AsType[*TargetError](err); ok {
			err = te
		} else if err != nil {
			err = errors.New(strings.TrimPrefix(err.Error(), p+": "))
		}
		if err != nil {
			return nil, "", &UseError{Spec: spec, Path: p, Err: err}
		}
		return sc, name, nil
	}
	rest = strings.TrimSuffix(rest, "/")
	if trailing {
		return nil, "", &UseError{Spec: spec, Path: p, Err: fmt.Errorf("a / after a state of a %s; drop it", sc.kind)}
	}
	if strings.Contains(rest, "/") {
		return nil, "", notFound(spec, p+"/"+rest)
	}
	name, err := sc.Resolve(rest)
	if te, ok := errors.AsType[*TargetError](err); ok {
		return nil, "", &TargetError{Kind: te.Kind, Target: spec, Msg: fmt.Sprintf("workflow %q: %s", spec, te.Msg)}
	}
	if err != nil {
		return nil, "", &UseError{Spec: spec, Path: p, Err: err}
	}
	return sc, name, nil
}

// workflowURL resolves a specifier inside the URL scope from against its
// URL, as if the archive were a folder: the result must be a pinned zip on
// the same scheme and host (§14.1).
func (ss *Scopes) workflowURL(from *Scope, spec, s string, trailing bool) (*Scope, string, error) {
	base, err := url.Parse(from.url)
	if err != nil {
		return nil, "", &UseError{Spec: spec, Path: from.url, Err: err}
	}
	base.Path = strings.TrimSuffix(base.Path, path.Ext(base.Path)) + "/"
	u := base.ResolveReference(&url.URL{Path: s})
	if strings.HasPrefix(s, "//") || u.Scheme != base.Scheme || u.Host != base.Host {
		return nil, "", &UseError{Spec: spec, Path: u.String(), Err: errors.New("a workflow on the web may only name workflows on its own host")}
	}
	zipURL, rest, err := splitZipURL(u)
	if err != nil {
		return nil, "", &UseError{Spec: spec, Path: u.String(), Err: fmt.Errorf("inside a workflow on the web a specifier must name a pinned zip: %w", err)}
	}
	sc, err := ss.openURL(zipURL)
	if err != nil {
		return nil, "", &UseError{Spec: spec, Path: zipURL, Err: err}
	}
	return workflowState(sc, spec, zipURL, rest, trailing && rest != "")
}
