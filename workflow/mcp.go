package workflow

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// keyMCP is the key of a state's (or a manifest's) MCP servers.
const keyMCP = "mcp_config"

// MCPConfig is what mcp_config says: a file of Claude Code's .mcp.json
// shape in the workflow, or the servers written inline. The state's steps
// get exactly those servers (--mcp-config with --strict-mcp-config).
type MCPConfig struct {
	// File is the path as written, relative to the workflow's folder (inside
	// a zip; beside a YAML workflow's file); "" for inline servers.
	File string
	// Inline is the servers written in the workflow, as the JSON of a
	// .mcp.json file ({"mcpServers": {...}}); nil for a file.
	Inline []byte
}

// MCP is an mcp_config read and checked: the JSON to hand claude and the
// names of its servers, for the transcript.
type MCP struct {
	JSON    []byte
	Servers []string
	// Source names where it came from, for messages: the file, or
	// "mcp_config in STATE".
	Source string
}

// decodeMCP decodes mcp_config, whose key is k: a path (a string) or a
// mapping of servers by name, as in .mcp.json's mcpServers (a mapping with
// the one key mcpServers is taken as the whole file).
func (d *policyDecoder) decodeMCP(k, v *yaml.Node) (*MCPConfig, error) {
	switch kind(v) {
	case "empty":
		return nil, d.errorAt(k, "%s is empty; name a file like mcp.json, or write the servers under it, or remove the key", keyMCP)
	case "a text":
		p := strings.TrimSpace(v.Value)
		if p == "" {
			return nil, d.errorAt(k, "%s is empty; name a file like mcp.json, or write the servers under it, or remove the key", keyMCP)
		}
		if filepath.IsAbs(p) || !fs.ValidPath(path.Clean(filepath.ToSlash(p))) {
			return nil, d.errorAt(v, "%s %q must be a path inside the workflow, relative to its folder", keyMCP, p)
		}
		return &MCPConfig{File: p}, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, d.errorAt(k, "%s must be a file name or a mapping of servers like { github: { command: gh-mcp } }, not %s", keyMCP, kind(v))
	}
	var servers map[string]any
	if err := v.Decode(&servers); err != nil {
		return nil, d.errorAt(v, "%s: %v", keyMCP, err)
	}
	if inner, ok := servers["mcpServers"].(map[string]any); ok && len(servers) == 1 {
		servers = inner
	}
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		return nil, d.errorAt(v, "%s: %v", keyMCP, err)
	}
	if _, err := ParseMCP(data); err != nil {
		return nil, d.errorAt(k, "%s: %v", keyMCP, err)
	}
	return &MCPConfig{Inline: data}, nil
}

// ParseMCP checks the content of an MCP configuration as Claude Code reads
// it: a JSON object whose mcpServers maps names to servers. It returns the
// servers' names, sorted. No server at all is an error: a state that names
// an MCP configuration and gets none would silently run without the tools
// it was written for.
func ParseMCP(data []byte) ([]string, error) {
	var doc map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("not a valid JSON object: %v", err)
	}
	raw, ok := doc["mcpServers"]
	if !ok {
		return nil, errors.New(`it has no "mcpServers" object; write {"mcpServers": {"NAME": {"command": …}}}`)
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
		return nil, errors.New(`"mcpServers" must be an object of servers by name`)
	}
	if len(servers) == 0 {
		return nil, errors.New("it names no server, so the state would run with none; name one or remove mcp_config")
	}
	names := make([]string, 0, len(servers))
	for name, s := range servers {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(s, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("server %q must be an object like {\"command\": \"…\"} or {\"type\": \"http\", \"url\": \"…\"}", name)
		}
		if _, cmd := obj["command"]; !cmd {
			if _, url := obj["url"]; !url {
				return nil, fmt.Errorf("server %q has neither command nor url", name)
			}
		}
		names = append(names, name)
	}
	slices.Sort(names)
	return names, nil
}

// MCP reads and checks the MCP configuration c of state st of the scope:
// the file (from the scope: the folder, the zip; beside a YAML
// workflow's file) or the inline servers.
func (s *Scope) MCP(st string, c *MCPConfig) (MCP, error) {
	if c.File == "" {
		names, err := ParseMCP(c.Inline)
		if err != nil {
			return MCP{}, fmt.Errorf("%s: %s: %w", st, keyMCP, err)
		}
		return MCP{JSON: c.Inline, Servers: names, Source: keyMCP + " in " + st}, nil
	}
	name := path.Clean(filepath.ToSlash(c.File))
	data, err := s.readMCP(name)
	if err != nil {
		return MCP{}, fmt.Errorf("%s: %s %s cannot be read: %w", st, keyMCP, c.File, unwrapPath(err))
	}
	names, err := ParseMCP(data)
	if err != nil {
		return MCP{}, fmt.Errorf("%s: %s %s: %w", st, keyMCP, c.File, err)
	}
	return MCP{JSON: data, Servers: names, Source: c.File}, nil
}

// readMCP reads the file name of an MCP configuration from the scope.
func (s *Scope) readMCP(name string) ([]byte, error) {
	if s.yaml == nil {
		if s.fsys == nil {
			return nil, fs.ErrNotExist
		}
		return s.read(name)
	}
	root, err := os.OpenRoot(filepath.Dir(s.dir))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(name)
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// message names already.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
