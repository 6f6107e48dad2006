package analysis

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"raymond/claude"
)

// How much of a step's stream LoadDetail keeps: tool results and other
// texts are cut to a few lines, the model's own text to more; no line is
// longer than maxLineRunes.
const (
	maxToolLines = 5
	maxTextLines = 20
	maxLineRunes = 240
)

// LoadDetail reads step s of the run in folder dir in full: its prompt
// and, from its stream, what the model said and did. Missing or torn files
// give notes, not errors; only a file that exists but cannot be read is an
// error.
func LoadDetail(dir string, s *Step) (*Detail, error) {
	if s == nil {
		return nil, errors.New("load step: no step given")
	}
	d := &Detail{Step: s, Items: []Item{}}
	prompt, err := os.ReadFile(filepath.Join(dir, s.Name+promptSuffix))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Notes = append(d.Notes, "no prompt file: the prompt sent is unknown")
	case err != nil:
		return nil, fmt.Errorf("read prompt of %s: %w", s.Name, err)
	default:
		d.Prompt = string(prompt)
	}
	data, err := os.ReadFile(filepath.Join(dir, s.Name+linesSuffix))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d.Notes = append(d.Notes, "no stream file: what the model said is unknown")
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("read stream of %s: %w", s.Name, err)
	}
	decodeStream(d, data)
	return d, nil
}

// wireLine is the part of a stream-json line a Detail shows. Unknown
// fields and types are ignored, as new ones come with every CLI release.
type wireLine struct {
	Type    string `json:"type"`
	Subtype string `json:"subtype"`
	Message *struct {
		Model   string      `json:"model"`
		Content []wireBlock `json:"content"`
	} `json:"message"`
	Error string `json:"error"`

	// system/api_retry.
	Attempt     int `json:"attempt"`
	MaxRetries  int `json:"max_retries"`
	ErrorStatus int `json:"error_status"`

	// rate_limit_event.
	RateLimit *struct {
		Status   string  `json:"status"`
		ResetsAt float64 `json:"resetsAt"`
		Type     string  `json:"rateLimitType"`
	} `json:"rate_limit_info"`

	// result.
	IsError bool              `json:"is_error"`
	Result  *string           `json:"result"`
	Errors  []json.RawMessage `json:"errors"`
}

// wireBlock is one content block: text, tool_use or tool_result.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

// decodeStream turns the lines of a step's stream into d's items and
// answer.
func decodeStream(d *Detail, data []byte) {
	tools := make(map[string]string) // tool_use id → name
	bad := 0
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			d.Notes = append(d.Notes, fmt.Sprintf("the stream ends in a torn line (%d bytes), left out: the step was cut short", len(data)))
			break
		}
		line := bytes.TrimSpace(data[:i])
		data = data[i+1:]
		if len(line) == 0 {
			continue
		}
		var l wireLine
		if err := json.Unmarshal(line, &l); err != nil {
			var typeErr *json.UnmarshalTypeError
			if !errors.As(err, &typeErr) {
				bad++
				continue
			}
		}
		d.line(&l, tools)
	}
	if bad > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%s of the stream do not decode, skipped", count(bad, "line", "lines")))
	}
}

// line adds what one stream line shows.
func (d *Detail) line(l *wireLine, tools map[string]string) {
	switch l.Type {
	case "assistant":
		if l.Message == nil {
			return
		}
		if l.Message.Model == "<synthetic>" || l.Error != "" {
			var text []string
			for _, b := range l.Message.Content {
				if b.Type == "text" {
					text = append(text, b.Text)
				}
			}
			d.add("error", "", strings.Join(text, "\n"), true, maxToolLines)
			return
		}
		for _, b := range l.Message.Content {
			switch b.Type {
			case "text":
				d.add("text", "", b.Text, false, maxTextLines)
			case "tool_use":
				if b.ID != "" {
					tools[b.ID] = b.Name
				}
				d.add("tool", b.Name, claude.ToolDetail(b.Input), false, 1)
			}
		}
	case "user":
		if l.Message == nil {
			return
		}
		for _, b := range l.Message.Content {
			if b.Type == "tool_result" {
				d.add("tool_result", tools[b.ToolUseID], contentText(b.Content), b.IsError, maxToolLines)
			}
		}
	case "system":
		if l.Subtype == "api_retry" {
			text := fmt.Sprintf("claude retries the API call (attempt %d of %d", l.Attempt, l.MaxRetries)
			if l.ErrorStatus != 0 {
				text += fmt.Sprintf(", HTTP %d", l.ErrorStatus)
			}
			if l.Error != "" {
				text += ", " + l.Error
			}
			d.add("note", "", text+")", false, 1)
		}
	case "rate_limit_event":
		if rl := l.RateLimit; rl != nil && rl.Status != "" && !strings.HasPrefix(rl.Status, "allowed") {
			d.add("note", "", rateLimitNote(rl.Status, rl.Type, rl.ResetsAt), false, 1)
		}
	case "result":
		if l.Result != nil && !l.IsError {
			d.Answer = *l.Result
			return
		}
		text := l.Subtype
		if l.Result != nil && *l.Result != "" {
			text = *l.Result
		}
		for _, e := range l.Errors {
			text += "\n" + contentText(e)
		}
		// An API error reaches the stream twice: as the synthetic
		// assistant message and as the result, maybe with a rate-limit
		// event between them. Show it once.
		if d.hasError(text) {
			return
		}
		d.add("error", "", text, true, maxToolLines)
	}
}

// hasError reports whether d already shows the error text.
func (d *Detail) hasError(text string) bool {
	short, _ := abbreviate(text, maxToolLines)
	for _, it := range d.Items {
		if it.Kind == "error" && it.Text == short {
			return true
		}
	}
	return false
}

// rateLimitNote says what a rate_limit_event that is not "allowed" reports:
// "rate limit: rejected (five_hour), resets at 2026-11-21 20:17:59 UTC".
func rateLimitNote(status, kind string, resetsAt float64) string {
	text := "rate limit: " + status
	if kind != "" {
		text += " (" + kind + ")"
	}
	if at, ok := claude.EpochTime(resetsAt); ok {
		text += ", resets at " + at.UTC().Format("2006-01-02 15:04:05 MST")
	}
	return text
}

// add appends an item, its text cut to at most lines lines.
func (d *Detail) add(kind, tool, text string, isErr bool, lines int) {
	text, cut := abbreviate(text, lines)
	d.Items = append(d.Items, Item{Kind: kind, Text: text, Tool: tool, IsErr: isErr, Cut: cut})
}

// abbreviate keeps the first n non-blank-trimmed lines of s, each cut to
// maxLineRunes, and says how many lines were left out: "… (12 more lines)".
func abbreviate(s string, n int) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	lines := strings.Split(s, "\n")
	cutAny := false
	for i, l := range lines {
		if c := cut(strings.TrimRight(l, " \t\r"), maxLineRunes); c != l {
			lines[i], cutAny = c, cutAny || width(c) < width(l)
		}
	}
	if len(lines) <= n {
		return strings.Join(lines, "\n"), cutAny
	}
	more := len(lines) - n
	return strings.Join(lines[:n], "\n") + "\n" + fmt.Sprintf("… (%s)", count(more, "more line", "more lines")), true
}

// contentText flattens a tool_result's content or an error entry as the
// decoder does; an object with a message (how some CLI versions write an
// error) shows that message.
func contentText(raw json.RawMessage) string {
	if raw = bytes.TrimSpace(raw); len(raw) > 0 && raw[0] == '{' {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Message != "" {
			return e.Message
		}
	}
	return claude.ContentText(raw)
}
