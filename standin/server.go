package standin

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Server is the stand-in: an http.Handler that answers the Messages API from
// its rules and logs every request. It is safe for concurrent use.
type Server struct {
	rules *Rules

	mu    sync.Mutex
	log   io.Writer
	n     int               // answers given, for message and tool ids
	turns map[string]turnAt // tool_use id: the reply whose turn it belongs to
}

// turnAt is a reply's turn after its round-th round of tool calls.
type turnAt struct {
	reply *Reply
	round int
}

// New returns a server answering from rules and logging each request as a
// JSON line to log (nil: no log).
func New(rules *Rules, log io.Writer) *Server {
	if rules == nil {
		rules = &Rules{}
	}
	return &Server{rules: rules, log: log, turns: map[string]turnAt{}}
}

// Entry is one line of the request log.
type Entry struct {
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Model, Stream, Side and Prompt are read from a /v1/messages request.
	Model  string `json:"model,omitempty"`
	Stream bool   `json:"stream,omitempty"`
	Side   bool   `json:"side,omitempty"`
	Prompt string `json:"prompt,omitempty"`
	// ToolResults counts the tool results the request carries back.
	ToolResults int `json:"tool_results,omitempty"`
	// Rule names the rule that answered ("" for none, "default", "turn" for
	// the rest of a tool round trip).
	Rule string `json:"rule,omitempty"`
	// Status is the HTTP status answered.
	Status int `json:"status"`
	// Headers are the request's headers that say who asks (user-agent,
	// anthropic-beta, x-app); never the key.
	Headers map[string]string `json:"headers,omitempty"`
	// Body is the request body as sent.
	Body json.RawMessage `json:"body,omitempty"`
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e := &Entry{Time: time.Now().UTC(), Method: r.Method, Path: r.URL.Path, Headers: map[string]string{}}
	for _, h := range []string{"User-Agent", "Anthropic-Beta", "Anthropic-Version", "X-App"} {
		if v := r.Header.Get(h); v != "" {
			e.Headers[strings.ToLower(h)] = v
		}
	}
	if json.Valid(body) {
		e.Body = body
	} else if len(body) > 0 {
		e.Body, _ = json.Marshal(string(body))
	}
	defer s.record(e)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.messages(w, r, body, e)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		// An estimate is all the CLI needs: about four bytes a token.
		e.Status = http.StatusOK
		writeJSON(w, e.Status, map[string]int{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodHead || r.Method == http.MethodGet && r.URL.Path == "/":
		e.Status = http.StatusOK
		w.WriteHeader(e.Status)
	default:
		e.Status = http.StatusNotFound
		writeError(w, e.Status, nil, "not_found_error", "stand-in: no route "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) record(e *Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.log == nil {
		return
	}
	line, err := json.Marshal(e)
	if err != nil {
		return
	}
	_, _ = s.log.Write(append(line, '\n'))
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request, body []byte, e *Entry) {
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		e.Status = http.StatusBadRequest
		writeError(w, e.Status, nil, "invalid_request_error", "stand-in: "+err.Error())
		return
	}
	e.Model, e.Stream, e.Side, e.Prompt = req.Model, req.Stream, req.side(), req.prompt()
	results := req.toolResults()
	e.ToolResults = len(results)

	reply, final, round := s.pick(&req, results, e)
	if reply == nil {
		e.Status = http.StatusBadRequest
		writeError(w, e.Status, nil, "invalid_request_error", fmt.Sprintf("stand-in: no rule answers the prompt %q", e.Prompt))
		return
	}
	if reply.delay > 0 {
		select {
		case <-time.After(reply.delay):
		case <-r.Context().Done():
			e.Status = 499
			return
		}
	}
	if reply.Hang {
		<-r.Context().Done()
		e.Status = 499
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		e.Status = reply.Status
		writeError(w, reply.Status, reply.Headers, reply.ErrorType, reply.ErrorMessage)
		return
	}
	m := s.message(&req, reply, final, round)
	e.Status = http.StatusOK
	for k, v := range reply.Headers {
		w.Header().Set(k, v)
	}
	if req.Stream {
		writeStream(w, m)
		return
	}
	writeJSON(w, http.StatusOK, m)
}

// pick finds the reply to a request: the reply whose tool calls the request
// answers (final is then true, unless the reply makes its calls for more
// Rounds), else the first matching rule's, else the default. round is the
// round of tool calls the answer makes, from 1.
func (s *Server) pick(req *request, results []string, e *Entry) (reply *Reply, final bool, round int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range results {
		if t, ok := s.turns[id]; ok {
			e.Rule = "turn"
			return t.reply, t.round >= max(t.reply.Rounds, 1), t.round + 1
		}
	}
	if rule, rep := s.rules.take(req); rep != nil {
		e.Rule = rule.Name
		return rep, false, 1
	}
	if s.rules.Default != nil && !req.side() {
		e.Rule = "default"
		return s.rules.Default, false, 1
	}
	if req.side() {
		// A side request nobody scripted gets a short answer, so that the
		// CLI's titles and checks never stand in a test's way.
		e.Rule = "side"
		return &Reply{Text: "ok", Usage: &Usage{InputTokens: 10, OutputTokens: 1}}, false, 1
	}
	return nil, false, 0
}

// msg is a Messages API message.
type msg struct {
	ID           string           `json:"id"`
	Type         string           `json:"type"`
	Role         string           `json:"role"`
	Model        string           `json:"model"`
	Content      []map[string]any `json:"content"`
	StopReason   string           `json:"stop_reason"`
	StopSequence *string          `json:"stop_sequence"`
	Usage        Usage            `json:"usage"`
}

// message builds the answer of reply: its tool calls at the start of a turn,
// its text at the end.
func (s *Server) message(req *request, reply *Reply, final bool, round int) *msg {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	m := &msg{ID: fmt.Sprintf("msg_standin_%04d", s.n), Type: "message", Role: "assistant",
		Model: req.Model, StopReason: "end_turn", Usage: defaultUsage}
	if reply.Model != "" {
		m.Model = reply.Model
	}
	if reply.Usage != nil {
		m.Usage = *reply.Usage
	}
	if final || len(reply.Tools) == 0 {
		m.Content = []map[string]any{{"type": "text", "text": reply.Text}}
		return m
	}
	if reply.Say != "" {
		m.Content = append(m.Content, map[string]any{"type": "text", "text": reply.Say})
	}
	for i, t := range reply.Tools {
		id := fmt.Sprintf("toolu_standin_%04d_%d", s.n, i)
		s.turns[id] = turnAt{reply: reply, round: round}
		input := t.Input
		if input == nil {
			input = map[string]any{}
		}
		m.Content = append(m.Content, map[string]any{"type": "tool_use", "id": id, "name": t.Name, "input": input})
	}
	m.StopReason = "tool_use"
	return m
}

// errorTypes are the API's error types by HTTP status.
var errorTypes = map[int]string{
	400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
	404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
	500: "api_error", 529: "overloaded_error",
}

func writeError(w http.ResponseWriter, status int, headers map[string]string, kind, text string) {
	if kind == "" {
		kind = errorTypes[status]
		if kind == "" {
			kind = "api_error"
		}
	}
	if text == "" {
		text = http.StatusText(status)
	}
	for k, v := range headers {
		w.Header().Set(k, v)
	}
	writeJSON(w, status, map[string]any{"type": "error", "error": map[string]string{"type": kind, "message": text}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", "req_standin")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
