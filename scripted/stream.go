package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"syscall"
	"time"

	"raymond/claude"
	"raymond/parsing"
	"raymond/step"
	"raymond/workflow"
)

// version is the claude_code_version of a scripted step.
const version = "scripted"

// stream plays one reply: it writes the step's stream-json lines to the
// handler with the events the real decoder would make of them, and fills
// in the Result as the decoder would.
type stream struct {
	req step.Request
	rep *reply
	// list names the list rep came from in messages: the state, or
	// AGENT/STATE for an agent's own list.
	list   string
	h      claude.Handler
	res    *claude.Result
	prints *parsing.PrintScanner
	output int // bytes of model text written, for the token count
}

func newStream(req step.Request, rep *reply, sessionID string, h claude.Handler) *stream {
	model := req.Step.Model
	if model == "" {
		model = "scripted"
	}
	return &stream{
		req:    req,
		rep:    rep,
		list:   req.Step.State,
		h:      h,
		res:    &claude.Result{SessionID: sessionID, Model: model, Version: version, Started: time.Now()},
		prints: parsing.NewPrintScanner(),
	}
}

// start writes what a step streams before its answer: the init line, the
// reply's say blocks and its tool calls.
func (s *stream) start() {
	res, o := s.res, s.req.Options
	mode := o.PermissionMode
	switch {
	case o.SkipPermissions:
		mode = "bypassPermissions"
	case mode == "":
		mode = "default"
	}
	s.write(initLine{
		Type: "system", Subtype: "init", Cwd: s.req.Step.Cwd, SessionID: res.SessionID, Tools: initTools,
		Model: res.Model, PermissionMode: mode, Version: version, UUID: claude.NewSessionID(),
	})
	s.emit(claude.Event{Kind: claude.EventInit, SessionID: res.SessionID, Model: res.Model, Version: version})
	for _, say := range s.rep.say {
		s.text(s.render(say))
	}
	for _, t := range s.rep.tools {
		s.tool(t)
	}
}

// finish writes the answer and returns the step's result.
func (s *stream) finish() *claude.Result {
	rep, res := s.rep, s.res
	switch rep.outcome {
	case crash:
		return s.crashed()
	case timeout:
		return s.killed(claude.Timeout)
	}
	res.Subtype = "success"
	line := resultLine{Type: "result", Subtype: res.Subtype, StopReason: "end_turn", TerminalReason: "completed"}
	switch budget := s.req.MaxBudgetUSD; {
	case rep.outcome == success && budget > 0 && rep.cost > budget:
		// The CLI stops a step whose cost passes --max-budget-usd before
		// it answers.
		s.exhausted(&line, "error_max_budget_usd", "budget_exhausted",
			"Reached maximum budget ($"+strconv.FormatFloat(budget, 'f', -1, 64)+")")
	case rep.outcome == success:
		text := s.render(rep.text)
		s.text(text)
		res.Outcome, res.Text, line.Result = claude.Success, text, &text
	case rep.outcome == apiError:
		s.apiError(&line, "server_error", 500, apiErrorText)
		res.Outcome = claude.APIError
	case rep.outcome == usageLimit:
		now := time.Now()
		// Whole seconds, as the rate_limit_event carries them; rounded up so
		// that the wait is never shorter than the reply says.
		resetAt := time.Unix(now.Add(rep.reset+time.Second-1).Unix(), 0)
		s.rateLimit(resetAt)
		s.apiError(&line, "rate_limit", 429, usageLimitText(resetAt, now))
		res.Outcome, res.ResetAt = claude.UsageLimit, resetAt
	case rep.outcome == maxTurns:
		s.exhausted(&line, "error_max_turns", "max_turns", "Reached maximum number of turns (1)")
	}

	cost := rep.cost
	res.HasResult, res.NumTurns = true, 1
	res.TotalCostUSD, res.CallCostUSD = cost, &cost
	res.Usage = claude.Usage{InputTokens: tokens(len(s.req.Prompt)), OutputTokens: tokens(s.output)}
	res.Ended = time.Now()
	res.DurationMS = res.Ended.Sub(res.Started).Milliseconds()

	usage := map[string]modelUsage{res.Model: {res.Usage.InputTokens, res.Usage.OutputTokens, cost}}
	line.SessionID, line.TotalCostUSD, line.Usage = res.SessionID, cost, res.Usage
	line.NumTurns, line.DurationMS = res.NumTurns, res.DurationMS
	line.ModelUsage, line.CallUsage, line.UUID = usage, usage, claude.NewSessionID()
	s.write(line)
	return res
}

