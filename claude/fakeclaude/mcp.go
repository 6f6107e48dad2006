package fakeclaude

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"raymond/claude/wire"
)

// mcpServers reads the --mcp-config arguments as the real CLI does: each
// one is a JSON string if it parses as one, else a file (relative to the
// working directory). It returns the servers' names in order, or the
// refusal worded as the CLI words it (2.1.330: "Error: Invalid MCP
// configuration:" and the reason on the next line; nothing on stdout;
// exit 1).
func (t *turn) mcpServers() ([]string, error) {
	var names []string
	for _, arg := range t.opts.mcpConfigs {
		data := []byte(arg)
		if !json.Valid(data) {
			path := arg
			if !filepath.IsAbs(path) {
				path = filepath.Join(t.inv.cwd, path)
			}
			var err error
			if data, err = os.ReadFile(path); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil, mcpRefusal("MCP config file not found: " + path)
				}
				return nil, mcpRefusal("MCP config file could not be read: " + path)
			}
			if !json.Valid(data) {
				return nil, mcpRefusal("MCP config is not a valid JSON")
			}
		}
		var doc struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(data, &doc); err != nil || doc.MCPServers == nil {
			return nil, mcpRefusal("mcpServers: Invalid input: expected record, received undefined")
		}
		for name := range doc.MCPServers {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names, nil
}

func mcpRefusal(reason string) error {
	return cliError("Error: Invalid MCP configuration:\n" + reason)
}

// initServers is the init line's mcp_servers: the servers --mcp-config
// named. The fake starts none; it reports them as connected.
func (t *turn) initServers() []any {
	out := []any{}
	for _, name := range t.mcp {
		out = append(out, struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Source string `json:"source"`
		}{name, "connected", "dynamic"})
	}
	return out
}

// fallbackLines are what the CLI writes when the main model is overloaded
// and it takes --fallback-model: two retries of the 529, then a
// model_fallback line (the third 529 is not announced), as the real CLI
// 2.1.330 was seen to do.
func (t *turn) fallbackLines(from, to string) []any {
	e := apiErrors["overloaded"]
	var lines []any
	for attempt := 1; attempt <= 2; attempt++ {
		l := t.apiRetry(e)
		l.Attempt, l.MaxRetries = attempt, 10
		lines = append(lines, l)
	}
	return append(lines, wire.ModelFallbackLine{Type: "system", Subtype: "model_fallback", UUID: wire.NewUUID(), Trigger: "overloaded",
		OriginalModel: from, FallbackModel: to, Content: "Switched to " + to + " due to high demand for " + from, SessionID: t.sessionID})
}
