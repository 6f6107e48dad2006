package wire

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Marshal encodes v as one stream-json line, without the newline. <, > and
// & stay as they are, as the real CLI writes them, so tags read plainly.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// NewUsage is a result line's usage for in and out tokens, with the
// informational fields filled in as the CLI fills them.
func NewUsage(in, out int64) Usage {
	return Usage{
		InputTokens:         in,
		OutputTokens:        out,
		OutputTokensDetails: map[string]int{"thinking_tokens": 0},
		ServerToolUse:       map[string]int{"web_search_requests": 0, "web_fetch_requests": 0},
		ServiceTier:         "standard",
		CacheCreation:       map[string]int{"ephemeral_1h_input_tokens": 0, "ephemeral_5m_input_tokens": 0},
		Iterations:          []any{},
		Speed:               "standard",
	}
}

// NewModelUsage is model's entry in a result line's modelUsage.
func NewModelUsage(model string, in, out int64, cost float64) ModelUsage {
	return ModelUsage{
		InputTokens:     in,
		OutputTokens:    out,
		CostUSD:         cost,
		ContextWindow:   1000000,
		MaxOutputTokens: 128000,
		CanonicalModel:  model,
		Provider:        "firstParty",
		CostBasis:       "list",
	}
}

// Null is the api_error_status of a successful result.
func Null() json.RawMessage { return json.RawMessage("null") }

// Status is the api_error_status of a result that an API failure ended.
func Status(code int) json.RawMessage { return json.RawMessage(strconv.Itoa(code)) }

// NewUUID returns a random version 4 UUID, as the CLI's line uuids are.
func NewUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go ≥ 1.24)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewID returns an API-style id: prefix and 24 random hex digits, as in
// "msg_…", "toolu_…" or "req_…".
func NewID(prefix string) string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Timestamp is t as a line's timestamp: UTC, to the millisecond.
func Timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