// exhausted records a step that hit its own limit: an error subtype, with
// errors instead of a result text.
func (s *stream) exhausted(line *resultLine, subtype, terminal, msg string) {
	res := s.res
	res.Outcome, res.IsError, res.Subtype, res.Errors, res.ExitCode = claude.Exhausted, true, subtype, []string{msg}, 1
	line.Subtype, line.IsError, line.Errors = subtype, true, res.Errors
	line.StopReason, line.TerminalReason = "tool_use", terminal
}

// apiErrorText is the answer of an api_error reply, worded as the CLI's.
const apiErrorText = "API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment."

// apiError writes the synthetic assistant message of a failed API call and
// records it in the result line and the Result: an error result with
// subtype success, the message as its text, the HTTP status and error kind.
func (s *stream) apiError(line *resultLine, kind string, status int, msg string) {
	stop := "stop_sequence"
	s.write(messageLine{
		Type: "assistant",
		Message: message{
			ID: claude.NewSessionID(), Type: "message", Role: "assistant", Model: "<synthetic>",
			Content: []block{{Type: "text", Text: msg}}, StopReason: &stop, Usage: &claude.Usage{},
		},
		SessionID: s.res.SessionID, UUID: claude.NewSessionID(),
		Error: kind, IsAPIErrorMessage: true, APIErrorStatus: status,
	})
	s.emit(claude.Event{Kind: claude.EventAPIError, Text: msg, ErrorKind: kind, Status: status})
	res := s.res
	res.IsError, res.Text, res.APIErrorStatus, res.APIErrorKind, res.ExitCode = true, msg, status, kind, 1
	line.IsError, line.Result, line.APIErrorStatus = true, &msg, &status
	line.StopReason, line.TerminalReason = "stop_sequence", "api_error"
}

// rateLimit writes the rate_limit_event of a subscription whose usage limit
// is reached until resetAt.
func (s *stream) rateLimit(resetAt time.Time) {
	s.write(rateLimitLine{
		Type:          "rate_limit_event",
		RateLimitInfo: rateLimitInfo{Status: "rejected", ResetsAt: resetAt.Unix(), RateLimitType: "five_hour"},
		SessionID:     s.res.SessionID, UUID: claude.NewSessionID(),
	})
	s.emit(claude.Event{Kind: claude.EventRateLimit, LimitStatus: "rejected", LimitType: "five_hour", ResetAt: resetAt})
}

// usageLimitText is the CLI's usage-limit message for a reset at resetAt,
// read at now: "You've hit your session limit · resets 3:30pm", with the
// date when the reset is more than a day away.
func usageLimitText(resetAt, now time.Time) string {
	layout := "3:04pm"
	if resetAt.Minute() == 0 {
		layout = "3pm"
	}
	if resetAt.Sub(now) > 20*time.Hour {
		layout = "Jan 2, " + layout
	}
	return "You've hit your session limit · resets " + resetAt.Format(layout)
}

// crashed ends the step as a process that died without a result line.
func (s *stream) crashed() *claude.Result {
	msg := fmt.Sprintf("scripted crash: reply %d of %s has outcome crash", s.rep.index, s.list)
	if s.h.OnStderr != nil {
		s.h.OnStderr(msg)
	}
	res := s.res
	res.Outcome, res.ExitCode, res.Stderr, res.Ended = claude.Crash, 1, msg+"\n", time.Now()
	return res
}

