package fakeclaude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"raymond/claude/sessionfile"
	"raymond/claude/wire"
)

// The session store is where the real CLI keeps its conversations: under the
// configuration folder ($CLAUDE_CONFIG_DIR, else $HOME/.claude), in projects/, one
// folder per working directory, one <session id>.jsonl file per session holding one
// JSON line per message. A session file appears whole (it is written aside and linked
// into place), later messages are appended under an flock on the file itself, so
// fakes working on different sessions never wait for each other and two fakes
// resuming one session interleave their messages as the real CLI does.

// Session is one conversation in the fake's session store, as a test may inspect it
// with LoadSession or create it with WriteSession.
type Session struct {
	ID  string `json:"id"`
	Cwd string `json:"cwd"`
	// ForkedFrom is the session this one was branched from with --fork-session.
	ForkedFrom string `json:"forked_from,omitempty"`
	// CostUSD is the cumulative cost of the session's lineage: every call made in it
	// and, for a branch, in its parent up to the branch point.
	CostUSD      float64 `json:"cost_usd"`
	InputTokens  int     `json:"input_tokens"`
	OutputTokens int     `json:"output_tokens"`
	// Model is the model of the session's last answer: the one a --resume or a
	// --fork-session of it runs on when no --model is given. "" for none named.
	Model string `json:"model,omitempty"`
	// History is the conversation: the prompts and the final result texts.
	History []Message `json:"history"`
}

// Message is one entry of a session's history.
type Message struct {
	Role string `json:"role"` // "user" or "assistant"
	Text string `json:"text"`
}

// entry is one line of a session file, shaped like the real CLI's (type, sessionId,
// cwd, uuid, parentUuid, timestamp, message) with the call's cost beside it as older
// CLIs wrote it, and forkedFrom on the first line a branch wrote itself. A
// cost-state line (the running cost after an API request) has only its type, its
// sessionId and TotalCostUSD.
type entry struct {
	Type       string       `json:"type"` // "user", "assistant" or "cost-state"
	SessionID  string       `json:"sessionId"`
	Cwd        string       `json:"cwd"`
	UUID       string       `json:"uuid"`
	ParentUUID *string      `json:"parentUuid"`
	Timestamp  string       `json:"timestamp"`
	Version    string       `json:"version,omitempty"`
	ForkedFrom string       `json:"forkedFrom,omitempty"`
	Message    entryMessage `json:"message"`
	CostUSD    float64      `json:"costUSD,omitempty"`
	// TotalCostUSD is a cost-state line's cumulative cost of the session lineage.
	TotalCostUSD float64 `json:"totalCostUSD,omitempty"`
}

// message reports whether e is a message of the conversation, not a cost-state.
func (e *entry) message() bool { return e.Type == "user" || e.Type == "assistant" }

