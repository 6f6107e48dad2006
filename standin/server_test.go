package standin

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func serve(t *testing.T, rulesJSON string) (*httptest.Server, *bytes.Buffer) {
	t.Helper()
	rules, err := ParseRules([]byte(rulesJSON))
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	srv := httptest.NewServer(New(rules, &log))
	t.Cleanup(srv.Close)
	return srv, &log
}

func post(t *testing.T, srv *httptest.Server, path, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// events reads an SSE stream into its events' names and data.
func events(t *testing.T, r io.Reader) (names []string, data []map[string]any) {
	t.Helper()
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			var m map[string]any
			if err := json.Unmarshal([]byte(d), &m); err != nil {
				t.Fatalf("data %s: %v", d, err)
			}
			data = append(data, m)
		}
	}
	return names, data
}

const tools = `"tools":[{"name":"Bash"}]`

func TestStreamedText(t *testing.T) {
	srv, _ := serve(t, `{"rules":[{"prompt":"^hello","replies":[{"text":"Hi <result>ok</result>","usage":{"input_tokens":1000,"output_tokens":100}}]}]}`)
	resp := post(t, srv, "/v1/messages", `{"model":"claude-opus-5-5","stream":true,`+tools+`,"messages":[{"role":"user","content":"hello there"}]}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	names, data := events(t, resp.Body)
	want := []string{"message_start", "ping", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Fatalf("events %v, want %v", names, want)
	}
	start := data[0]["message"].(map[string]any)
	if start["model"] != "claude-opus-5-5" || start["stop_reason"] != nil || start["usage"].(map[string]any)["input_tokens"] != 1000.0 {
		t.Errorf("message_start %v", start)
	}
	if d := data[3]["delta"].(map[string]any); d["text"] != "Hi <result>ok</result>" {
		t.Errorf("delta %v", d)
	}
	md := data[5]
	if md["delta"].(map[string]any)["stop_reason"] != "end_turn" || md["usage"].(map[string]any)["output_tokens"] != 100.0 {
		t.Errorf("message_delta %v", md)
	}
}

func TestToolRoundTripAndSequence(t *testing.T) {
	srv, log := serve(t, `{"rules":[{"name":"work","prompt":"^Worker (?P<item>\\w+):","replies":[
		{"say":"Writing {{item}}.","tools":[{"name":"Bash","input":{"command":"echo {{item}} > {{item}}.txt"}}],"text":"<result>{{item}} done</result>"},
		{"text":"second"}]}]}`)
	resp := post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"Worker a: go"}]}]}`)
	var m struct {
		Content []struct {
			Type, ID, Name, Text string
			Input                map[string]any
		}
		StopReason string `json:"stop_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 2 || m.Content[0].Text != "Writing a." || m.Content[1].Type != "tool_use" ||
		m.Content[1].Input["command"] != "echo a > a.txt" || m.StopReason != "tool_use" {
		t.Fatalf("first answer %+v", m)
	}
	// The tool's result comes back, followed by a message of the CLI's own:
	// the same turn ends with the reply's text.
	cont := `{"model":"m",` + tools + `,"messages":[{"role":"user","content":"Worker a: go"},
		{"role":"assistant","content":[{"type":"tool_use","id":"` + m.Content[1].ID + `","name":"Bash","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + m.Content[1].ID + `","content":"ok"}]},
		{"role":"system","content":[{"type":"text","text":"USD budget: $0/$1"}]}]}`
	resp = post(t, srv, "/v1/messages", cont)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"text":"\u003cresult\u003ea done\u003c/result\u003e"`) {
		t.Errorf("continuation %s", body)
	}
	// The next turn takes the rule's next reply; then the rule is used up.
	resp = post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":"Worker b: go"}]}`)
	body, _ = io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"text":"second"`) {
		t.Errorf("second turn %s", body)
	}
	resp = post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":"Worker c: go"}]}`)
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a used-up rule answered %d", resp.StatusCode)
	}
	var rules []string
	for line := range bytes.Lines(log.Bytes()) {
		var e Entry
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatal(err)
		}
		rules = append(rules, e.Rule)
	}
	if strings.Join(rules, ",") != "work,turn,work," {
		t.Errorf("logged rules %q", rules)
	}
}

