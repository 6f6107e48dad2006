package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"time"
)

// wireLine is one line of `--output-format stream-json`, flattened: every
// line type's fields in one struct. Unknown fields, types and subtypes are
// ignored, as the CLI adds new ones in every release.
type wireLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	// UUID is the line's id in the session; that of an assistant line is
	// what --resume-session-at takes.
	UUID string `json:"uuid"`

	// system/init.
	Model     string `json:"model"`
	Version   string `json:"claude_code_version"`
	KeySource string `json:"apiKeySource"`

	// assistant and user. Error is also the error kind of system/api_retry.
	Message        *wireMessage `json:"message"`
	Error          string       `json:"error"`
	APIErrorStatus *int         `json:"api_error_status"`

	// system/model_fallback: the CLI's --fallback-model taken.
	OriginalModel string `json:"original_model"`
	FallbackModel string `json:"fallback_model"`
	Trigger       string `json:"trigger"`
	Content       string `json:"content"`

	// system/api_retry.
	Attempt      int     `json:"attempt"`
	MaxRetries   int     `json:"max_retries"`
	RetryDelayMS float64 `json:"retry_delay_ms"`
	ErrorStatus  *int    `json:"error_status"`

	// rate_limit_event.
	RateLimitInfo *wireRateLimit `json:"rate_limit_info"`

	// result.
	IsError      bool                      `json:"is_error"`
	Result       string                    `json:"result"`
	Errors       []json.RawMessage         `json:"errors"`
	TotalCostUSD float64                   `json:"total_cost_usd"`
	Usage        Usage                     `json:"usage"`
	NumTurns     int                       `json:"num_turns"`
	DurationMS   int64                     `json:"duration_ms"`
	CallUsage    map[string]wireModelUsage `json:"model_usage_since_last_result"`
}

type wireMessage struct {
	Model   string      `json:"model"`
	Content []wireBlock `json:"content"`
}

