package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestBlocksAsCaptured checks that content blocks read from a real capture
// are written back byte for byte: the same fields in the same order.
func TestBlocksAsCaptured(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "claude", "tool-use.stream.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	seen := map[string]bool{}
	for sc.Scan() {
		var line struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		raw := line.Message.Content
		if len(raw) == 0 || raw[0] != '[' {
			continue
		}
		var blocks []Block
		if err := json.Unmarshal(raw, &blocks); err != nil {
			t.Fatal(err)
		}
		got, err := Marshal(blocks)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, raw) {
			t.Errorf("content written as\n%s\nnot as captured\n%s", got, raw)
		}
		for _, b := range blocks {
			seen[b.Type] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"text", "tool_use", "tool_result"} {
		if !seen[kind] {
			t.Errorf("the capture has no %s block to compare", kind)
		}
	}
}

// TestBlockConstructors checks what the constructors write for the edge
// cases the CLI writes too: an empty tool input and an empty tool result.
func TestBlockConstructors(t *testing.T) {
	tests := []struct {
		block Block
		want  string
	}{
		{TextBlock("a <b> & c"), `{"type":"text","text":"a <b> & c"}`},
		{ToolUseBlock("toolu_1", "Read", nil), `{"type":"tool_use","id":"toolu_1","name":"Read","input":{}}`},
		{ToolResultBlock("toolu_1", "", true), `{"tool_use_id":"toolu_1","type":"tool_result","content":"","is_error":true}`},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.block)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}
