package standin

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// writeStream sends m as the API streams a message: message_start, a ping,
// each content block as start, one delta and stop, message_delta with the
// stop reason and usage, message_stop.
func writeStream(w http.ResponseWriter, m *msg) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Request-Id", "req_standin")
	w.WriteHeader(http.StatusOK)
	start := *m
	start.Content = []map[string]any{}
	start.StopReason = ""
	start.Usage.OutputTokens = 1
	startJSON := map[string]any{"type": "message_start", "message": start}
	// The API streams stop_reason null until message_delta.
	if b, err := json.Marshal(start); err == nil {
		var raw map[string]any
		_ = json.Unmarshal(b, &raw)
		raw["stop_reason"] = nil
		startJSON["message"] = raw
	}
	event(w, "message_start", startJSON)
	event(w, "ping", map[string]any{"type": "ping"})
	for i, b := range m.Content {
		switch b["type"] {
		case "text":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		case "tool_use":
			event(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": b["name"], "input": map[string]any{}}})
			input, _ := json.Marshal(b["input"])
			event(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
		}
		event(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	event(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": m.StopReason, "stop_sequence": nil}, "usage": m.Usage})
	event(w, "message_stop", map[string]any{"type": "message_stop"})
}

func event(w http.ResponseWriter, name string, v any) {
	data, _ := json.Marshal(v)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
