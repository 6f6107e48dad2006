package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"raymond/step"
)

// The suffixes of a step's files.
const (
	promptSuffix = ".prompt.md"
	linesSuffix  = ".jsonl"
	metaSuffix   = ".meta.json"
)

// maxKeptBuffer is the largest line buffer a StepLog keeps between lines; a
// bigger one, grown for a huge line, is let go rather than held for the rest
// of the step.
const maxKeptBuffer = 1 << 20

// Meta is a step's <name>.meta.json. The JSON names are a stable schema read
// by raymond transcript.
type Meta struct {
	Agent    string   `json:"agent"`
	State    string   `json:"state"`
	Seq      int      `json:"seq"`
	Attempt  int      `json:"attempt"`
	Reminder bool     `json:"reminder,omitempty"`
	Argv     []string `json:"argv,omitempty"`
	Cwd      string   `json:"cwd"`
	// SessionMode is new, resume or branch.
	SessionMode string `json:"session_mode"`
	// ResumedSession is the session resumed or branched from.
	ResumedSession string `json:"resumed_session,omitempty"`
	// SessionID is the session the step produced.
	SessionID  string    `json:"session_id,omitempty"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended"`
	DurationMS int64     `json:"duration_ms"`
	ExitCode   int       `json:"exit_code"`
	Signal     string    `json:"signal,omitempty"`
	// Outcome is how the step ended, in its runner's words (step.Result.Class).
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// CostUSD is the cost of this step.
	CostUSD float64 `json:"cost_usd"`
	// TotalCostUSD is the run's cost after this step.
	TotalCostUSD  float64    `json:"total_cost_usd"`
	Usage         step.Usage `json:"usage"`
	NumTurns      int        `json:"num_turns,omitempty"`
	Model         string     `json:"model,omitempty"`
	ClaudeVersion string     `json:"claude_version,omitempty"`
	StderrTail    string     `json:"stderr_tail,omitempty"`
	// Runner is "claude" or "scripted".
	Runner string `json:"runner,omitempty"`
}

// StepLog writes the files of one step. It belongs to the goroutine that runs
// the step. A nil *StepLog is valid and writes nothing.
type StepLog struct {
	w      *Writer
	name   string
	lines  *os.File // the .jsonl, nil until it could be created
	buf    []byte   // a line and its newline, for one write
	closed bool
}

// Step starts the files of the step whose transcript base name is name,
// <agent>_<stem>_<NNN>, and creates its empty .jsonl. Files of the same name
// that already exist are rewritten. A name that is not a plain file name is a
// write error and gets a nil StepLog.
func (w *Writer) Step(name string) *StepLog {
	if w == nil {
		return nil
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		w.fail(fmt.Errorf("transcript step name %q is not a file name", name))
		return nil
	}
	s := &StepLog{w: w, name: name}
	s.open()
	return s
}

// open creates the .jsonl unless that is done, and reports whether it is.
func (s *StepLog) open() bool {
	if s.lines != nil {
		return true
	}
	// The folder is there but for the first step or after someone removed
	// it: create it only then, not with a system call at every step.
	f, err := os.OpenFile(s.path(linesSuffix), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(s.w.dir, dirMode); err != nil {
			s.w.fail(fmt.Errorf("create transcript folder: %w", err))
			return false
		}
		f, err = os.OpenFile(s.path(linesSuffix), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	}
	if err != nil {
		s.w.fail(fmt.Errorf("open transcript: %w", err))
		return false
	}
	s.lines = f
	return true
}

func (s *StepLog) path(suffix string) string {
	return filepath.Join(s.w.dir, s.name+suffix)
}

// StepOutput returns the output lines a step wrote, as its .jsonl holds
// them: what a step interrupted by the driver's death had reported. It
// returns nil when the writer is nil or the step has no file.
func (w *Writer) StepOutput(name string) []byte {
	if w == nil || name == "" || strings.ContainsAny(name, `/\`) {
		return nil
	}
	s := &StepLog{w: w, name: name}
	data, err := os.ReadFile(s.path(linesSuffix))
	if err != nil {
		return nil
	}
	return data
}

// Prompt writes <name>.prompt.md: text, the exact prompt sent.
func (s *StepLog) Prompt(text string) {
	if s == nil {
		return
	}
	if err := writeFile(s.path(promptSuffix), []byte(text)); err != nil {
		s.w.fail(err)
	}
}

// Line appends raw and a newline to <name>.jsonl in one write. raw is not
// retained. Lines after Close are dropped.
func (s *StepLog) Line(raw []byte) {
	if s == nil || s.closed || !s.open() {
		return
	}
	s.buf = append(append(s.buf[:0], raw...), '\n')
	if _, err := s.lines.Write(s.buf); err != nil {
		s.w.fail(fmt.Errorf("write transcript: %w", err))
	}
	if cap(s.buf) > maxKeptBuffer {
		s.buf = nil
	}
}

// Close closes <name>.jsonl and writes m to <name>.meta.json as indented
// JSON. Calling it again rewrites the meta file.
func (s *StepLog) Close(m Meta) {
	if s == nil {
		return
	}
	s.closed = true
	s.buf = nil
	if s.lines != nil {
		if err := s.lines.Close(); err != nil {
			s.w.fail(fmt.Errorf("close transcript: %w", err))
		}
		s.lines = nil
	}
	rec, err := marshalLine(m, true)
	if err != nil {
		s.w.fail(fmt.Errorf("encode meta of %s: %w", s.name, err))
		return
	}
	if err := writeFile(s.path(metaSuffix), rec); err != nil {
		s.w.fail(err)
	}
}

// writeFile writes data to the file at path, creating the folder when it
// went missing. It writes in place, without a temporary file and a rename:
// those cost more than the rest of a step's transcript together, and a file
// cut short by a crash is what a reader of transcripts must expect anyway.
func writeFile(path string, data []byte) error {
	err := os.WriteFile(path, data, fileMode)
	if errors.Is(err, fs.ErrNotExist) {
		if merr := os.MkdirAll(filepath.Dir(path), dirMode); merr != nil {
			return fmt.Errorf("create transcript folder: %w", merr)
		}
		err = os.WriteFile(path, data, fileMode)
	}
	if err != nil {
		return fmt.Errorf("write transcript %s: %w", path, err)
	}
	return nil
}
