// Package workspace keeps a run's work in git (issue 22): the run's draft
// branch and worktree, a worktree per forked worker, a commit per step that
// changed files, workers merged back, and the draft published or discarded.
// Everything goes through the git program; nothing here knows what a run
// or a transition is.
package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// MinGitVersion is the oldest git raymond's worktree mode works with:
// `git worktree add --orphan` is not needed, but `git merge-tree --write-tree`
// (2.38) lets a merge be tried without touching a worktree.
var MinGitVersion = [3]int{2, 38, 0}

// Error is a git command that failed: the arguments, its exit status and
// what it said on stderr.
type Error struct {
	Dir    string
	Args   []string
	Code   int
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" && e.Err != nil {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", strings.Join(e.Args, " "), msg)
}

func (e *Error) Unwrap() error { return e.Err }

// ErrNoGit is returned when the git program cannot be found.
var ErrNoGit = errors.New("the worktree mode needs git, and no git program was found on PATH: install git (2.38 or newer) or use --workspace shared")

// Git runs the git program in Dir with a fixed, quiet environment: no
// pager, no editor, no prompts, no user or system config that could change
// what a command does (hooks and signing stay the repository's).
type Git struct {
	// Dir is where git runs.
	Dir string
	// Path is the git program; "" looks it up on PATH.
	Path string
	// Env is added to the environment of every command (GIT_INDEX_FILE
	// for a scratch index).
	Env []string
}

// env is the environment every git command runs with.
func env() []string {
	e := os.Environ()
	return append(e,
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"GIT_EDITOR=true",
		"GIT_MERGE_AUTOEDIT=no",
		"LC_ALL=C",
		"GIT_AUTHOR_NAME=raymond",
		"GIT_AUTHOR_EMAIL=raymond@localhost",
		"GIT_COMMITTER_NAME=raymond",
		"GIT_COMMITTER_EMAIL=raymond@localhost",
	)
}

// Run runs git with args and returns its stdout, trimmed of the last
// newline. A non-zero exit is an *Error carrying stderr.
func (g Git) Run(ctx context.Context, args ...string) (string, error) {
	out, err := g.RunInput(ctx, nil, args...)
	return strings.TrimSuffix(out, "\n"), err
}

// RunInput runs git with args and stdin, and returns its stdout as is.
func (g Git) RunInput(ctx context.Context, stdin []byte, args ...string) (string, error) {
	path := g.Path
	if path == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return "", ErrNoGit
		}
		path = p
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = g.Dir
	cmd.Env = append(env(), g.Env...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		e := &Error{Dir: g.Dir, Args: args, Code: -1, Stderr: stderr.String(), Err: err}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			e.Code = exit.ExitCode()
		}
		return stdout.String(), e
	}
	return stdout.String(), nil
}

var versionRE = regexp.MustCompile(`git version (\d+)\.(\d+)(?:\.(\d+))?`)

// Version returns the git program's version, and an error naming what to
// do when it is older than MinGitVersion or missing.
func (g Git) Version(ctx context.Context) (string, error) {
	out, err := g.Run(ctx, "version")
	if err != nil {
		return "", err
	}
	m := versionRE.FindStringSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("cannot read the git version from %q", out)
	}
	var v [3]int
	for i := range 3 {
		v[i], _ = strconv.Atoi(m[i+1])
	}
	version := fmt.Sprintf("%d.%d.%d", v[0], v[1], v[2])
	for i := range 3 {
		if v[i] != MinGitVersion[i] {
			if v[i] < MinGitVersion[i] {
				return version, fmt.Errorf("the worktree mode needs git %d.%d or newer, and %s is %s: upgrade git or use --workspace shared",
					MinGitVersion[0], MinGitVersion[1], path(g), version)
			}
			break
		}
	}
	return version, nil
}

func path(g Git) string {
	if g.Path != "" {
		return g.Path
	}
	return "git"
}
