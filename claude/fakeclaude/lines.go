package fakeclaude

import (
	"fmt"

	"raymond/claude/wire"
)

// The lines themselves are package wire's, shaped after the captured outputs of
// Claude Code 2.1.330 in testdata/claude at the repository root.

// defaultTools is the tool list of the init line.
var defaultTools = []string{"Task", "Bash", "Edit", "Glob", "Grep", "NotebookEdit", "Read",
	"Skill", "TaskStop", "TodoWrite", "ToolSearch", "WebFetch", "WebSearch", "Write"}

// tokens counts what a call used; each turn reads 1200 and writes 25 tokens, as in the
// fixtures.
type tokens struct {
	in, out int
	cost    float64
}

func turnTokens(turns int) tokens { return tokens{in: 1200 * turns, out: 25 * turns} }

func newUsage(t tokens) wire.Usage { return wire.NewUsage(int64(t.in), int64(t.out)) }

// modelUsageMap is the modelUsage object for t; nothing used is an empty object.
func modelUsageMap(model string, t tokens) map[string]wire.ModelUsage {
	m := map[string]wire.ModelUsage{}
	if t.in == 0 && t.out == 0 && t.cost == 0 {
		return m
	}
	m[model] = wire.NewModelUsage(model, int64(t.in), int64(t.out), t.cost)
	return m
}

func ptr[T any](v T) *T { return &v }

// jsonable turns the map[any]any values that YAML decoding produces for a
// mapping whose keys are not all strings into map[string]any, which
// encoding/json can write.
func jsonable(v any) any {
	switch v := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = jsonable(x)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = jsonable(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = jsonable(x)
		}
		return s
	}
	return v
}
