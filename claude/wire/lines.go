package wire

import "encoding/json"

// InitLine is the system/init line that opens every call.
type InitLine struct {
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

// AssistantLine is one assistant message: text, a tool call, or the
// synthetic message the CLI makes up to report an API failure.
type AssistantLine struct {
	Type            string           `json:"type"`
	Message         AssistantMessage `json:"message"`
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

// AssistantMessage is the API message an AssistantLine carries.
type AssistantMessage struct {
	ID                string       `json:"id"`
	Type              string       `json:"type"`
	Role              string       `json:"role"`
	Model             string       `json:"model"`
	Content           []Block      `json:"content"`
	StopReason        *string      `json:"stop_reason"`
	StopSequence      *string      `json:"stop_sequence"`
	Usage             MessageUsage `json:"usage"`
	ContextManagement any          `json:"context_management"`
}

// MessageUsage is the token count of one assistant message.
type MessageUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// Block is one content block: text, tool_use or tool_result. The fields
// are in an order that writes each kind as the CLI does: type and text;
// type, id, name and input; tool_use_id, type, content and is_error.
// Input and Content are omitted only when nil, so an empty tool input is
// written as {} and an empty tool result as "".
type Block struct {
	ToolUseID string `json:"tool_use_id,omitempty"`
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Input     any    `json:"input,omitempty"`
	Content   any    `json:"content,omitempty"`
	IsError   *bool  `json:"is_error,omitempty"`
}

// TextBlock is a text content block.
func TextBlock(text string) Block { return Block{Type: "text", Text: text} }

// ToolUseBlock is a tool_use content block.
func ToolUseBlock(id, name string, input map[string]any) Block {
	if input == nil {
		input = map[string]any{}
	}
	return Block{Type: "tool_use", ID: id, Name: name, Input: input}
}

// ToolResultBlock is the tool_result content block answering tool_use id.
func ToolResultBlock(id, content string, isError bool) Block {
	return Block{ToolUseID: id, Type: "tool_result", Content: content, IsError: &isError}
}

// UserLine is a user message: tool results, or the note that an interrupt
// stopped the turn.
type UserLine struct {
	Type            string      `json:"type"`
	Message         UserMessage `json:"message"`
	ParentToolUseID *string     `json:"parent_tool_use_id"`
	SessionID       string      `json:"session_id"`
	UUID            string      `json:"uuid"`
	Timestamp       string      `json:"timestamp"`
	ToolUseResult   any         `json:"tool_use_result,omitempty"`
}

// UserMessage is the message a UserLine carries.
type UserMessage struct {
	Role    string  `json:"role"`
	Content []Block `json:"content"`
}

// APIRetryLine is the system/api_retry line the CLI writes before it
// retries a failed API call.
type APIRetryLine struct {
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

// ModelFallbackLine is the system line of the CLI going on with its
// --fallback-model after the main model was overloaded.
type ModelFallbackLine struct {
	Type          string `json:"type"`
	Subtype       string `json:"subtype"`
	UUID          string `json:"uuid"`
	Trigger       string `json:"trigger"`
	OriginalModel string `json:"original_model"`
	FallbackModel string `json:"fallback_model"`
	Content       string `json:"content"`
	SessionID     string `json:"session_id"`
}

// RateLimitLine is a rate_limit_event: the state of the account's usage
// limit, rejected when a request was refused.
type RateLimitLine struct {
	Type          string        `json:"type"`
	RateLimitInfo RateLimitInfo `json:"rate_limit_info"`
	SessionID     string        `json:"session_id"`
	UUID          string        `json:"uuid"`
}

// RateLimitInfo says which limit, in what state, resetting when (Unix
// seconds).
type RateLimitInfo struct {
	Status        string `json:"status"`
	ResetsAt      int64  `json:"resetsAt"`
	RateLimitType string `json:"rateLimitType"`
}

// ResultLine is the last line of a call. Result is nil for the error
// subtypes, which have Errors instead.
type ResultLine struct {
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
	Usage         Usage   `json:"usage"`
	// ModelUsage covers the session's lineage (this call only before 2.1.277).
	ModelUsage        map[string]ModelUsage `json:"modelUsage"`
	PermissionDenials []any                 `json:"permission_denials"`
	TerminalReason    string                `json:"terminal_reason,omitempty"`
	FastModeState     string                `json:"fast_mode_state,omitempty"`
	UUID              string                `json:"uuid"`
	Errors            []string              `json:"errors,omitempty"`
	// APIErrorStatus is null on success results, the HTTP status on API
	// failures and absent on error subtypes: see Null and Status.
	APIErrorStatus  json.RawMessage `json:"api_error_status,omitempty"`
	APIErrorType    string          `json:"api_error_type,omitempty"`
	QueuedTurnCount *int            `json:"queued_turn_count,omitempty"`
	ResultIndex     int             `json:"result_index"`
	// SinceLast is this call's usage; CLI versions before 2.1.277 lack it.
	SinceLast *map[string]ModelUsage `json:"model_usage_since_last_result,omitempty"`
}

// Usage is the token count of a call, in a result line.
type Usage struct {
	InputTokens              int64          `json:"input_tokens"`
	CacheCreationInputTokens int64          `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64          `json:"cache_read_input_tokens"`
	OutputTokens             int64          `json:"output_tokens"`
	OutputTokensDetails      map[string]int `json:"output_tokens_details"`
	ServerToolUse            map[string]int `json:"server_tool_use"`
	ServiceTier              string         `json:"service_tier"`
	CacheCreation            map[string]int `json:"cache_creation"`
	InferenceGeo             string         `json:"inference_geo"`
	Iterations               []any          `json:"iterations"`
	Speed                    string         `json:"speed"`
	FallbackCredit           any            `json:"fallback_credit"`
}

// ModelUsage is one model's share of a result line's modelUsage.
type ModelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	WebSearchRequests        int     `json:"webSearchRequests"`
	CostUSD                  float64 `json:"costUSD"`
	ContextWindow            int     `json:"contextWindow"`
	MaxOutputTokens          int     `json:"maxOutputTokens"`
	ThinkingTokens           int     `json:"thinkingTokens"`
	CanonicalModel           string  `json:"canonicalModel"`
	Provider                 string  `json:"provider"`
	CostBasis                string  `json:"costBasis"`
}