// MarshalJSON writes a cost-state line as the real CLI does, without the fields
// of a message; other lines keep <, > and & as they are, as the CLI does.
func (e entry) MarshalJSON() ([]byte, error) {
	type plain entry
	var v any = plain(e)
	if e.Type == sessionfile.CostStateType {
		v = sessionfile.CostState{Type: e.Type, SessionID: e.SessionID, TotalCostUSD: e.TotalCostUSD}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// entryMessage is the message of a line: a user's content is a string, an
// assistant's a list of text blocks and the model that wrote them.
type entryMessage struct {
	Role    string      `json:"role"`
	Model   string      `json:"model,omitempty"`
	Content any         `json:"content"`
	Usage   *entryUsage `json:"usage,omitempty"`
}

type entryUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// text is the message's text: a string content, or its text blocks joined.
func (m *entryMessage) text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, block := range c {
			if bm, ok := block.(map[string]any); ok && bm["type"] == "text" {
				s, _ := bm["text"].(string)
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// newEntry makes the line of one message in session id, following parent (the uuid
// of the line before it, "" for none).
func newEntry(id, cwd, parent string, m Message, version string) entry {
	e := entry{Type: m.Role, SessionID: id, Cwd: cwd, UUID: wire.NewUUID(),
		Timestamp: wire.Timestamp(time.Now()), Version: version,
		Message: entryMessage{Role: m.Role, Content: m.Text}}
	if parent != "" {
		e.ParentUUID = &parent
	}
	if m.Role == "assistant" {
		e.Message.Content = []any{map[string]any{"type": "text", "text": m.Text}}
	}
	return e
}

// errNoSession reports that a session id is not in the store for this cwd.
var errNoSession = errors.New("no such session")

// errSessionInUse reports that a new session's id is already taken in this cwd.
var errSessionInUse = errors.New("session id in use")

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// configDir is the folder the real CLI would keep its state in for this invocation:
// $CLAUDE_CONFIG_DIR, else $HOME/.claude; a relative one is taken from the cwd.
func (inv *invocation) configDir() (string, error) {
	dir, _ := inv.getenv("CLAUDE_CONFIG_DIR")
	if dir == "" {
		home, _ := inv.getenv("HOME")
		if home == "" {
			return "", errors.New("neither CLAUDE_CONFIG_DIR nor HOME is set: nowhere to keep sessions")
		}
		dir = filepath.Join(home, ".claude")
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(inv.cwd, dir)
	}
	return dir, nil
}

// projectDir is the folder holding a cwd's sessions, named as the real CLI names it.
func projectDir(configDir, cwd string) string {
	return sessionfile.Dir(configDir, cwd)
}

// sessionPath is the file of session id; only call it with a UUID, so that an id
// cannot name a path outside the store.
func sessionPath(configDir, cwd, id string) string {
	return filepath.Join(projectDir(configDir, cwd), id+".jsonl")
}

// locate is the file of session id for a call in cwd: the one in cwd's
// folder of the store, else the one in any other folder of the store. The
// real CLI (2.1.330, seen in realclaude's TestWorktreeSessions) resumes a
// session from any working directory, another worktree of the repository
// or a folder that is in none: --resume appends to the session's file where
// it is, and --fork-session writes the branch into the folder of the cwd.
func locate(configDir, cwd, id string) string {
	p := sessionPath(configDir, cwd, id)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	matches, _ := filepath.Glob(filepath.Join(configDir, "projects", "*", id+".jsonl"))
	if len(matches) > 0 {
		return matches[0]
	}
	return p
}

// LoadSession reads session id as stored by a fake run in cwd whose configuration
// folder ($CLAUDE_CONFIG_DIR, else $HOME/.claude) was configDir.
func LoadSession(configDir, cwd, id string) (*Session, error) {
	entries, err := readSession(configDir, cwd, id)
	if err != nil {
		return nil, err
	}
	return summarize(id, cwd, entries), nil
}

// WriteSession adds s to the store of configDir as a new session in s.Cwd, as an
// earlier run of the real CLI would have left it. The totals (cost and tokens) go on
// its last assistant message, so a session with a cost needs one. An id in use is an
// error.
func WriteSession(configDir string, s *Session) error {
	if !uuidPattern.MatchString(s.ID) {
		return fmt.Errorf("write session %q: the id is not a UUID", s.ID)
	}
	last := -1
	for i, m := range s.History {
		if m.Role == "assistant" {
			last = i
		}
	}
	if last < 0 && (s.CostUSD != 0 || s.InputTokens != 0 || s.OutputTokens != 0) {
		return fmt.Errorf("write session %s: a cost needs an assistant message to carry it", s.ID)
	}
	entries := make([]entry, 0, len(s.History))
	parent := ""
	for i, m := range s.History {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("write session %s: message %d has role %q, want user or assistant", s.ID, i, m.Role)
		}
		e := newEntry(s.ID, s.Cwd, parent, m, defaultVersion)
		if i == 0 {
			e.ForkedFrom = s.ForkedFrom
		}
		if i == last {
			e.Message.Model = s.Model
			e.CostUSD = s.CostUSD
			e.Message.Usage = &entryUsage{InputTokens: s.InputTokens, OutputTokens: s.OutputTokens}
		}
		entries = append(entries, e)
		parent = e.UUID
	}
	err := createSession(configDir, s.Cwd, s.ID, entries)
	if errors.Is(err, errSessionInUse) {
		return fmt.Errorf("write session %s: the id is already in use in %s", s.ID, s.Cwd)
	}
	return err
}

// summarize turns the lines of a session into a Session: the history in order, the
// tokens added up, the last forkedFrom, the last answer's model, and the cost: that
// of its messages added up, or, when that is more, the running cost, the last
// cost-state's total plus the messages' since, as it is after a call stopped before
// its answer (the real CLI carries its running cost on from there).
func summarize(id, cwd string, entries []entry) *Session {
	s := &Session{ID: id, Cwd: cwd, History: []Message{}}
	running := 0.0
	defer func() { s.CostUSD = max(s.CostUSD, running) }()
	for _, e := range entries {
		if e.Type == sessionfile.CostStateType {
			running = e.TotalCostUSD
		}
		if !e.message() {
			continue
		}
		running += e.CostUSD
		if e.ForkedFrom != "" {
			s.ForkedFrom = e.ForkedFrom
		}
		s.History = append(s.History, Message{Role: e.Message.Role, Text: e.Message.text()})
		if e.Message.Role == "assistant" {
			s.Model = e.Message.Model
		}
		s.CostUSD += e.CostUSD
		if u := e.Message.Usage; u != nil {
			s.InputTokens += u.InputTokens
			s.OutputTokens += u.OutputTokens
		}
	}
	return s
}

// totals is the cumulative usage of a session's lines.
func totals(entries []entry) tokens {
	s := summarize("", "", entries)
	return tokens{in: s.InputTokens, out: s.OutputTokens, cost: s.CostUSD}
}

// readSession reads the lines of session id in cwd under a shared flock; an id that
// is not a UUID or has no file is errNoSession.
func readSession(configDir, cwd, id string) ([]entry, error) {
	if !uuidPattern.MatchString(id) {
		return nil, errNoSession
	}
	f, err := os.Open(locate(configDir, cwd, id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	defer f.Close()
	var entries []entry
	err = flock(f, syscall.LOCK_SH, func() error {
		var err error
		entries, err = decodeEntries(f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	return entries, nil
}

// sessionExists reports whether id is in use in cwd.
func sessionExists(configDir, cwd, id string) bool {
	_, err := os.Stat(sessionPath(configDir, cwd, id))
	return err == nil
}

// createSession writes a new session file holding entries. It is written aside and
// linked into place, so that nobody sees it half-written and an id taken meanwhile
// is errSessionInUse rather than overwritten.
func createSession(configDir, cwd, id string, entries []entry) error {
	dir := projectDir(configDir, cwd)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	data, err := encodeEntries(entries)
	if err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(f.Name(), sessionPath(configDir, cwd, id))
	}
	if errors.Is(err, fs.ErrExist) {
		return errSessionInUse
	}
	if err != nil {
		return fmt.Errorf("create session %s: %w", id, err)
	}
	return nil
}

// appendSession adds entries to the end of session id under an exclusive flock and
// returns every line of the session afterwards, other processes' included.
func appendSession(configDir, cwd, id string, entries ...entry) ([]entry, error) {
	data, err := encodeEntries(entries)
	if err != nil {
		return nil, fmt.Errorf("save session %s: %w", id, err)
	}
	f, err := os.OpenFile(locate(configDir, cwd, id), os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoSession
	}
	if err != nil {
		return nil, fmt.Errorf("save session %s: %w", id, err)
	}
	defer f.Close()
	var all []entry
	err = flock(f, syscall.LOCK_EX, func() error {
		if _, err := f.Write(data); err != nil {
			return err
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		all, err = decodeEntries(f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("save session %s: %w", id, err)
	}
	return all, nil
}

// appendCostState adds a cost-state line of total to session id.
func appendCostState(configDir, cwd, id string, total float64) error {
	_, err := appendSession(configDir, cwd, id, entry{Type: sessionfile.CostStateType, SessionID: id, TotalCostUSD: total})
	return err
}

func encodeEntries(entries []entry) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range entries {
		if err := enc.Encode(&entries[i]); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// decodeEntries reads the lines of a session file; blank lines are skipped.
func decodeEntries(r io.Reader) ([]entry, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 256*1024*1024)
	var entries []entry
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var e entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		entries = append(entries, e)
	}
	return entries, sc.Err()
}

// flock runs fn holding an flock (how: syscall.LOCK_EX or LOCK_SH) on f.
func flock(f *os.File, how int, fn func() error) error {
	var err error
	for {
		err = syscall.Flock(int(f.Fd()), how)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	defer syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return fn()
}
