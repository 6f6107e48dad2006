package fakeclaude

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"time"

	"raymond/claude/wire"
	"raymond/permission"
)

// emitter writes stdout in the chosen output format: stream-json writes every line,
// json only the result object, text only the result text. Each line goes out in one
// Write, so a consumer waiting on lines sees each as soon as it is produced. The first
// write error is kept and everything after it dropped.
type emitter struct {
	w      io.Writer
	format string
	err    error
}

func (e *emitter) streaming() bool { return e.format == "stream-json" }

// line writes v as a JSON line when streaming.
func (e *emitter) line(v any) {
	if e.streaming() {
		e.json(v)
	}
}

// result writes the result line, or what stands for it in the chosen format.
func (e *emitter) result(r *wire.ResultLine) {
	if e.format == "text" {
		if r.Result != nil {
			e.raw(*r.Result)
		}
		return
	}
	e.json(r)
}

// json writes v as one line, leaving <, > and & as they are, as the real CLI does.
func (e *emitter) json(v any) {
	line, err := wire.Marshal(v)
	if err != nil {
		if e.err == nil {
			e.err = err
		}
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(append(line, '\n'))
	}
}

// raw writes s and a newline.
func (e *emitter) raw(s string) {
	if e.err != nil {
		return
	}
	_, e.err = io.WriteString(e.w, s+"\n")
}

// emitInit writes the init line that opens every turn.
func (t *turn) emitInit() {
	t.inited = true
	tools := defaultTools
	if t.opts.toolsGiven {
		tools = splitTools(t.opts.tools)
	}
	deny := splitTools(t.opts.disallowed)
	tools = slices.DeleteFunc(slices.Clone(tools), func(s string) bool { return slices.Contains(deny, s) })
	mode := t.opts.permissionMode
	switch {
	case mode == "" && t.opts.skipPerms:
		mode = "bypassPermissions"
	case mode == "":
		mode = "default"
	}
	dirs := t.opts.addDirs
	if dirs == nil {
		dirs = []string{}
	}
	t.out.line(wire.InitLine{
		Type: "system", Subtype: "init", Cwd: t.inv.cwd, SessionID: t.sessionID,
		Tools: tools, MCPServers: t.initServers(), Model: t.model, PermissionMode: mode,
		SlashCommands: []string{"clear", "compact", "config", "context", "init", "review"},
		APIKeySource:  t.keySource(), ClaudeCodeVersion: t.version, OutputStyle: "default",
		Agents: []string{"claude", "Explore", "general-purpose", "Plan"}, Skills: []string{},
		Plugins: []any{}, UUID: wire.NewUUID(),
		MemoryPaths:    map[string]string{"auto": projectDir(t.inv.cwd+"/.claude", t.inv.cwd) + "/memory/"},
		OriginalCwd:    t.inv.cwd,
		AdditionalDirs: dirs, FastModeState: "off",
	})
}

// splitTools flattens tool lists given as several words, commas or spaces,
// keeping a rule's parenthesised part whole: "Bash(git log:*)" is one rule.
func splitTools(words []string) []string {
	var out []string
	for _, w := range words {
		rules, err := permission.Split(w)
		if err != nil {
			rules = []string{w} // as written: the real CLI does not refuse it either
		}
		out = append(out, rules...)
	}
	return out
}

// assistant builds an assistant line holding one content block.
func (t *turn) assistant(block wire.Block) wire.AssistantLine {
	t.saidUUID = wire.NewUUID()
	return wire.AssistantLine{
		Type: "assistant",
		Message: wire.AssistantMessage{
			ID: wire.NewID("msg_"), Type: "message", Role: "assistant", Model: t.model,
			Content: []wire.Block{block},
			Usage:   wire.MessageUsage{InputTokens: 1200, OutputTokens: 1},
		},
		SessionID: t.sessionID, UUID: t.saidUUID, Timestamp: timestamp(), RequestID: wire.NewID("req_"),
	}
}

// say is the lines of one assistant text message: with --include-partial-messages,
// wrapped in the stream events that carry it.
func (t *turn) say(text string) []any {
	msg := t.assistant(wire.TextBlock(text))
	if !t.opts.partial {
		return []any{msg}
	}
	event := func(e map[string]any) any {
		return map[string]any{"type": "stream_event", "event": e, "session_id": t.sessionID,
			"parent_tool_use_id": nil, "uuid": wire.NewUUID(), "api_message_id": msg.Message.ID}
	}
	start := msg.Message
	start.Content = []wire.Block{}
	return []any{
		event(map[string]any{"type": "message_start", "message": start}),
		event(map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}}),
		event(map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": text}}),
		msg,
		event(map[string]any{"type": "content_block_stop", "index": 0}),
		event(map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": 25}}),
		event(map[string]any{"type": "message_stop"}),
	}
}

// toolUse is the assistant line calling tool; withResult adds the user line with the
// tool's result.
func (t *turn) toolUse(tool Tool, withResult bool) []any {
	id := wire.NewID("toolu_")
	input, _ := jsonable(tool.Input).(map[string]any)
	use := t.assistant(wire.ToolUseBlock(id, tool.Name, input))
	if !withResult {
		return []any{use}
	}
	lines := []any{use}
	if text, refused := refusal(tool); refused {
		tool.Result, tool.Error, tool.Run = text, true, ""
	}
	if tool.Run != "" {
		lines = append(lines, command(tool.Run))
	}
	result := wire.UserLine{
		Type:      "user",
		Message:   wire.UserMessage{Role: "user", Content: []wire.Block{wire.ToolResultBlock(id, tool.Result, tool.Error)}},
		SessionID: t.sessionID, UUID: wire.NewUUID(), Timestamp: timestamp(),
	}
	if tool.Error {
		result.ToolUseResult = "Error: " + tool.Result
	} else {
		result.ToolUseResult = map[string]any{"stdout": tool.Result, "stderr": "", "interrupted": false,
			"isImage": false, "noOutputExpected": false}
	}
	return append(lines, result)
}

