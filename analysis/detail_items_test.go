package analysis

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"raymond/claude"
)

// A usage limit reaches the stream as a synthetic message, a rate-limit
// event and a result with the same text: the error shows once, and the
// note says when the limit resets.
func TestLoadDetailUsageLimit(t *testing.T) {
	stream := strings.Join([]string{
		`{"type":"system","subtype":"init","session_id":"s1","model":"m"}`,
		`{"type":"assistant","message":{"model":"<synthetic>","content":[{"type":"text","text":"You've hit your session limit · resets 3pm"}]},"error":"rate_limit"}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795292279,"rateLimitType":"five_hour"}}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1795292279000}}`,
		`{"type":"result","subtype":"success","is_error":true,"result":"You've hit your session limit · resets 3pm"}`,
	}, "\n") + "\n"
	dir := t.TempDir()
	s := &Step{Name: "main_LIM_002", Agent: "main", Seq: 2, State: "LIM.md", Outcome: "usage limit"}
	require.NoError(t, os.WriteFile(filepath.Join(dir, s.Name+".jsonl"), []byte(stream), 0o644))
	d, err := LoadDetail(dir, s)
	require.NoError(t, err)
	assert.Equal(t, []Item{
		{Kind: "error", Text: "You've hit your session limit · resets 3pm", IsErr: true},
		{Kind: "note", Text: "rate limit: rejected (five_hour), resets at 2026-11-21 20:17:59 UTC"},
	}, d.Items)
}

func TestRateLimitNote(t *testing.T) {
	for _, tc := range []struct {
		status, kind string
		at           float64
		want         string
	}{
		{"rejected", "", 0, "rate limit: rejected"},
		{"rejected", "seven_day", 0, "rate limit: rejected (seven_day)"},
		{"rejected", "", 1795292279000, "rate limit: rejected, resets at 2026-11-21 20:17:59 UTC"},
		{"rejected", "", -5, "rate limit: rejected"},
	} {
		at, _ := claude.EpochTime(tc.at) // as the decoder reads resetsAt
		assert.Equal(t, tc.want, rateLimitNote(tc.status, tc.kind, at), "%+v", tc)
	}
}

// The labels of what the model did stand in one column, as wide as the
// widest label up to maxItemLabel; a longer one (an MCP tool's name)
// stands on its own line, its text under it in the column.
func TestWriteDetailItemColumn(t *testing.T) {
	d := &Detail{Step: &Step{Name: "main_START_001", Agent: "main", Seq: 1, State: "START.md"}, Items: []Item{
		{Kind: "tool", Tool: "WebSearch", Text: "go generics"},
		{Kind: "tool_result", Tool: "WebSearch", Text: "results"},
		{Kind: "tool", Tool: "TodoWrite", Text: ""},
		{Kind: "tool", Tool: "mcp__github__create_issue", Text: "Bug"},
		{Kind: "tool_result", Tool: "mcp__github__create_issue", Text: "created\n#42"},
	}}
	var b bytes.Buffer
	require.NoError(t, WriteDetail(&b, d, TextOptions{}))
	assert.Contains(t, b.String(), "\nWhat the model did\n"+
		"  WebSearch   go generics\n"+
		"  → WebSearch results\n"+
		"  TodoWrite\n"+
		"  mcp__github__create_issue\n"+
		"              Bug\n"+
		"  → mcp__github__create_issue\n"+
		"              created\n"+
		"              #42\n")
}