// killed ends the step as a process that raymond terminated before its
// result line: on its idle timeout or because the run was canceled.
func (s *stream) killed(o claude.Outcome) *claude.Result {
	res := s.res
	res.Outcome, res.ExitCode, res.Signal, res.Ended = o, -1, claude.SignalName(syscall.SIGTERM), time.Now()
	return res
}

// text writes one assistant text block; an empty text writes nothing.
func (s *stream) text(t string) {
	if t == "" {
		return
	}
	s.output += len(t)
	s.assistant(block{Type: "text", Text: t})
	s.emit(claude.Event{Kind: claude.EventText, Text: t})
	for _, p := range s.prints.Feed(t) {
		s.emit(claude.Event{Kind: claude.EventPrint, Text: p})
	}
}

// tool writes a tool_use block and its tool_result.
func (s *stream) tool(t tool) {
	id := newID("toolu_")
	input, _ := s.renderValue(t.input).(map[string]any)
	if input == nil {
		input = map[string]any{}
	}
	s.assistant(block{Type: "tool_use", ID: id, Name: t.name, Input: input})
	s.emit(claude.Event{Kind: claude.EventToolUse, Tool: t.name, Detail: detail(input)})

	content, isError := s.render(t.result), t.isError
	s.write(messageLine{
		Type:      "user",
		Message:   message{Role: "user", Content: []block{{Type: "tool_result", ToolUseID: id, Content: &content, IsError: &isError}}},
		SessionID: s.res.SessionID, UUID: claude.NewSessionID(),
	})
	s.emit(claude.Event{Kind: claude.EventToolResult, Tool: t.name, IsError: isError, Text: content, Detail: claude.OneLine(content)})
}

// assistant writes an assistant message holding one content block.
func (s *stream) assistant(b block) {
	s.write(messageLine{
		Type: "assistant",
		Message: message{
			ID: newID("msg_"), Type: "message", Role: "assistant", Model: s.res.Model,
			Content: []block{b}, Usage: &claude.Usage{InputTokens: tokens(len(s.req.Prompt)), OutputTokens: 1},
		},
		SessionID: s.res.SessionID, UUID: claude.NewSessionID(),
	})
}

// write encodes v as one stream-json line and passes it to OnLine. Angle
// brackets stay as written, as the CLI writes them, so tags read plainly in
// a transcript.
func (s *stream) write(v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Lines hold strings, finite numbers, booleans, and tool inputs that
		// parsing made of nothing else: encoding them cannot fail.
		panic(fmt.Sprintf("scripted: encode a stream-json line: %v", err))
	}
	s.res.Lines++
	if s.h.OnLine != nil {
		s.h.OnLine(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
	}
}

func (s *stream) emit(e claude.Event) {
	if s.h.OnEvent != nil {
		s.h.OnEvent(e)
	}
}

// render fills in the step's template values, unless the reply is verbatim.
func (s *stream) render(text string) string {
	if s.rep.verbatim {
		return text
	}
	return workflow.Render(text, s.req.Vars)
}

// renderValue renders every string of a tool input, returning a copy: the
// reply is shared by every step it answers.
func (s *stream) renderValue(v any) any {
	switch v := v.(type) {
	case string:
		return s.render(v)
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, item := range v {
			out[k] = s.renderValue(item)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, item := range v {
			out[i] = s.renderValue(item)
		}
		return out
	}
	return v
}

// tokens makes up a token count for n bytes of text: about four bytes a
// token, at least one for any text.
func tokens(n int) int64 { return int64(n+3) / 4 }

// detail returns what the claude package's decoder makes of a tool input:
// the most telling argument on one line.
func detail(input map[string]any) string {
	raw, err := json.Marshal(input)
	if err != nil {
		return ""
	}
	return claude.ToolDetail(raw)
}
