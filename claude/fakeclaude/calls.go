package fakeclaude

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Call is one invocation of the fake, as appended to FAKE_CLAUDE_DIR/calls.jsonl when
// it exits. Every invocation is logged, including refused ones.
type Call struct {
	Argv   []string `json:"argv"`
	Cwd    string   `json:"cwd"`
	Prompt string   `json:"prompt"`
	// Stdin is what was read from standard input.
	Stdin string `json:"stdin"`
	// SessionID is the session the call produced (the resumed one, the new branch or
	// the new session); empty when the call never got that far.
	SessionID string `json:"session_id"`
	// Resumed is the --resume argument.
	Resumed string `json:"resumed"`
	Forked  bool   `json:"forked"`
	Model   string `json:"model"`
	// FallbackModel is --fallback-model; FellBack the models the call
	// went on with because the one before was overloaded.
	FallbackModel string   `json:"fallback_model,omitempty"`
	FellBack      []string `json:"fell_back,omitempty"`
	// MCPServers are the names of the servers --mcp-config gave, StrictMCP
	// whether --strict-mcp-config was passed.
	MCPServers     []string `json:"mcp_servers,omitempty"`
	StrictMCP      bool     `json:"strict_mcp,omitempty"`
	Effort         string   `json:"effort"`
	PermissionMode string   `json:"permission_mode"`
	// SkipPermissions is --dangerously-skip-permissions.
	SkipPermissions bool `json:"skip_permissions,omitempty"`
	// AllowedTools and DisallowedTools are the rules of --allowedTools and
	// --disallowedTools, split at commas and spaces outside parentheses as
	// the real CLI splits them; a prompt swallowed by them shows up here.
	AllowedTools    []string `json:"allowed_tools,omitempty"`
	DisallowedTools []string `json:"disallowed_tools,omitempty"`
	Pid             int      `json:"pid"`
	Exit            int      `json:"exit"`
	Reply           int      `json:"reply"` // index of the reply used, -1 for none
	Cost            float64  `json:"cost"`  // this call's cost, 0 without a result line
	// EnvClaudeCode reports whether CLAUDECODE was in the environment (raymond must
	// remove it).
	EnvClaudeCode bool `json:"env_claudecode"`
	// TraceParent is the TRACEPARENT of the environment, the trace context
	// raymond gave the step; "" when it had none.
	TraceParent string    `json:"traceparent,omitempty"`
	Started     time.Time `json:"started"`
	Ended       time.Time `json:"ended"`
	// Paid is what the call's API requests that ended cost, with a result
	// line or without (stopped by a signal, crashed): the rise of the
	// session's running cost it wrote as it exited.
	Paid float64 `json:"paid,omitempty"`
}

// ReadCalls returns the calls logged in dir (a FAKE_CLAUDE_DIR) in the order they
// ended; none yet is an empty list.
func ReadCalls(dir string) ([]Call, error) {
	calls := []Call{}
	err := withLock(dir, syscall.LOCK_SH, func() error {
		f, err := os.Open(filepath.Join(dir, callsFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
		for n := 1; sc.Scan(); n++ {
			var c Call
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				return fmt.Errorf("line %d: %w", n, err)
			}
			calls = append(calls, c)
		}
		return sc.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("read calls: %w", err)
	}
	return calls, nil
}

// appendCall adds c to the call log of dir.
func appendCall(dir string, c *Call) error {
	data, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("log call: %w", err)
	}
	err = withLock(dir, syscall.LOCK_EX, func() error {
		f, err := os.OpenFile(filepath.Join(dir, callsFile), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(append(data, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("log call: %w", err)
	}
	return nil
}
