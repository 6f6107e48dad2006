package workflow

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Scope is the set of states a workflow has: the files of one folder, read
// through an fs.FS. A folder scope (OpenDir) reads through an os.Root, so no
// name, symlink or ".." can reach a file outside the folder; a zip archive or
// a workflow written as one YAML file give other file systems (NewScope).
//
// A Scope opened by OpenDir holds a file descriptor: whoever opened it closes
// it, once, when the run or the command is over. One Scope serves a whole
// run and is safe for concurrent use.
type Scope struct {
	fsys fs.FS
	dir  string
	// root is the folder a scope opened by OpenDir reads through; nil for
	// other file systems.
	root *os.Root

	kind     Kind
	url      string
	name     string
	manifest *Manifest
	// yaml reads a YAML workflow's file again when it changed; nil for
	// other kinds.
	yaml *yamlSource
	// zipRoot is a zip scope's root folder in the archive, which fsys is
	// not when the states are in its states/ (§17); nil for other kinds.
	zipRoot fs.FS
	// zipTop is the archive's one top-level folder that zipRoot is when
	// the archive has nothing at its root, else "".
	zipTop string
}

// Kind is what a scope is made of.
type Kind int

const (
	// Folder: a folder of state files.
	Folder Kind = iota
	// YAML: one YAML file holding every state (§12).
	YAML
	// Zip: a zip archive, read-only (§13.1); a URL scope is a Zip whose URL
	// is set (§13.2).
	Zip
)

// String returns the kind in words: "folder", "YAML workflow" or "zip
// archive".
func (k Kind) String() string {
	switch k {
	case Folder:
		return "folder"
	case YAML:
		return "YAML workflow"
	case Zip:
		return "zip archive"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Kind says whether the scope is a folder, a YAML workflow or a zip.
func (s *Scope) Kind() Kind { return s.kind }

// URL is the pinned URL a zip scope was downloaded from, or "".
func (s *Scope) URL() string { return s.url }

// Name is the scope's short name for agent ids and messages (§14): a
// folder's base name, or a file's name without its extension and without
// its 64-hex-digit hash (and a - or _ that joined it).
func (s *Scope) Name() string {
	if s.name != "" {
		return s.name
	}
	return filepath.Base(s.dir)
}

// Label names the workflow in messages for people: the URL of a pinned
// zip, else the folder's or the file's name ("review", "review.yaml"), and
// for a folder of states kept in states/ (§17) the folder above it
// ("review/states"). machine.WorkflowLabel names it the same way from a
// run's record.
func (s *Scope) Label() string {
	if s.url != "" {
		return s.url
	}
	base := filepath.Base(s.dir)
	if base == statesDir {
		return filepath.Base(filepath.Dir(s.dir)) + "/" + base
	}
	return base
}

// Manifest is the scope's manifest (§17), or nil when it has none.
func (s *Scope) Manifest() *Manifest { return s.manifest }

// OpenDir opens the workflow folder dir as a scope. The caller closes it.
func OpenDir(dir string) (*Scope, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("open workflow %s: %w", dir, err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("open workflow: %w", err)
	}
	sc := &Scope{fsys: root.FS(), dir: abs, root: root, kind: Folder}
	if sc.manifest, err = folderManifest(sc); err != nil {
		root.Close()
		return nil, err
	}
	return sc, nil
}

// NewScope makes a scope of the states in fsys, a file system of its own
// such as a zip archive's; dir names it in messages and in the run's
// scope_dir. Closing it does nothing.
func NewScope(fsys fs.FS, dir string) *Scope {
	return &Scope{fsys: fsys, dir: dir}
}

// Dir is the scope's path for people and for the run's record: the absolute,
// clean path of a folder scope, of a YAML file or of a zip archive.
func (s *Scope) Dir() string { return s.dir }

// FS returns the file system the scope's states are read from; nil for a
// YAML workflow, whose states are not files.
func (s *Scope) FS() fs.FS { return s.fsys }

// Close releases the folder a scope opened by OpenDir holds.
func (s *Scope) Close() error {
	if s.root == nil {
		return nil
	}
	return s.root.Close()
}

// stat returns the file information of name, symlinks followed.
func (s *Scope) stat(target, name string) (fs.FileInfo, error) {
	if s.yaml != nil {
		return s.yaml.stat(name)
	}
	if s.root == nil {
		return fs.Stat(s.fsys, name)
	}
	fi, err := s.root.Stat(name)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return fi, err
	}
	rel, rerr := s.inside(target, name)
	if rerr != nil {
		return nil, rerr
	}
	return s.root.Stat(rel)
}

// open opens name for reading. In a folder it opens without blocking, so a
// FIFO put where a state was cannot hang the read.
func (s *Scope) open(target, name string) (fs.File, error) {
	if s.root == nil {
		return s.fsys.Open(name)
	}
	const flag = os.O_RDONLY | syscall.O_NONBLOCK
	f, err := s.root.OpenFile(name, flag, 0)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	rel, rerr := s.inside(target, name)
	if rerr != nil {
		return nil, rerr
	}
	return s.root.OpenFile(rel, flag, 0)
}

// inside is the way around the one kind of link os.Root refuses although it
// stays in the folder: an absolute symlink. When the root refuses name, its
// real path decides: outside the folder it is an OutsideScope error, inside
// it name is returned as a path relative to the folder, free of links, for
// the root to open.
func (s *Scope) inside(target, name string) (string, error) {
	realDir, err := filepath.EvalSymlinks(s.dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(filepath.Join(s.dir, name))
	if err != nil {
		return "", err
	}
	if !within(realDir, real) {
		return "", outside(target)
	}
	return filepath.Rel(realDir, real)
}

// read reads the state file name, which Resolve found in the scope. It
// checks the file it opened, not just the name: the file may have changed
// since Resolve (another agent's work, an editor), and the content read must
// still come from a regular file inside the scope.
func (s *Scope) read(name string) ([]byte, error) {
	f, err := s.open(name, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	opened, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := regular(name, name, opened); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}
