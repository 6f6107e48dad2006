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
	"time"

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
	if s.ranScript() {
		// A script step has no prompt and no stream: its output is all.
		return d, loadScriptOutput(dir, d)
	}
	prompt, err := os.ReadFile(filepath.Join(dir, s.Name+promptSuffix))
	switch {
	case errors.Is(err, fs.ErrNotExist) && s.IsScript():
		// A script state's step has no prompt, even one a reply answered.
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

// decodeStream turns the lines of a step's stream into d's items and
// answer, through claude's own decoder: the step shows what the run saw.
func decodeStream(d *Detail, data []byte) {
	dec := claude.NewDecoder(d.event)
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
		if line[0] != '{' || !json.Valid(line) {
			bad++
			continue
		}
		dec.Line(line)
	}
	if bad > 0 {
		d.Notes = append(d.Notes, fmt.Sprintf("%s of the stream do not decode, skipped", count(bad, "line", "lines")))
	}
	d.result(dec.Result())
}

// event adds what one decoded event shows.
func (d *Detail) event(e claude.Event) {
	switch e.Kind {
	case claude.EventText:
		d.add("text", "", e.Text, false, maxTextLines)
	case claude.EventToolUse:
		d.add("tool", e.Tool, e.Detail, false, 1)
	case claude.EventToolResult:
		d.add("tool_result", e.Tool, e.Text, e.IsError, maxToolLines)
	case claude.EventAPIError:
		d.add("error", "", e.Text, true, maxToolLines)
	case claude.EventRetry:
		text := fmt.Sprintf("claude retries the API call (attempt %d of %d", e.Attempt, e.MaxRetries)
		if e.Status != 0 {
			text += fmt.Sprintf(", HTTP %d", e.Status)
		}
		if e.ErrorKind != "" {
			text += ", " + e.ErrorKind
		}
		d.add("note", "", text+")", false, 1)
	case claude.EventRateLimit:
		if e.LimitStatus != "" && !strings.HasPrefix(e.LimitStatus, "allowed") {
			d.add("note", "", rateLimitNote(e.LimitStatus, e.LimitType, e.ResetAt), false, 1)
		}
	}
}

// result takes the answer, or the error, of the stream's result line.
func (d *Detail) result(res *claude.Result) {
	if !res.HasResult {
		return
	}
	if !res.IsError {
		d.Answer = res.Text
		return
	}
	text := res.Subtype
	if res.Text != "" {
		text = res.Text
	}
	for _, e := range res.Errors {
		text += "\n" + e
	}
	// An API error reaches the stream twice: as the synthetic assistant
	// message and as the result, maybe with a rate-limit event between
	// them. Show it once.
	if d.hasError(text) {
		return
	}
	d.add("error", "", text, true, maxToolLines)
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
func rateLimitNote(status, kind string, resetsAt time.Time) string {
	text := "rate limit: " + status
	if kind != "" {
		text += " (" + kind + ")"
	}
	if !resetsAt.IsZero() {
		text += ", resets at " + resetsAt.UTC().Format("2006-01-02 15:04:05 MST")
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
