package standin

import (
	"encoding/json"
	"strings"
)

// request is the part of a Messages API request the stand-in reads.
type request struct {
	Model     string          `json:"model"`
	Stream    bool            `json:"stream"`
	System    json.RawMessage `json:"system"`
	Messages  []message       `json:"messages"`
	Tools     []struct{}      `json:"tools"`
	MaxTokens int             `json:"max_tokens"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// block is a content block of a message.
type block struct {
	Type      string `json:"type"`
	Text      string `json:"text"`
	ToolUseID string `json:"tool_use_id"`
}

// blocks returns a message's content as blocks; a plain string is one text
// block.
func (m message) blocks() []block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

// side reports whether the request is one of the CLI's side requests (a
// title, a quota check): they offer the model no tools.
func (r *request) side() bool { return len(r.Tools) == 0 }

// prompt returns the text of the last user message that has text of its own:
// the prompt of the turn, without the <system-reminder> blocks the CLI adds.
func (r *request) prompt() string {
	texts := r.prompts()
	if len(texts) == 0 {
		return ""
	}
	return texts[len(texts)-1]
}

// prompts returns the text of each user message that has text of its own,
// in order.
func (r *request) prompts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		var texts []string
		for _, b := range m.blocks() {
			if b.Type == "text" && !isReminder(b.Text) {
				texts = append(texts, b.Text)
			}
		}
		if len(texts) > 0 {
			out = append(out, strings.Join(texts, "\n"))
		}
	}
	return out
}

func isReminder(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "<system-reminder>") && strings.HasSuffix(s, "</system-reminder>")
}

// toolResults returns the ids of the tool calls whose results the request
// brings back: those in the messages after the last assistant message (the
// CLI may add messages of its own after the results, such as a "system" one
// with its budget note). Set when the request continues a turn after its
// tools ran.
func (r *request) toolResults() []string {
	var ids []string
	for i := len(r.Messages) - 1; i >= 0 && r.Messages[i].Role != "assistant"; i-- {
		for _, b := range r.Messages[i].blocks() {
			if b.Type == "tool_result" {
				ids = append(ids, b.ToolUseID)
			}
		}
	}
	return ids
}

// systemText returns the system prompt as one string.
func (r *request) systemText() string {
	var s string
	if json.Unmarshal(r.System, &s) == nil {
		return s
	}
	var bs []block
	_ = json.Unmarshal(r.System, &bs)
	texts := make([]string, 0, len(bs))
	for _, b := range bs {
		texts = append(texts, b.Text)
	}
	return strings.Join(texts, "\n")
}
