package orchestrator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"raymond/state"
	"raymond/workflow"
)

// mcpFile reads and checks the MCP configuration c of the state stateName
// and writes it where claude reads it: a private file of the run, named by
// its content, under the state folder (the servers' env may hold secrets;
// the file is the run's own copy, so what claude gets is what was
// checked, whatever the workflow's file becomes meanwhile). It returns the
// file and the servers' names.
func (g *driving) mcpFile(scope *workflow.Scope, stateName string, c *workflow.MCPConfig) (string, []string, error) {
	mcp, err := scope.MCP(stateName, c)
	if err != nil {
		return "", nil, err
	}
	sum := sha256.Sum256(mcp.JSON)
	dir := g.d.Store.MCPDir(g.m.Run().WorkflowID)
	path := filepath.Join(dir, hex.EncodeToString(sum[:8])+".json")
	if _, err := os.Stat(path); err == nil {
		return path, mcp.Servers, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", nil, fmt.Errorf("%s: write its mcp_config for claude: %w", stateName, err)
	}
	_ = state.MakePrivate(dir)
	tmp, err := os.CreateTemp(dir, ".mcp-*")
	if err != nil {
		return "", nil, fmt.Errorf("%s: write its mcp_config for claude: %w", stateName, err)
	}
	_, werr := tmp.Write(mcp.JSON)
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", nil, fmt.Errorf("%s: write its mcp_config for claude: %w", stateName, werr)
	}
	return path, mcp.Servers, nil
}
