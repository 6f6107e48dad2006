package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"raymond/state"
)

// ErrNotFolder is matched (errors.Is) by the error of opening a project
// whose folder does not exist or is not a folder.
var ErrNotFolder = errors.New("not a folder")

// Project is a project: the folder that holds .raymond/, its config and its
// store of runs.
type Project struct {
	// Dir is the absolute project folder.
	Dir string
	// Config is the content of .raymond/config.toml; empty when there is
	// no such file.
	Config *Settings
	// Store is the folder of the runs' state files. It may not exist yet
	// (see Init).
	Store *state.Store
}

// StateDir returns the folder of the state files of the project in dir.
func StateDir(dir string) string { return filepath.Join(dir, ".raymond", "state") }

// DebugDir returns the folder of the transcripts of the project in dir;
// each run writes into DebugDir/<run-id>.
func DebugDir(dir string) string { return filepath.Join(dir, ".raymond", "debug") }

// RegistryDir returns the folder where the project in dir keeps the
// workflows downloaded from pinned URLs (protocol §13.2).
func RegistryDir(dir string) string { return filepath.Join(dir, ".raymond", "registry") }

// TaskPattern returns the absolute task folder pattern of the project's
// new runs (protocol §16): config task_folder_pattern, relative to
// .raymond/ unless absolute, else tasks/{{run_id}}/{{agent_id}} there.
func (p *Project) TaskPattern() string {
	if c := p.config().TaskFolderPattern; c != nil {
		if filepath.IsAbs(*c) {
			return filepath.Clean(*c)
		}
		return filepath.Join(p.Dir, ".raymond", *c)
	}
	return filepath.Join(p.Dir, ".raymond", "tasks", "{{run_id}}", "{{agent_id}}")
}

// ConfigPath returns the config file of the project in dir.
func ConfigPath(dir string) string { return filepath.Join(dir, ".raymond", "config.toml") }

// OfTranscript returns the project folder of the transcript folder path
// when path lies where a project keeps transcripts (<dir>/.raymond/debug/ID);
// ok is false otherwise.
func OfTranscript(path string) (dir string, ok bool) {
	debug := filepath.Dir(path)
	if filepath.Base(debug) != "debug" || filepath.Base(filepath.Dir(debug)) != ".raymond" {
		return "", false
	}
	return filepath.Dir(filepath.Dir(debug)), true
}

// Open opens the project in the folder dir and reads its config. It creates
// nothing: a project without .raymond/ is a project with no runs. A folder
// that cannot be read as one is ErrNotFolder; a config file that cannot be used is a
// *ConfigError.
func Open(dir string) (*Project, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("project folder: %w", err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("project %s: %w", dir, ErrNotFolder)
	}
	cfg, err := LoadConfig(ConfigPath(abs))
	if err != nil {
		return nil, err
	}
	return &Project{Dir: abs, Config: cfg, Store: &state.Store{Dir: StateDir(abs)}}, nil
}

// Init creates the state folder when it is missing, for a command that is
// about to create a run; a .raymond folder it creates gets its .gitignore.
func (p *Project) Init() error {
	_, err := os.Lstat(filepath.Join(p.Dir, ".raymond"))
	created := errors.Is(err, fs.ErrNotExist)
	store, err := state.Open(StateDir(p.Dir))
	if err != nil {
		return err
	}
	if created {
		if _, err := WriteGitignore(p.Dir); err != nil {
			return err
		}
	}
	p.Store = store
	return nil
}

// Runs returns the runs of the project, none when its state folder does not
// exist. Runs that could be read come with the error about those that
// could not.
func (p *Project) Runs() ([]*state.Run, error) {
	runs, err := p.Store.List()
	if errors.Is(err, fs.ErrNotExist) && runs == nil {
		return nil, nil
	}
	return runs, err
}

// Within reports whether folder dir is the project folder project or lies
// under it, symbolic links resolved in both (a folder that does not resolve
// is taken as written).
func Within(dir, project string) bool {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	if real, err := filepath.EvalSymlinks(project); err == nil {
		project = real
	}
	rel, err := filepath.Rel(project, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