// sleepBlocked is how the real CLI's Bash tool answers a command that is a
// standalone sleep, whatever --allowedTools allows: it wants waits done by a
// Monitor with a condition, not by the model sleeping.
// The real text goes on after "use Monitor"; its start is what was seen.
const sleepBlocked = "Blocked: standalone sleep %s. To wait for a condition, use Monitor."

// standaloneSleep matches a Bash command that is nothing but `sleep N`.
var standaloneSleep = regexp.MustCompile(`^\s*sleep\s+([0-9]+(?:\.[0-9]+)?[smhd]?)\s*;?\s*$`)

// refusal is the tool result the real CLI gives instead of running tool, if
// it refuses it: a standalone sleep in Bash.
func refusal(tool Tool) (string, bool) {
	if tool.Name != "Bash" {
		return "", false
	}
	command, _ := tool.Input["command"].(string)
	m := standaloneSleep.FindStringSubmatch(command)
	if m == nil {
		return "", false
	}
	return fmt.Sprintf(sleepBlocked, m[1]), true
}

// systemSubtypes are the system lines a reply's system field may stream.
var systemSubtypes = []string{"informational", "task_started", "task_notification"}

// systemLine is a system line of a subtype the real CLI was seen to write
// besides init and api_retry; raymond must pass over it. It carries the
// fields every line has.
func (t *turn) systemLine(subtype string) map[string]any {
	return map[string]any{"type": "system", "subtype": subtype, "session_id": t.sessionID, "uuid": wire.NewUUID()}
}

// command is a tool's shell command among the lines of a reply: run, not
// written.
type command string

// synthetic is the assistant message the CLI makes up to report a failed API call.
func (t *turn) synthetic(text string, e apiError) wire.AssistantLine {
	line := wire.AssistantLine{
		Type: "assistant",
		Message: wire.AssistantMessage{
			ID: wire.NewUUID(), Type: "message", Role: "assistant", Model: "<synthetic>",
			Content:    []wire.Block{wire.TextBlock(text)},
			StopReason: ptr("stop_sequence"), StopSequence: ptr(""),
		},
		SessionID: t.sessionID, UUID: wire.NewUUID(), Timestamp: timestamp(), RequestID: wire.NewID("req_"),
		Error: e.kind, IsAPIErrorMessage: true, APIErrorStatus: e.status, APIErrorType: e.typ,
	}
	if e.status == 0 { // no request was made
		line.RequestID = ""
	}
	return line
}

func (t *turn) apiRetry(e apiError) wire.APIRetryLine {
	return wire.APIRetryLine{Type: "system", Subtype: "api_retry", Attempt: 1, MaxRetries: 1,
		RetryDelayMS: 600, ErrorStatus: e.status, Error: e.kind, SessionID: t.sessionID, UUID: wire.NewUUID()}
}

// keyRetries are the CLI's retries of a refused API key: keyRetries api_retry
// lines whose announced delays grow from 500 ms to 32 s, as the real ones do.
// The fake waits FAKE_CLAUDE_RETRY_DELAY (default none) after each instead.
func (t *turn) keyRetries(e apiError) []any {
	var wait time.Duration
	if v, _ := t.inv.getenv("FAKE_CLAUDE_RETRY_DELAY"); v != "" {
		wait, _ = time.ParseDuration(v)
	}
	var lines []any
	for i := 1; i <= keyRetries; i++ {
		l := t.apiRetry(e)
		l.Attempt, l.MaxRetries, l.RetryDelayMS = i, keyRetries, min(500<<(i-1), 32000)
		lines = append(lines, l, pause(wait))
	}
	return lines
}

// pause is a wait among the lines of a reply: slept, not written.
type pause time.Duration

// keySource is the init line's apiKeySource: ANTHROPIC_API_KEY when that
// variable holds a key, else none (a login, which the fake does not have).
func (t *turn) keySource() string {
	if v, _ := t.inv.getenv("ANTHROPIC_API_KEY"); v != "" {
		return "ANTHROPIC_API_KEY"
	}
	return "none"
}

func (t *turn) rateLimitEvent() wire.RateLimitLine {
	status := t.reply.RateLimitStatus
	if status == "" {
		status = "rejected"
	}
	return wire.RateLimitLine{Type: "rate_limit_event", SessionID: t.sessionID, UUID: wire.NewUUID(),
		RateLimitInfo: wire.RateLimitInfo{Status: status, ResetsAt: t.reply.RateLimitReset, RateLimitType: "five_hour"}}
}

// interruptLine is what the CLI writes when SIGINT stops a turn.
func (t *turn) interruptLine() wire.UserLine {
	return wire.UserLine{
		Type:      "user",
		Message:   wire.UserMessage{Role: "user", Content: []wire.Block{wire.TextBlock("[Request interrupted by user]")}},
		SessionID: t.sessionID, UUID: wire.NewUUID(), Timestamp: timestamp(),
	}
}

func timestamp() string { return wire.Timestamp(time.Now()) }
