package fakeclaude

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// The shapes below follow the captured outputs of Claude Code 2.1.330 in
// testdata/claude at the repository root: the fields a consumer may read are all there, with the
// same names and types; the many informational ones are trimmed.

// defaultTools is the tool list of the init line.
var defaultTools = []string{"Task", "Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read",
	"Skill", "TaskStop", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch", "Write"}

type initLine struct {
	Type              string            `json:"type"`
	Subtype           string            `json:"subtype"`
	Cwd               string            `json:"cwd"`
	SessionID         string            `json:"session_id"`
	Tools             []string          `json:"tools"`
	MCPServers        []any             `json:"mcp_servers"`
	Model             string            `json:"model"`
	PermissionMode    string            `json:"permissionMode"`
	SlashCommands     []string          `json:"slash_commands"`
	APIKeySource      string            `json:"apiKeySource"`
	ClaudeCodeVersion string            `json:"claude_code_version"`
	OutputStyle       string            `json:"output_style"`
	Agents            []string          `json:"agents"`
	Skills            []string          `json:"skills"`
	Plugins           []any             `json:"plugins"`
	UUID              string            `json:"uuid"`
	MemoryPaths       map[string]string `json:"memory_paths"`
	OriginalCwd       string            `json:"original_cwd"`
	AdditionalDirs    []string          `json:"additional_directories"`
	FastModeState     string            `json:"fast_mode_state"`
}

type assistantLine struct {
	Type            string           `json:"type"`
	Message         assistantMessage `json:"message"`
	ParentToolUseID *string          `json:"parent_tool_use_id"`
	SessionID       string           `json:"session_id"`
	UUID            string           `json:"uuid"`
	Timestamp       string           `json:"timestamp"`
	RequestID       string           `json:"request_id,omitempty"`
	// Set on the synthetic message that reports an API failure.
	Error             string `json:"error,omitempty"`
	IsAPIErrorMessage bool   `json:"is_api_error_message,omitempty"`
	APIErrorStatus    int    `json:"api_error_status,omitempty"`
	APIErrorType      string `json:"api_error_type,omitempty"`
}

type assistantMessage struct {
	ID                string           `json:"id"`
	Type              string           `json:"type"`
	Role              string           `json:"role"`
	Model             string           `json:"model"`
	Content           []map[string]any `json:"content"`
	StopReason        *string          `json:"stop_reason"`
	StopSequence      *string          `json:"stop_sequence"`
	Usage             messageUsage     `json:"usage"`
	ContextManagement any              `json:"context_management"`
}

type messageUsage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type userLine struct {
	Type            string      `json:"type"`
	Message         userMessage `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
	UUID            string      `json:"uuid"`
	Timestamp       string      `json:"timestamp"`
	ToolUseResult   any         `json:"tool_use_result,omitempty"`
}

type userMessage struct {
	Role    string           `json:"role"`
	Content []map[string]any `json:"content"`
}

type apiRetryLine struct {
	Type         string `json:"type"`
	Subtype      string `json:"subtype"`
	Attempt      int    `json:"attempt"`
	MaxRetries   int    `json:"max_retries"`
	RetryDelayMS int    `json:"retry_delay_ms"`
	ErrorStatus  int    `json:"error_status"`
	Error        string `json:"error"`
	SessionID    string `json:"session_id"`
	UUID         string `json:"uuid"`
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

type resultLine struct {
	Type          string  `json:"type"`
	Subtype       string  `json:"subtype"`
	IsError       bool    `json:"is_error"`
	DurationMS    int64   `json:"duration_ms"`
	DurationAPIMS int64   `json:"duration_api_ms"`
	NumTurns      int     `json:"num_turns"`
	Result        *string `json:"result,omitempty"`
	StopReason    *string `json:"stop_reason"`
	SessionID     string  `json:"session_id"`
	TotalCostUSD  float64 `json:"total_cost_usd"`
	Usage         usage   `json:"usage"`
	// ModelUsage covers the session's lineage (this call only before 2.1.277).
	ModelUsage        map[string]modelUsage `json:"modelUsage"`
	PermissionDenials []any                 `json:"permission_denials"`
	TerminalReason    string                `json:"terminal_reason,omitempty"`
	FastModeState     string                `json:"fast_mode_state,omitempty"`
	UUID              string                `json:"uuid"`
	Errors            []string              `json:"errors,omitempty"`
	// APIErrorStatus is null on success results, the HTTP status on API failures and
	// absent on error subtypes.
	APIErrorStatus  rawJSON `json:"api_error_status,omitempty"`
	APIErrorType    string  `json:"api_error_type,omitempty"`
	QueuedTurnCount *int    `json:"queued_turn_count,omitempty"`
	ResultIndex     int     `json:"result_index"`
	// SinceLast is this call's usage; CLI versions before 2.1.277 lack it.
	SinceLast *map[string]modelUsage `json:"model_usage_since_last_result,omitempty"`
}

// rawJSON is a pre-encoded value; nil is omitted.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }

type usage struct {
	InputTokens              int            `json:"input_tokens"`
	CacheCreationInputTokens int            `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int            `json:"cache_read_input_tokens"`
	OutputTokens             int            `json:"output_tokens"`
	OutputTokensDetails      map[string]int `json:"output_tokens_details"`
	ServerToolUse            map[string]int `json:"server_tool_use"`
	ServiceTier              string         `json:"service_tier"`
	CacheCreation            map[string]int `json:"cache_creation"`
	InferenceGeo             string         `json:"inference_geo"`
	Iterations               []any          `json:"iterations"`
	Speed                    string         `json:"speed"`
	FallbackCredit           any            `json:"fallback_credit"`
}

type modelUsage struct {
	InputTokens              int     `json:"inputTokens"`
	OutputTokens             int     `json:"outputTokens"`
	CacheReadInputTokens     int     `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int     `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
	ThinkingTokens           int     `json:"thinkingTokens"`
	CanonicalModel           string  `json:"canonicalModel"`
	Provider                 string  `json:"provider"`
	CostBasis                string  `json:"costBasis"`
}

// tokens counts what a call used; each turn reads 1200 and writes 25 tokens, as in the
// fixtures.
type tokens struct {
	in, out int
	cost    float64
}

func turnTokens(turns int) tokens { return tokens{in: 1200 * turns, out: 25 * turns} }

func newUsage(t tokens) usage {
	return usage{
		InputTokens:         t.in,
		OutputTokens:        t.out,
		OutputTokensDetails: map[string]int{"thinking_tokens": 0},
		ServerToolUse:       map[string]int{"web_search_requests": 0, "web_fetch_requests": 0},
		ServiceTier:         "standard",
		CacheCreation:       map[string]int{"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
		Iterations:          []any{},
		Speed:               "standard",
	}
}

// modelUsageMap is the modelUsage object for t; nothing used is an empty object.
func modelUsageMap(model string, t tokens) map[string]modelUsage {
	m := map[string]modelUsage{}
	if t.in == 0 && t.out == 0 && t.cost == 0 {
		return m
	}
	m[model] = modelUsage{
		InputTokens:     t.in,
		OutputTokens:    t.out,
		CostUSD:         t.cost,
		ContextWindow:   1000000,
		MaxOutputTokens: 128000,
		CanonicalModel:  model,
		Provider:        "firstParty",
		CostBasis:       "list",
	}
	return m
}

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// newID returns an API-style id such as "msg_…", "toolu_…" or "req_…".
func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func timestamp() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

func ptr[T any](v T) *T { return &v }

// jsonable turns the map[any]any values that YAML decoding produces for a
// mapping whose keys are not all strings into map[string]any, which
// encoding/json can write.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = jsonable(x)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = jsonable(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = jsonable(x)
		}
		return s
	}
	return v
}
