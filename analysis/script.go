package analysis

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The suffixes of a script step's output files (protocol §10).
const (
	stdoutSuffix = ".stdout.txt"
	stderrSuffix = ".stderr.txt"
)

// ScriptRunner is Step.Runner for the step of a script state.
const ScriptRunner = "script"

// maxScriptTail is how much of the end of a script's stdout and stderr a
// Detail keeps.
const maxScriptTail = 16 << 10

// ScriptRun is how a script step ran, from its meta file.
type ScriptRun struct {
	// Argv is what ran (bash PATH); Cwd where.
	Argv []string `json:"argv,omitempty"`
	Cwd  string   `json:"cwd,omitempty"`
	// Env are the variables raymond added to the script's environment.
	Env map[string]string `json:"env,omitempty"`
	// Timeout is the inactivity timeout as the meta file gives it, and
	// TimeoutFrom where it came from (the state, --timeout, the default).
	Timeout     string `json:"timeout,omitempty"`
	TimeoutFrom string `json:"timeout_from,omitempty"`
	// HasStdout and HasStderr say which output files the step has.
	HasStdout bool `json:"has_stdout"`
	HasStderr bool `json:"has_stderr"`
	// Replayed is set when a reply of a replies file answered the step
	// instead of the script (raymond test, run --replies): it then has a
	// stream like a prompt's step and no output files.
	Replayed bool `json:"replayed,omitempty"`
}

// ranScript reports whether s is a script step whose script ran: its
// output files are what it shows, not a stream.
func (s *Step) ranScript() bool { return s.Script != nil && !s.Script.Replayed }

// IsScript reports whether s is the step of a script state: its meta
// file says so, or its state is a .sh file (answered by the script, or by
// a reply).
func (s *Step) IsScript() bool {
	return s.Runner == ScriptRunner || strings.HasSuffix(s.State, ".sh")
}

// timeoutText is a script's timeout as its meta file gives it ("10m"),
// "none" for 0s.
func timeoutText(s string) string {
	if d, err := time.ParseDuration(s); err == nil && d == 0 {
		return "none"
	}
	return s
}

// fillScript completes a script step from its files.
func fillScript(s *Step, sf *stepFiles) {
	if !s.IsScript() && !sf.stdout && !sf.stderr {
		return
	}
	if s.Runner == "" {
		s.Runner = ScriptRunner
	}
	sr := &ScriptRun{HasStdout: sf.stdout, HasStderr: sf.stderr, Replayed: s.Runner != ScriptRunner}
	if m := sf.m; m != nil {
		sr.Argv, sr.Cwd = m.Argv, m.Cwd
		sr.Env, sr.Timeout, sr.TimeoutFrom = m.Env, timeoutText(m.Timeout), m.TimeoutFrom
	}
	s.Script = sr
}

// loadScriptOutput puts the tails of a script step's stdout and stderr in
// d. A missing file is a note; a file that cannot be read an error.
func loadScriptOutput(dir string, d *Detail) error {
	for _, f := range [...]struct {
		suffix, what string
		into         *string
	}{{stdoutSuffix, "stdout", &d.Stdout}, {stderrSuffix, "stderr", &d.Stderr}} {
		text, cut, err := readTail(filepath.Join(dir, d.Step.Name+f.suffix), maxScriptTail)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			d.Notes = append(d.Notes, fmt.Sprintf("no %s file: what the script wrote on %s is unknown", f.what, f.what))
		case err != nil:
			return fmt.Errorf("read %s of %s: %w", f.what, d.Step.Name, err)
		default:
			*f.into = text
			if cut > 0 {
				d.Notes = append(d.Notes, fmt.Sprintf("%s: only its last %s are shown (%s more before)", f.what, htmlSize(maxScriptTail), htmlSize(int(cut))))
			}
		}
	}
	return nil
}

// readTail reads the last n bytes of the file at path, starting at a line
// when it can; cut is how many bytes came before.
func readTail(path string, n int64) (text string, cut int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, err
	}
	if size := fi.Size(); size > n {
		cut = size - n
		if _, err := f.Seek(cut, io.SeekStart); err != nil {
			return "", 0, err
		}
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return "", 0, err
	}
	if cut > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 && i < len(data)-1 {
			cut += int64(i + 1)
			data = data[i+1:]
		}
	}
	return string(data), cut, nil
}

// envLine writes variables as K=V, sorted by name.
func envLine(env map[string]string) string {
	keys := slices.Sorted(maps.Keys(env))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.Quote(env[k])
	}
	return strings.Join(parts, " ")
}
