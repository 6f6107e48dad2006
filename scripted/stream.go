package scripted

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"raymond/claude"
	"raymond/claude/wire"
	"raymond/step"
	"raymond/workflow"
)

// version is the claude_code_version of a scripted step.
const version = "scripted"

// stream plays one reply: it writes the step's stream-json lines to the
// handler and through claude's own decoder, which makes of them the same
// events and Result it makes of a real claude's lines.
type stream struct {
	req step.Request
	rep *reply
	// list names the list rep came from in messages: the state, or
	// AGENT/STATE for an agent's own list.
	list      string
	h         claude.Handler
	dec       *claude.Decoder
	sessionID string
	model     string
	started   time.Time
	output    int // bytes of model text written, for the token count
}

func newStream(req step.Request, rep *reply, sessionID string, h claude.Handler) *stream {
	model := req.Step.Model
	if model == "" {
		model = "scripted"
	}
	dec := claude.NewDecoder(h.OnEvent)
	if req.Script == nil {
		// The loop check of a real claude step, on the replies' tool calls.
		dec.Watch(req.LoopLimits())
	}
	return &stream{
		req:       req,
		rep:       rep,
		list:      req.Step.State,
		h:         h,
		dec:       dec,
		sessionID: sessionID,
		model:     model,
		started:   time.Now(),
	}
}

// looped says the step made the same tool call loop_stop times: a real
// claude would be stopped there.
func (s *stream) looped() bool { return s.dec.Result().Loop != nil }

// writeInit writes the init line.
func (s *stream) writeInit() {
	mode, skip := s.req.Permissions()
	switch {
	case skip:
		mode = "bypassPermissions"
	case mode == "":
		mode = "default"
	}
	s.write(wire.InitLine{
		Type: "system", Subtype: "init", Cwd: s.req.Step.Cwd, SessionID: s.sessionID,
		Tools: initTools, MCPServers: []any{}, Model: s.model, PermissionMode: mode,
		SlashCommands: []string{}, APIKeySource: "none", ClaudeCodeVersion: version,
		OutputStyle: "default", Agents: []string{}, Skills: []string{}, Plugins: []any{},
		UUID: wire.NewUUID(), MemoryPaths: map[string]string{}, OriginalCwd: s.req.Step.Cwd,
		AdditionalDirs: []string{}, FastModeState: "off",
	})
}

// messages writes the reply's say blocks and tool calls.
func (s *stream) messages() {
	for _, say := range s.rep.say {
		s.text(s.render(say))
	}
	for _, t := range s.rep.tools {
		if s.looped() {
			return
		}
		s.tool(t)
	}
}

// writeFiles writes the reply's files, its paths and contents rendered, a
// relative path taken from the step's working directory, making the folders
// a path needs.
func (s *stream) writeFiles() error {
	for _, w := range s.rep.writes {
		path := s.render(w.path)
		if !filepath.IsAbs(path) {
			path = filepath.Join(s.req.Step.Cwd, path)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("scripted reply for %s: writes: %w", s.list, err)
		}
		if err := os.WriteFile(path, []byte(s.render(w.content)), 0o644); err != nil {
			return fmt.Errorf("scripted reply for %s: writes: %w", s.list, err)
		}
	}
	return nil
}

// finish ends the step as the reply's outcome says and returns the Result
// claude's decoder and classification make of it.
func (s *stream) finish() *claude.Result {
	rep := s.rep
	switch rep.outcome {
	case crash:
		return s.crashed()
	case timeout:
		return s.killed(claude.End{ExitCode: -1, Signal: claude.SignalName(syscall.SIGTERM), TimedOut: true})
	}
	line := wire.ResultLine{Type: "result", Subtype: "success", StopReason: ptr("end_turn"), TerminalReason: "completed",
		APIErrorStatus: wire.Null(), PermissionDenials: []any{}, FastModeState: "off", QueuedTurnCount: ptr(0)}
	exit := 0
	switch budget := s.req.MaxBudgetUSD; {
	case rep.outcome == success && budget > 0 && s.cost() > budget:
		exit = exhausted(&line, "error_max_budget_usd", "budget_exhausted",
			"Reached maximum budget ($"+strconv.FormatFloat(budget, 'f', -1, 64)+")")
	case rep.outcome == success:
		text := s.render(rep.text)
		s.text(text)
		line.Result = &text
	case rep.outcome == apiError:
		exit = s.apiError(&line, "server_error", 500, apiErrorText)
	case rep.outcome == usageLimit:
		now := time.Now()
		resetAt := time.Unix(now.Add(rep.reset+time.Second-1).Unix(), 0)
		s.rateLimit(resetAt)
		exit = s.apiError(&line, "rate_limit", 429, usageLimitText(resetAt, now))
	case rep.outcome == maxTurns:
		turns, _ := s.req.MaxTurns()
		exit = exhausted(&line, "error_max_turns", "max_turns", fmt.Sprintf("Reached maximum number of turns (%d)", max(turns, 1)))
	}

	cost := s.cost()
	in, out := tokens(len(s.req.Prompt)), tokens(s.output)
	usage := map[string]wire.ModelUsage{s.model: wire.NewModelUsage(s.model, in, out, cost)}
	line.SessionID, line.TotalCostUSD, line.Usage = s.sessionID, cost, wire.NewUsage(in, out)
	line.NumTurns, line.DurationMS = 1, time.Since(s.started).Milliseconds()
	line.ModelUsage, line.SinceLast, line.UUID = usage, &usage, wire.NewUUID()
	s.write(line)
	return s.end(claude.End{ExitCode: exit})
}

