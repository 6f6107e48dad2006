package claude

import (
	"strings"
	"testing"
)

func TestToolDetail(t *testing.T) {
	long := strings.Repeat("x", maxDetail+5)
	tests := []struct{ name, input, want string }{
		{"Read", `{"file_path":"/x/a.go","offset":3}`, "/x/a.go"},
		{"Bash", `{"command":"go test ./...","description":"Run the tests"}`, "go test ./..."},
		{"Bash on two lines", `{"command":"echo one\necho two","description":"Print"}`, "echo one …"},
		{"trailing blank lines", `{"command":"make\n\n  \n"}`, "make"},
		{"long first line", `{"command":"` + long + `\nnext"}`, strings.Repeat("x", maxDetail-1) + "…"},
		{"WebFetch", `{"prompt":"summarise","url":"https://example.com"}`, "https://example.com"},
		{"Task", `{"description":"Find the tests","prompt":"Look for…","subagent_type":"Explore"}`, "Find the tests (Explore)"},
		{"Task without a type", `{"description":"Find the tests","prompt":"Look"}`, "Find the tests"},
		{"Task without a description", `{"prompt":"Look around","subagent_type":"Explore"}`, "Explore"},
		{"TodoWrite, one", `{"todos":[{"content":"Write the parser","status":"pending"}]}`, "1 todo: Write the parser"},
		{"TodoWrite, three", `{"todos":[{"content":"a"},{"content":"b"},{"content":"c"}]}`, "3 todos: a"},
		{"TodoWrite, none", `{"todos":[]}`, ""},
		{"MCP tool", `{"owner":"me","repo":"raymond","count":2}`, "me"},
		{"MCP tool, first string not blank", `{"n":1,"body":"  ","title":"Bug\nmore"}`, "Bug …"},
		{"MCP tool, nested only", `{"filter":{"state":"open"},"ids":[1,2]}`, ""},
		{"mistyped known argument", `{"command":5,"title":"x"}`, "x"},
		{"not an object", `"just text"`, ""},
		{"not JSON", `{broken`, ""},
		{"empty", ``, ""},
	}
	for _, tc := range tests {
		eq(t, tc.name, ToolDetail([]byte(tc.input)), tc.want)
	}
}

// A tool_use whose input holds a mistyped argument still decodes, and the
// rest of its line is used.
func TestToolUseMistypedInput(t *testing.T) {
	stdout := `{"type":"assistant","message":{"model":"m","content":[{"type":"tool_use","id":"t1","name":"mcp__gh__issue","input":{"command":[1],"title":"Bug"}},{"type":"text","text":"done"}]}}`
	_, events := decodeOutput(t, stdout, "", 0)
	if len(events) != 2 {
		t.Fatalf("events = %+v, want a tool use and a text", events)
	}
	eq(t, "tool use", events[0], Event{Kind: EventToolUse, Tool: "mcp__gh__issue", Detail: "Bug", ToolID: "t1"})
	eq(t, "text", events[1], Event{Kind: EventText, Text: "done"})
}
