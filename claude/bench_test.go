package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchInit is an init line of the size the real CLI writes (about 4 KiB).
func benchInit() string {
	tools := strings.Split("Task Bash Edit Glob Grep NotebookEdit Read TodoWrite WebFetch WebSearch Write", " ")
	commands := make([]string, 60)
	for i := range commands {
		commands[i] = fmt.Sprintf("slash-command-%02d", i)
	}
	line, _ := json.Marshal(map[string]any{
		"type": "system", "subtype": "init", "session_id": "6ba83b8e-1812-467c-be30-af35edfab17b",
		"cwd": "/home/dev/project", "model": "claude-opus-5-5", "permissionMode": "acceptEdits",
		"claude_code_version": "2.1.330", "tools": tools, "slash_commands": commands,
		"skills": commands[:20], "agents": []string{"claude", "Explore", "general-purpose", "Plan"},
		"memory_paths": map[string]string{"auto": "/home/dev/project/.claude/projects/-home-dev-project/memory/"},
	})
	return string(line)
}

func benchAssistant(block map[string]any) string {
	line, _ := json.Marshal(map[string]any{
		"type": "assistant", "session_id": "6ba83b8e-1812-467c-be30-af35edfab17b",
		"uuid": "94410686-2bd9-45fe-8e70-5ad4a9c92411", "parent_tool_use_id": nil,
		"message": map[string]any{
			"id": "msg_a32e0ce0bf244fdba30571d2", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
			"content": []any{block}, "stop_reason": nil,
			"usage": map[string]int{"input_tokens": 1200, "output_tokens": 1, "cache_read_input_tokens": 0},
		},
	})
	return string(line)
}

func benchToolResult(id, content string) string {
	line, _ := json.Marshal(map[string]any{
		"type": "user", "session_id": "6ba83b8e-1812-467c-be30-af35edfab17b",
		"message": map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": id, "content": content, "is_error": false,
		}}},
		"tool_use_result": map[string]any{"stdout": content, "stderr": "", "interrupted": false},
	})
	return string(line)
}

const benchResult = `{"type":"result","subtype":"success","is_error":false,"duration_ms":205,"num_turns":6,` +
	`"result":"All done. <goto>NEXT.md</goto>","session_id":"6ba83b8e-1812-467c-be30-af35edfab17b",` +
	`"total_cost_usd":0.0106,"usage":{"input_tokens":2400,"output_tokens":50,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},` +
	`"modelUsage":{"claude-opus-5-5":{"inputTokens":2400,"outputTokens":50,"costUSD":0.0106}},` +
	`"model_usage_since_last_result":{"claude-opus-5-5":{"inputTokens":2400,"outputTokens":50,"costUSD":0.0106}}}`

// benchStream builds a stream of an init line, texts, tool calls of the
// given sizes and a result line.
func benchStream(texts, tools, inputSize, resultSize int) []byte {
	lines := []string{benchInit()}
	for i := range texts {
		lines = append(lines, benchAssistant(map[string]any{"type": "text",
			"text": fmt.Sprintf("Step %d: looking at the code. <print>progress %d</print> %s", i, i, strings.Repeat("words ", 30))}))
	}
	for i := range tools {
		id := fmt.Sprintf("toolu_%024d", i)
		lines = append(lines,
			benchAssistant(map[string]any{"type": "tool_use", "id": id, "name": "Write", "input": map[string]any{
				"file_path": fmt.Sprintf("/home/dev/project/src/file%d.go", i), "content": strings.Repeat("x := 1\n", inputSize/7),
			}}),
			benchToolResult(id, strings.Repeat("ok line\n", resultSize/8)))
	}
	lines = append(lines, benchResult)
	return []byte(strings.Join(lines, "\n") + "\n")
}

func BenchmarkDecodeStream(b *testing.B) {
	cases := []struct {
		name   string
		stream []byte
	}{
		// 20 lines: init, 8 texts, 5 small tool calls and results, result.
		{"typical", benchStream(8, 5, 200, 400)},
		// 202 lines: 100 tool calls writing 8 KiB each, with 16 KiB results.
		{"tool-heavy", benchStream(0, 100, 8<<10, 16<<10)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.stream)))
			b.ReportAllocs()
			for b.Loop() {
				res := &Result{}
				st := newStream(res, nil)
				lr := newLineReader(bytes.NewReader(tc.stream), maxLine)
				for {
					line, _, err := lr.next()
					if err != nil {
						break
					}
					res.Lines++
					st.decode(line)
				}
				if !res.HasResult {
					b.Fatal("no result decoded")
				}
			}
		})
	}
}