// wireBlock is one content block: text, tool_use or tool_result.
type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     toolInput       `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
	Content   json.RawMessage `json:"content"`
}

type wireRateLimit struct {
	Status        string  `json:"status"`
	ResetsAt      float64 `json:"resetsAt"`
	RateLimitType string  `json:"rateLimitType"`
}

type wireModelUsage struct {
	CostUSD float64 `json:"costUSD"`
}

// printFeeder finds <print> payloads in text fed to it in pieces.
type printFeeder interface {
	Feed(chunk string) []string
}

// stream decodes the lines of one step into a Result and events.
type stream struct {
	res     *Result
	emit    func(Event)
	prints  printFeeder
	tools   map[string]string // tool_use id → tool name
	resetAt time.Time         // from the last rate_limit_event with resetsAt
	// open are the tool calls without their tool_result yet, oldest first.
	open []openTool
	// loops counts identical tool calls, when loop_warn or loop_stop is on.
	loops loops
}

// openTool is a tool call whose result has not come yet.
type openTool struct {
	id   string // tool_use id
	name string // the tool and its key argument: "Bash (npm test)"
}

// busy reports whether a tool call is outstanding: claude prints nothing
// while its tool runs.
func (s *stream) busy() bool { return len(s.open) > 0 }

// running names an outstanding tool call ("Bash (npm test)"), the latest
// when there are several; "" when there is none.
func (s *stream) running() string {
	if len(s.open) == 0 {
		return ""
	}
	return s.open[len(s.open)-1].name
}

func newStream(res *Result, emit func(Event)) *stream {
	if emit == nil {
		emit = func(Event) {}
	}
	return &stream{res: res, emit: emit, prints: newPrintScanner(), tools: make(map[string]string)}
}

// decode handles one stdout line. Lines that are not JSON objects are
// ignored; a field of an unexpected type is skipped and the rest of the
// line still used.
func (s *stream) decode(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return
	}
	var l wireLine
	if err := json.Unmarshal(line, &l); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			return
		}
	}
	if s.res.SessionID == "" {
		s.res.SessionID = l.SessionID
	}
	switch l.Type {
	case "system":
		s.system(&l)
	case "assistant":
		s.assistant(&l)
	case "user":
		s.user(&l)
	case "rate_limit_event":
		s.rateLimit(&l)
	case "result":
		s.result(&l)
	}
}

func (s *stream) system(l *wireLine) {
	switch l.Subtype {
	case "init":
		if l.SessionID != "" {
			s.res.SessionID = l.SessionID
		}
		s.res.Model, s.res.Version, s.res.KeySource = l.Model, l.Version, l.KeySource
		s.emit(Event{Kind: EventInit, SessionID: l.SessionID, Model: l.Model, Version: l.Version})
	case "api_retry":
		status := deref(l.ErrorStatus)
		s.res.RetryStatus = status
		if l.Error == "authentication_failed" || status == 401 {
			s.res.KeyRefused = s.res.KeyRefused || fixedKey(s.res.KeySource)
		}
		s.emit(Event{
			Kind:       EventRetry,
			Attempt:    l.Attempt,
			MaxRetries: l.MaxRetries,
			Delay:      time.Duration(l.RetryDelayMS * float64(time.Millisecond)),
			Status:     status,
			ErrorKind:  l.Error,
		})
	case "model_fallback":
		// The CLI took --fallback-model (after three 529s in a row): the
		// rest of the step runs on it.
		s.res.FellBack = append(s.res.FellBack, l.FallbackModel)
		s.res.RetryStatus = 0
		s.emit(Event{Kind: EventFallback, Model: l.FallbackModel, From: l.OriginalModel, ErrorKind: l.Trigger, Text: l.Content})
	}
}

// fixedKey reports whether an init line's apiKeySource names an API key
// that the CLI's retries cannot change: one from ANTHROPIC_API_KEY (or a
// source a later CLI adds). A login ("none": the CLI may refresh its OAuth
// token between retries) and an apiKeyHelper (run again for a new key) are
// not fixed, nor is a stream without an init line.
func fixedKey(source string) bool {
	return source != "" && source != "none" && source != "apiKeyHelper"
}

func (s *stream) assistant(l *wireLine) {
	if l.Message == nil {
		return
	}
	if l.Message.Model != "<synthetic>" && l.Error == "" {
		// A request got its answer: a retry before it is over.
		s.res.RetryStatus = 0
		if l.UUID != "" {
			s.res.LastMessage = l.UUID
		}
	}
	if l.Message.Model == "<synthetic>" || l.Error != "" {
		var text []string
		for _, b := range l.Message.Content {
			if b.Type == "text" {
				text = append(text, b.Text)
			}
		}
		if l.Error != "" {
			s.res.APIErrorKind = l.Error
		}
		s.emit(Event{Kind: EventAPIError, Text: strings.Join(text, "\n"), ErrorKind: l.Error, Status: deref(l.APIErrorStatus)})
		return
	}
	for i := range l.Message.Content {
		b := &l.Message.Content[i]
		switch b.Type {
		case "text":
			s.emit(Event{Kind: EventText, Text: b.Text})
			if s.prints != nil {
				for _, p := range s.prints.Feed(b.Text) {
					s.emit(Event{Kind: EventPrint, Text: p})
				}
			}
		case "tool_use":
			detail := b.Input.detail()
			if b.ID != "" {
				s.tools[b.ID] = b.Name
				name := b.Name
				if detail != "" {
					name += " (" + detail + ")"
				}
				s.open = append(s.open, openTool{id: b.ID, name: name})
			}
			s.emit(Event{Kind: EventToolUse, Tool: b.Name, Detail: detail, ToolID: b.ID})
			s.loop(b)
		}
	}
}

// loop counts a tool call and, at the loop_warn-th identical one, reports
// it; at the loop_stop-th it marks the step looping (Result.Loop), which
// [Run] stops. Calls after the stop are not counted again.
func (s *stream) loop(b *wireBlock) {
	if !s.loops.on() || s.res.Loop != nil {
		return
	}
	n, text := s.loops.call(b.Name, b.Input.raw)
	if n == s.loops.warn {
		s.res.LoopWarned = append(s.res.LoopWarned, ToolLoop{Call: text, Count: n, Stop: s.loops.stop})
		s.emit(Event{Kind: EventLoopWarning, Tool: b.Name, Detail: text, Count: n, Limit: s.loops.stop})
	}
	if n == s.loops.stop {
		s.res.Loop = &ToolLoop{Call: text, Count: n, Stop: s.loops.stop}
	}
}

func (s *stream) user(l *wireLine) {
	if l.Message == nil {
		return
	}
	for i := range l.Message.Content {
		b := &l.Message.Content[i]
		if b.Type != "tool_result" {
			continue
		}
		s.open = slices.DeleteFunc(s.open, func(t openTool) bool { return t.id == b.ToolUseID })
		text := ContentText(b.Content)
		s.emit(Event{Kind: EventToolResult, Tool: s.tools[b.ToolUseID], IsError: b.IsError, Text: text, Detail: oneLine(text), ToolID: b.ToolUseID})
	}
}

// ContentText flattens a tool_result's content (or an entry of a result's
// errors): a string, a list of blocks whose text parts are joined by
// newlines, or an object with a message (how some CLI versions write an
// error); anything else is returned as the JSON it is.
func ContentText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &blocks) == nil {
			var parts []string
			for _, b := range blocks {
				if b.Type == "text" {
					parts = append(parts, b.Text)
				}
			}
			return strings.Join(parts, "\n")
		}
	case '{':
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(raw, &e) == nil && e.Message != "" {
			return e.Message
		}
	}
	return string(raw)
}

func (s *stream) rateLimit(l *wireLine) {
	info := l.RateLimitInfo
	if info == nil {
		return
	}
	ev := Event{Kind: EventRateLimit, LimitStatus: info.Status, LimitType: info.RateLimitType}
	if t, ok := EpochTime(info.ResetsAt); ok {
		ev.ResetAt = t
		// An "allowed" or "allowed_warning" event only tells when the window
		// rolls over; the limit was not hit, so it must not set the step's
		// reset time (it could wake a waiting run before the real reset).
		if !strings.HasPrefix(info.Status, "allowed") {
			s.resetAt = t
		}
	}
	s.emit(ev)
}

// result records a result line. There is one per process; should there be
// several, the last one describes the step and the per-call costs add up.
func (s *stream) result(l *wireLine) {
	r := s.res
	r.HasResult = true
	if l.SessionID != "" {
		r.SessionID = l.SessionID
	}
	r.Text, r.IsError, r.Subtype = l.Result, l.IsError, l.Subtype
	r.Errors = nil
	for _, e := range l.Errors {
		r.Errors = append(r.Errors, ContentText(e))
	}
	r.APIErrorStatus = deref(l.APIErrorStatus)
	r.TotalCostUSD, r.Usage = l.TotalCostUSD, l.Usage
	r.NumTurns, r.DurationMS = l.NumTurns, l.DurationMS
	if l.CallUsage != nil {
		var sum float64
		if r.CallCostUSD != nil {
			sum = *r.CallCostUSD
		}
		for _, u := range l.CallUsage {
			sum += u.CostUSD
		}
		r.CallCostUSD = &sum
	}
}

// EpochTime converts epoch seconds (or milliseconds, should a CLI switch
// units), as a rate_limit_event's resetsAt gives them, to a time; ok is
// false for zero, negative or absurd values.
func EpochTime(v float64) (time.Time, bool) {
	if v >= 1e12 {
		v /= 1000
	}
	if v <= 0 || v >= 1e11 || math.IsNaN(v) {
		return time.Time{}, false
	}
	sec, frac := math.Modf(v)
	return time.Unix(int64(sec), int64(frac*1e9)), true
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
