package scripted

import (
	"crypto/rand"
	"encoding/hex"

	"raymond/claude"
)

// The stream-json lines a scripted step writes, shaped like the real CLI's
// (claude-code.md, the captures in fixtures/claude) with the fields raymond
// reads and a few that make a transcript read like a real one. Fields are in
// the order a person expects them, type first.

// initTools is the tool list of the init line.
var initTools = []string{"Task", "Bash", "Glob", "Grep", "Read", "Edit", "Write", "WebFetch", "WebSearch"}

type initLine struct {
	Type           string   `json:"type"`
	Subtype        string   `json:"subtype"`
	Cwd            string   `json:"cwd"`
	SessionID      string   `json:"session_id"`
	Tools          []string `json:"tools"`
	Model          string   `json:"model"`
	PermissionMode string   `json:"permissionMode"`
	Version        string   `json:"claude_code_version"`
	UUID           string   `json:"uuid"`
}

// messageLine is an assistant message (text, tool_use, or a synthetic API
// error) or a user message carrying tool results.
type messageLine struct {
	Type            string  `json:"type"`
	Message         message `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	SessionID       string  `json:"session_id"`
	UUID            string  `json:"uuid"`
	// A synthetic API error message's error kind and HTTP status.
	Error             string `json:"error,omitempty"`
	IsAPIErrorMessage bool   `json:"is_api_error_message,omitempty"`
	APIErrorStatus    int    `json:"api_error_status,omitempty"`
}

type message struct {
	ID         string        `json:"id,omitempty"`
	Type       string        `json:"type,omitempty"`
	Role       string        `json:"role"`
	Model      string        `json:"model,omitempty"`
	Content    []block       `json:"content"`
	StopReason *string       `json:"stop_reason,omitempty"`
	Usage      *claude.Usage `json:"usage,omitempty"`
}

// block is one content block: text, tool_use or tool_result.
type block struct {
	Type      string  `json:"type"`
	Text      string  `json:"text,omitempty"`
	ID        string  `json:"id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Input     any     `json:"input,omitempty"`
	ToolUseID string  `json:"tool_use_id,omitempty"`
	Content   *string `json:"content,omitempty"`
	IsError   *bool   `json:"is_error,omitempty"`
}

type rateLimitLine struct {
	Type          string        `json:"type"`
	RateLimitInfo rateLimitInfo `json:"rate_limit_info"`
	SessionID     string        `json:"session_id"`
	UUID          string        `json:"uuid"`
}

type rateLimitInfo struct {
	Status        string `json:"status"`
	ResetsAt      int64  `json:"resetsAt"`
	RateLimitType string `json:"rateLimitType"`
}

// resultLine is the last line of a step. Result is nil for the error
// subtypes, which have errors instead.
type resultLine struct {
	Type           string                `json:"type"`
	Subtype        string                `json:"subtype"`
	IsError        bool                  `json:"is_error"`
	Result         *string               `json:"result,omitempty"`
	Errors         []string              `json:"errors,omitempty"`
	SessionID      string                `json:"session_id"`
	TotalCostUSD   float64               `json:"total_cost_usd"`
	Usage          claude.Usage          `json:"usage"`
	NumTurns       int                   `json:"num_turns"`
	DurationMS     int64                 `json:"duration_ms"`
	DurationAPIMS  int64                 `json:"duration_api_ms"`
	StopReason     string                `json:"stop_reason"`
	TerminalReason string                `json:"terminal_reason"`
	APIErrorStatus *int                  `json:"api_error_status"`
	ModelUsage     map[string]modelUsage `json:"modelUsage"`
	CallUsage      map[string]modelUsage `json:"model_usage_since_last_result"`
	UUID           string                `json:"uuid"`
}

type modelUsage struct {
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	CostUSD      float64 `json:"costUSD"`
}

// newID returns prefix followed by 24 random hex digits, in the manner of
// the CLI's message and tool_use ids (msg_…, toolu_…).
func newID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	return prefix + hex.EncodeToString(b[:])
}