// cost is what the step costs: the reply's cost, or 0 for a script step.
func (s *stream) cost() float64 {
	if s.req.Script != nil {
		return 0
	}
	return s.rep.cost
}

// end closes the step as a process ending as e would, through claude's
// own classification.
func (s *stream) end(e claude.End) *claude.Result {
	res := s.dec.Finish(e)
	res.Started = s.started
	if res.SessionID == "" {
		res.SessionID = s.sessionID
	}
	return res
}

// exhausted fills in the result line of a step stopped by one of its own
// limits and returns claude's exit status for it.
func exhausted(line *wire.ResultLine, subtype, terminal, msg string) int {
	line.Subtype, line.IsError, line.Errors = subtype, true, []string{msg}
	line.StopReason, line.TerminalReason, line.APIErrorStatus = ptr("tool_use"), terminal, nil
	return 1
}

// apiErrorText is the message of a scripted API error, worded as Claude
// Code words a 500.
const apiErrorText = "API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment."

// apiError writes the synthetic assistant message Claude Code writes for
// an API error it gave up on, fills in the result line to match and
// returns claude's exit status for it.
func (s *stream) apiError(line *wire.ResultLine, kind string, status int, msg string) int {
	s.write(wire.AssistantLine{
		Type: "assistant",
		Message: wire.AssistantMessage{
			ID: wire.NewUUID(), Type: "message", Role: "assistant", Model: "<synthetic>",
			Content: []wire.Block{wire.TextBlock(msg)}, StopReason: ptr("stop_sequence"), StopSequence: ptr(""),
		},
		SessionID: s.sessionID, UUID: wire.NewUUID(), Timestamp: wire.Timestamp(time.Now()),
		Error: kind, IsAPIErrorMessage: true, APIErrorStatus: status,
	})
	line.IsError, line.Result, line.APIErrorStatus = true, &msg, wire.Status(status)
	line.StopReason, line.TerminalReason = ptr("stop_sequence"), "api_error"
	return 1
}

// rateLimit writes the rate_limit_event Claude Code writes when the usage
// limit rejects a request.
func (s *stream) rateLimit(resetAt time.Time) {
	s.write(wire.RateLimitLine{
		Type:          "rate_limit_event",
		RateLimitInfo: wire.RateLimitInfo{Status: "rejected", ResetsAt: resetAt.Unix(), RateLimitType: "five_hour"},
		SessionID:     s.sessionID, UUID: wire.NewUUID(),
	})
}

// usageLimitText is Claude Code's message for a reached usage limit,
// "You've hit your session limit · resets 3pm", with the reset time in the
// form the CLI uses (see claude.ParseResetTime for the forms it reads).
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

// crashed ends the step as a claude that dies without a result line: exit
// status 1 and a message on stderr naming the reply.
func (s *stream) crashed() *claude.Result {
	msg := fmt.Sprintf("scripted crash: reply %d of %s has outcome crash", s.rep.index, s.list)
	if s.h.OnStderr != nil {
		s.h.OnStderr(msg)
	}
	return s.end(claude.End{ExitCode: 1, Stderr: msg + "\n"})
}

// killed ends the step as a claude stopped by a signal.
func (s *stream) killed(e claude.End) *claude.Result {
	return s.end(e)
}

func (s *stream) text(t string) {
	if t == "" {
		return
	}
	s.output += len(t)
	s.assistant(wire.TextBlock(t))
}

// tool writes a tool_use block and its tool_result.
func (s *stream) tool(t tool) {
	id := wire.NewID("toolu_")
	input, _ := s.renderValue(t.input).(map[string]any)
	s.assistant(wire.ToolUseBlock(id, t.name, input))
	s.write(wire.UserLine{
		Type:      "user",
		Message:   wire.UserMessage{Role: "user", Content: []wire.Block{wire.ToolResultBlock(id, s.render(t.result), t.isError)}},
		SessionID: s.sessionID, UUID: wire.NewUUID(), Timestamp: wire.Timestamp(time.Now()),
	})
}

// assistant writes an assistant message holding one content block.
func (s *stream) assistant(b wire.Block) {
	s.write(wire.AssistantLine{
		Type: "assistant",
		Message: wire.AssistantMessage{
			ID: wire.NewID("msg_"), Type: "message", Role: "assistant", Model: s.model,
			Content: []wire.Block{b}, Usage: wire.MessageUsage{InputTokens: tokens(len(s.req.Prompt)), OutputTokens: 1},
		},
		SessionID: s.sessionID, UUID: wire.NewUUID(), Timestamp: wire.Timestamp(time.Now()),
	})
}

// write encodes v as one stream-json line and passes it to OnLine. Angle
// brackets stay as written, as the CLI writes them, so tags read plainly in
// a transcript.
func (s *stream) write(v any) {
	raw, err := wire.Marshal(v)
	if err != nil {
		// Lines hold strings, finite numbers, booleans, and tool inputs that
		// parsing made of nothing else: encoding them cannot fail.
		panic(fmt.Sprintf("scripted: encode a stream-json line: %v", err))
	}
	if s.h.OnLine != nil {
		s.h.OnLine(raw)
	}
	s.dec.Line(raw)
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

func ptr[T any](v T) *T { return &v }
