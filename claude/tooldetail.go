package claude

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ToolDetail returns what EventToolUse.Detail holds for a tool_use input
// given as JSON: its most telling argument (file path, command, pattern,
// URL, a Task's description, a TodoWrite's todos, else the first string
// argument, as for an MCP tool) on one line, " …" marking lines left out;
// "" when it has none or is not a JSON object.
func ToolDetail(input []byte) string {
	var in toolInput
	if json.Unmarshal(input, &in) != nil {
		return ""
	}
	return in.detail()
}

// toolInput holds the tool arguments worth showing; the rest (file
// contents, edits) is skipped without being kept.
type toolInput struct {
	toolArgs
	// first is the first non-blank string argument, for tools whose
	// arguments are not known (MCP tools).
	first string
	// raw is the input as written on the line: valid only while the line
	// is decoded (the loop check reads it then).
	raw []byte
}

// toolArgs are the arguments of the built-in tools that detail shows.
type toolArgs struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	Pattern      string `json:"pattern"`
	URL          string `json:"url"`
	Query        string `json:"query"`
	Path         string `json:"path"`
	Skill        string `json:"skill"`
	Description  string `json:"description"`
	SubagentType string `json:"subagent_type"`
	Prompt       string `json:"prompt"`
	Todos        []struct {
		Content string `json:"content"`
	} `json:"todos"`
}

// UnmarshalJSON decodes the arguments it knows; an argument of another
// type than expected is skipped, as the stream's decoder does, and never
// fails the line.
func (in *toolInput) UnmarshalJSON(data []byte) error {
	in.raw = data
	_ = json.Unmarshal(data, &in.toolArgs)
	if in.known() == "" && len(in.Todos) == 0 {
		in.first = firstString(data)
	}
	return nil
}

// known returns the first known argument that is not blank.
func (in *toolInput) known() string {
	for _, s := range [...]string{
		in.FilePath, in.NotebookPath, in.Command, in.Pattern, in.URL, in.Query,
		in.Path, in.Skill, in.Description, in.SubagentType, in.Prompt,
	} {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// detail returns the most telling argument on one line: a Task's
// description with its agent type ("Find the tests (Explore)"), the
// todos of a TodoWrite ("3 todos: Write the parser …"), else the first
// known argument or the first string one.
func (in *toolInput) detail() string {
	switch {
	case strings.TrimSpace(in.Description) != "" && in.SubagentType != "" && in.known() == in.Description:
		return firstLineMarked(in.Description) + " (" + oneLine(in.SubagentType) + ")"
	case in.known() != "":
		return firstLineMarked(in.known())
	case len(in.Todos) == 1:
		return "1 todo: " + firstLineMarked(in.Todos[0].Content)
	case len(in.Todos) > 1:
		return fmt.Sprintf("%d todos: %s", len(in.Todos), firstLineMarked(in.Todos[0].Content))
	}
	return firstLineMarked(in.first)
}

// firstLineMarked is oneLine(s), with " …" when s has more non-blank
// lines than the one shown.
func firstLineMarked(s string) string {
	line := oneLine(s)
	if line == "" || strings.HasSuffix(line, "…") {
		return line
	}
	rest := strings.TrimSpace(s)
	if i := strings.IndexByte(rest, '\n'); i >= 0 && strings.TrimSpace(rest[i:]) != "" {
		return line + " …"
	}
	return line
}

// firstString returns the first string value of a JSON object's members
// that is not blank, "" when there is none.
func firstString(data []byte) string {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the member's name
			return ""
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) == nil && strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}
