package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"raymond/state"
	"raymond/step"
)

// The suffixes of a step's files.
const (
	promptSuffix = ".prompt.md"
	linesSuffix  = ".jsonl"
	metaSuffix   = ".meta.json"
	stdoutSuffix = ".stdout.txt"
	stderrSuffix = ".stderr.txt"
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
	SessionID string `json:"session_id,omitempty"`
	// LastMessage is the id of the session's last message at the step's
	// end (the uuid of claude's last assistant line): raymond rewind
	// branches the session there.
	LastMessage string    `json:"last_message,omitempty"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
	DurationMS  int64     `json:"duration_ms"`
	ExitCode    int       `json:"exit_code"`
	Signal      string    `json:"signal,omitempty"`
	// Outcome is how the step ended, in its runner's words (step.Result.Class).
	Outcome string `json:"outcome"`
	Error   string `json:"error,omitempty"`
	// CostUSD is the cost of this step.
	CostUSD float64 `json:"cost_usd"`
	// TotalCostUSD is the run's cost after this step.
	TotalCostUSD float64    `json:"total_cost_usd"`
	Usage        step.Usage `json:"usage"`
	NumTurns     int        `json:"num_turns,omitempty"`
	Model        string     `json:"model,omitempty"`
	// MCPServers are the names of the MCP servers the step was given
	// (mcp_config), never their settings: env values may be secrets.
	MCPServers    []string `json:"mcp_servers,omitempty"`
	ClaudeVersion string   `json:"claude_version,omitempty"`
	StderrTail    string   `json:"stderr_tail,omitempty"`
	// Runner is "claude", "scripted" or "script".
	Runner string `json:"runner,omitempty"`

	// Of a script step: Env holds the variables raymond added to its
	// environment, Timeout the idle timeout it ran with ("10m"; "0s" for
	// none) and TimeoutFrom where that was set ("--timeout", "the state's
	// timeout").
	Env         map[string]string `json:"env,omitempty"`
	Timeout     string            `json:"timeout,omitempty"`
	TimeoutFrom string            `json:"timeout_from,omitempty"`

	// Checkpoint is the commit made of what the step changed, in a run in
	// the worktree mode; nil when it changed nothing or the run works in
	// the shared mode.
	Checkpoint *state.Checkpoint `json:"checkpoint,omitempty"`
}

// StepLog writes the files of one step. It belongs to the goroutine that runs
// the step. A nil *StepLog is valid and writes nothing.
type StepLog struct {
	w      *Writer
	name   string
	lines  *os.File // the .jsonl, nil until it could be created
	buf    []byte   // a line and its newline, for one write
	closed bool

	// out guards the files of a script step's streams, which the step's
	// two readers write at once.
	out     sync.Mutex
	streams [2]*os.File // .stdout.txt and .stderr.txt, nil until written
	outDone bool        // Close was called
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

// SpooledStep starts the files of a step whose .jsonl the step's own
// process writes (its spool: see step.Request.Spool): the log writes the
// prompt and the meta file, and creates the .jsonl only if lines come
// through Line after all (a runner that starts no process).
func (w *Writer) SpooledStep(name string) *StepLog {
	if w == nil {
		return nil
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		w.fail(fmt.Errorf("transcript step name %q is not a file name", name))
		return nil
	}
	return &StepLog{w: w, name: name}
}

// StepStream is the path of the .jsonl of the step named name: the file
// its process writes its stream to. It is "" for a nil Writer.
func (w *Writer) StepStream(name string) string {
	if w == nil {
		return ""
	}
	return filepath.Join(w.dir, name+linesSuffix)
}

// ScriptStep returns the log of a script step (protocol §10): its
// .stdout.txt and .stderr.txt come with its Output, and it has no .jsonl
// and no prompt. A nil Writer gives a nil log, which writes nothing.
func (w *Writer) ScriptStep(name string) *StepLog {
	if w == nil {
		return nil
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) {
		w.fail(fmt.Errorf("transcript step name %q is not a file name", name))
		return nil
	}
	return &StepLog{w: w, name: name}
}

// open creates the .jsonl unless that is done, and reports whether it is.
func (s *StepLog) open() bool {
	if s.lines != nil {
		return true
	}
	// The folder is there but for the first step or after someone removed
	// it: create it only then, not with a system call at every step.
	f, err := openFile(s.path(linesSuffix))
	if err != nil {
		s.w.fail(err)
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

// Output appends chunk to <name>.stdout.txt, or to <name>.stderr.txt when
// stderr is set: what a script step wrote on that stream, as it arrived.
// A file is created at the first chunk of its stream. chunk is not
// retained. Output may be called for the two streams at once, but not
// after Close.
func (s *StepLog) Output(stderr bool, chunk []byte) {
	if s == nil || len(chunk) == 0 {
		return
	}
	s.out.Lock()
	defer s.out.Unlock()
	if s.outDone {
		return
	}
	i, suffix := 0, stdoutSuffix
	if stderr {
		i, suffix = 1, stderrSuffix
	}
	if s.streams[i] == nil {
		f, err := openFile(s.path(suffix))
		if err != nil {
			s.w.fail(err)
			return
		}
		s.streams[i] = f
	}
	if _, err := s.streams[i].Write(chunk); err != nil {
		s.w.fail(fmt.Errorf("write transcript: %w", err))
	}
}

// closeOutput closes the files of the streams.
func (s *StepLog) closeOutput() {
	s.out.Lock()
	defer s.out.Unlock()
	s.outDone = true
	for i, f := range s.streams {
		if f == nil {
			continue
		}
		if err := f.Close(); err != nil {
			s.w.fail(fmt.Errorf("close transcript: %w", err))
		}
		s.streams[i] = nil
	}
}

// openFile creates the file at path for writing, and the folder when it
// went missing.
func openFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	if errors.Is(err, fs.ErrNotExist) {
		if merr := os.MkdirAll(filepath.Dir(path), dirMode); merr != nil {
			return nil, fmt.Errorf("create transcript folder: %w", merr)
		}
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	}
	if err != nil {
		return nil, fmt.Errorf("open transcript: %w", err)
	}
	return f, nil
}

// Close closes <name>.jsonl and writes m to <name>.meta.json as indented
// JSON. Calling it again rewrites the meta file.
func (s *StepLog) Close(m Meta) {
	if s == nil {
		return
	}
	s.closed = true
	s.buf = nil
	s.closeOutput()
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