func TestErrorsAndRoutes(t *testing.T) {
	srv, _ := serve(t, `{"rules":[{"prompt":"limit","replies":[{"status":429,"headers":{"anthropic-ratelimit-unified-status":"rejected","x-should-retry":"false"}}]}],
		"default":{"status":401,"error_message":"invalid x-api-key"}}`)
	resp := post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":"limit"}]}`)
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 429 || resp.Header.Get("anthropic-ratelimit-unified-status") != "rejected" ||
		!strings.Contains(string(body), `"type":"rate_limit_error"`) {
		t.Errorf("429: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	resp = post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":"other"}]}`)
	body, _ = io.ReadAll(resp.Body)
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"type":"authentication_error"`) || !strings.Contains(string(body), `"message":"invalid x-api-key"`) {
		t.Errorf("default: %d %s", resp.StatusCode, body)
	}
	// A side request (no tools) nobody scripted gets a short answer.
	resp = post(t, srv, "/v1/messages", `{"model":"claude-haiku-5-5","messages":[{"role":"user","content":"title?"}]}`)
	if resp.StatusCode != 200 {
		t.Errorf("side request: %d", resp.StatusCode)
	}
	resp = post(t, srv, "/v1/messages/count_tokens", `{"model":"m","messages":[{"role":"user","content":"count me"}]}`)
	var n struct {
		InputTokens int `json:"input_tokens"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&n); err != nil || n.InputTokens <= 0 {
		t.Errorf("count_tokens: %v %+v", err, n)
	}
	resp = post(t, srv, "/v1/unknown", `{}`)
	if resp.StatusCode != 404 {
		t.Errorf("unknown route: %d", resp.StatusCode)
	}
}

func TestFollowUp(t *testing.T) {
	srv, _ := serve(t, `{"follow_up":"^Your last answer","rules":[{"prompt":"^Pick","replies":[{"text":"no tag"},{"text":"<goto>A.md</goto>"}]}]}`)
	post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":"Pick one"}]}`)
	resp := post(t, srv, "/v1/messages", `{"model":"m",`+tools+`,"messages":[{"role":"user","content":"Pick one"},
		{"role":"assistant","content":"no tag"},{"role":"user","content":"Your last answer could not be used"}]}`)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `A.md`) {
		t.Errorf("the reminder did not take its state's next reply: %d %s", resp.StatusCode, body)
	}
}

func TestParseRulesErrors(t *testing.T) {
	for _, bad := range []string{
		`{"rules":[{"prompt":"(","replies":[{"text":"x"}]}]}`,
		`{"rules":[{"prompt":"x"}]}`,
		`{"rules":[{"replies":[{"delay":"soon"}]}]}`,
		`{"rules":[{"replies":[{"tools":[{"input":{}}]}]}]}`,
		`{"follow_up":"(","rules":[]}`,
		`{"rules":`,
	} {
		if _, err := ParseRules([]byte(bad)); err == nil {
			t.Errorf("ParseRules(%s) took it", bad)
		}
	}
}

// A reply with rounds makes its tool calls again for each request that
// brings their results back, as a model stuck in a loop does, and gives
// its text after the last round.
func TestToolRounds(t *testing.T) {
	srv, _ := serve(t, `{"rules":[{"prompt":"^Loop","replies":[{"tools":[{"name":"Bash","input":{"command":"ls"}}],"rounds":3,"text":"done"}]}]}`)
	type answer struct {
		Content []struct{ Type, ID, Text string }
	}
	ask := func(body string) answer {
		t.Helper()
		var a answer
		if err := json.NewDecoder(post(t, srv, "/v1/messages", body).Body).Decode(&a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	back := func(a answer) answer { // the result of a's tool call comes back
		return ask(`{"model":"m",` + tools + `,"messages":[{"role":"user","content":"Loop on ls"},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + a.Content[0].ID + `","content":"a.go"}]}]}`)
	}
	a := ask(`{"model":"m",` + tools + `,"messages":[{"role":"user","content":"Loop on ls"}]}`)
	for round := 1; round <= 3; round++ {
		if len(a.Content) != 1 || a.Content[0].Type != "tool_use" {
			t.Fatalf("round %d: %+v, want a tool call", round, a)
		}
		a = back(a)
	}
	if len(a.Content) != 1 || a.Content[0].Text != "done" {
		t.Errorf("after the third round: %+v, want the text", a)
	}
}
