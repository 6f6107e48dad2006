package claude

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", maxDetail+10)
	tests := []struct{ in, want string }{
		{"", ""},
		{"  plain  ", "plain"},
		{"\n\n  second line first\nthird", "second line first"},
		{long, strings.Repeat("é", maxDetail-1) + "…"},
		{strings.Repeat("x", maxDetail), strings.Repeat("x", maxDetail)},
	}
	for _, tc := range tests {
		eq(t, "oneLine", oneLine(tc.in), tc.want)
	}
}

func TestDecodeOddLines(t *testing.T) {
	stdout := strings.Join([]string{
		`not json at all`,
		`{"type":"system","subtype":"init","session_id":"s1","model":"m","claude_code_version":"9.9.9","tools":7}`,
		`{"type":"something_new","session_id":"s1"}`,
		`{"type":"assistant","message":{"model":"m","content":[{"type":"thinking","thinking":"hmm"},{"type":"tool_use","id":"t1","name":"Grep","input":{"pattern":"TODO\nFIXME","path":"src"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a.go:1: TODO"},{"type":"image"}]}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"unknown","content":{"odd":true},"is_error":true}]}}`,
		`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1763700000000,"rateLimitType":"five_hour"}}`,
		`{"type":"rate_limit_event"}`,
		`{"type":"assistant","message":null}`,
		`{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s1","total_cost_usd":"free","num_turns":2,"errors":["x",{"code":1}]}`,
		`{broken`,
	}, "\n")
	r, events := decodeOutput(t, stdout, "", 0)
	eq(t, "Outcome", r.Outcome, Success)
	eq(t, "SessionID", r.SessionID, "s1")
	eq(t, "Version", r.Version, "9.9.9")
	eq(t, "NumTurns despite a mistyped cost", r.NumTurns, 2)
	eq(t, "Errors", r.Errors, []string{"x", `{"code":1}`})
	eq(t, "Lines", r.Lines, 11)
	eq(t, "kinds", kinds(events), []EventKind{EventInit, EventToolUse, EventToolResult, EventToolResult, EventRateLimit})
	eq(t, "tool use", events[1], Event{Kind: EventToolUse, Tool: "Grep", Detail: "TODO …", ToolID: "t1"})
	eq(t, "tool result", events[2], Event{Kind: EventToolResult, Tool: "Grep", Text: "a.go:1: TODO", Detail: "a.go:1: TODO", ToolID: "t1"})
	eq(t, "odd tool result", events[3], Event{Kind: EventToolResult, IsError: true, Text: `{"odd":true}`, Detail: `{"odd":true}`, ToolID: "unknown"})
	eq(t, "reset in milliseconds", events[4].ResetAt.Unix(), int64(1763700000))
}

// Only a rate_limit_event that rejected the call sets the step's reset time;
// an "allowed" one merely announces when the window rolls over.
func TestRateLimitEventStatus(t *testing.T) {
	usage := `{"type":"result","subtype":"success","is_error":true,"result":"You've hit your session limit · resets 3pm","session_id":"s1"}`
	allowed := `{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1763700000,"rateLimitType":"five_hour"}}`
	rejected := `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1763703600,"rateLimitType":"five_hour"}}`

	r, _ := decodeOutput(t, allowed+"\n"+usage, "", 1)
	eq(t, "Outcome", r.Outcome, UsageLimit)
	if r.ResetAt.Unix() == 1763700000 {
		t.Errorf("ResetAt came from an allowed event: %v", r.ResetAt)
	}
	r, _ = decodeOutput(t, allowed+"\n"+rejected+"\n"+usage, "", 1)
	eq(t, "ResetAt from the rejected event", r.ResetAt.Unix(), int64(1763703600))
}

// TestStreamOpenTools: a tool call is outstanding from its tool_use to its
// tool_result, matched by id; the latest outstanding one is named.
func TestStreamOpenTools(t *testing.T) {
	st := newStream(&Result{}, nil)
	feed := func(line string) { st.decode([]byte(line)) }
	feed(`{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"npm test"}}]}}`)
	eq(t, "busy after a tool_use", st.busy(), true)
	eq(t, "running", st.running(), "Bash (npm test)")
	feed(`{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"a.go"}}]}}`)
	eq(t, "running, two open", st.running(), "Read (a.go)")
	feed(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"x"}]}}`)
	eq(t, "running after the second answered", st.running(), "Bash (npm test)")
	feed(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"nope","content":"x"}]}}`)
	eq(t, "busy after an unknown tool_result", st.busy(), true)
	feed(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}}`)
	eq(t, "busy after every result", st.busy(), false)
	eq(t, "running after every result", st.running(), "")
}

// TestModelFallbackLine: the line the real CLI 2.1.330 writes when it takes
// --fallback-model after three 529s (captured against the stand-in).
func TestModelFallbackLine(t *testing.T) {
	var events []Event
	d := NewDecoder(func(e Event) { events = append(events, e) })
	d.Line([]byte(`{"type":"system","subtype":"model_fallback","uuid":"6117162b-f0e2-4c8e-b996-e92eb468a885","trigger":"overloaded","original_model":"claude-opus-5-5","fallback_model":"claude-sonnet-5-5","content":"Switched to Sonnet 5.5 due to high demand for Opus 5.5","session_id":"d7df2b34-1f28-4a72-ba81-ee1b287651a7"}`))
	res := d.Result()
	if len(res.FellBack) != 1 || res.FellBack[0] != "claude-sonnet-5-5" {
		t.Fatalf("FellBack = %q", res.FellBack)
	}
	if len(events) != 1 || events[0].Kind != EventFallback || events[0].From != "claude-opus-5-5" || events[0].Model != "claude-sonnet-5-5" || events[0].ErrorKind != "overloaded" {
		t.Fatalf("events = %+v", events)
	}
}
