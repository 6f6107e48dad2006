package workflow

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModelList(t *testing.T) {
	for _, tc := range []struct {
		front, model string
		fallbacks    []string
		err          string
	}{
		{front: "model: sonnet", model: "sonnet"},
		{front: "model: [opus, sonnet]", model: "opus", fallbacks: []string{"sonnet"}},
		{front: "model: opus,sonnet,haiku", model: "opus", fallbacks: []string{"sonnet", "haiku"}},
		{front: "model:\n  - opus\n  - opus\n  - haiku", model: "opus", fallbacks: []string{"haiku"}},
		{front: "model: []", err: "START.md:2: model is an empty list; name at least one model"},
		{front: "model: [opus, 3]", err: "model item 2 must be a model name like sonnet, not a number"},
		{front: "model: [opus, \"\"]", err: "model has an empty model name"},
		{front: "model: {a: b}", err: "model must be a model like sonnet, or a list of models"},
	} {
		st, err := ParseState("START.md", []byte("---\n"+tc.front+"\n---\nGo.\n"))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.front, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.front, err)
		}
		if st.Policy.Model != tc.model || strings.Join(st.Policy.Fallbacks, ",") != strings.Join(tc.fallbacks, ",") {
			t.Errorf("%q: model %q fallbacks %q, want %q %q", tc.front, st.Policy.Model, st.Policy.Fallbacks, tc.model, tc.fallbacks)
		}
	}
}

func TestMCPConfig(t *testing.T) {
	for _, tc := range []struct {
		front, file, servers, err string
	}{
		{front: "mcp_config: mcp.json", file: "mcp.json"},
		{front: "mcp_config:\n  github:\n    command: gh-mcp\n    env: {TOKEN: x}", servers: "github"},
		{front: "mcp_config:\n  mcpServers:\n    a: {url: \"http://x\"}\n    b: {command: b}", servers: "a,b"},
		{front: "mcp_config:", err: "mcp_config is empty"},
		{front: "mcp_config: {}", err: "names no server"},
		{front: "mcp_config: /etc/mcp.json", err: "must be a path inside the workflow"},
		{front: "mcp_config: ../mcp.json", err: "must be a path inside the workflow"},
		{front: "mcp_config:\n  a: 3", err: `server "a" must be an object`},
		{front: "mcp_config:\n  a: {args: [x]}", err: `server "a" has neither command nor url`},
	} {
		st, err := ParseState("START.md", []byte("---\n"+tc.front+"\n---\nGo.\n"))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.front, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tc.front, err)
		}
		c := st.Policy.MCP
		if c == nil || c.File != tc.file {
			t.Fatalf("%q: %+v", tc.front, c)
		}
		if tc.servers != "" {
			names, err := ParseMCP(c.Inline)
			if err != nil || strings.Join(names, ",") != tc.servers {
				t.Errorf("%q: servers %q %v, want %q", tc.front, names, err, tc.servers)
			}
		}
	}
}

func TestScopeMCP(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("START.md", "---\nmcp_config: mcp.json\n---\nGo.\n")
	write("mcp.json", `{"mcpServers":{"fs":{"command":"fs-mcp","env":{"K":"v"}}}}`)
	write("empty.json", `{"mcpServers":{}}`)
	write("bad.json", `{bad`)
	sc, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	m, err := sc.MCP("START.md", &MCPConfig{File: "mcp.json"})
	if err != nil || strings.Join(m.Servers, ",") != "fs" || m.Source != "mcp.json" {
		t.Fatalf("%+v %v", m, err)
	}
	for file, want := range map[string]string{
		"empty.json":   "START.md: mcp_config empty.json: it names no server",
		"bad.json":     "START.md: mcp_config bad.json: not a valid JSON object",
		"missing.json": "START.md: mcp_config missing.json cannot be read: no such file or directory",
	} {
		if _, err := sc.MCP("START.md", &MCPConfig{File: file}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
}

func TestManifestModelAndMCP(t *testing.T) {
	m, err := parseManifest("workflow.yaml", []byte("model: [opus, sonnet]\nmcp_config: mcp.json\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Model != "opus" || len(m.Fallbacks) != 1 || m.MCP == nil || m.MCP.File != "mcp.json" || len(m.Warnings) != 0 {
		t.Fatalf("%+v", m)
	}
}

// TestYAMLWorkflowMCP: a YAML workflow's state takes mcp_config inline or as
// a file beside the YAML file; a script state refuses it, as it refuses a
// model.
func TestYAMLWorkflowMCP(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "wf.yaml")
	yml := "states:\n  START:\n    prompt: Go.\n    model: [opus, sonnet]\n    mcp_config: tools.json\n  NEXT:\n    prompt: On.\n    mcp_config:\n      gh: {command: gh-mcp}\n"
	if err := os.WriteFile(p, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tools.json"), []byte(`{"mcpServers":{"fs":{"command":"fs"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := openYAML(p)
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Load("START")
	if err != nil {
		t.Fatal(err)
	}
	if st.Policy.Model != "opus" || len(st.Policy.Fallbacks) != 1 {
		t.Errorf("policy %+v", st.Policy)
	}
	m, err := s.MCP(st.Name, st.Policy.MCP)
	if err != nil || strings.Join(m.Servers, ",") != "fs" {
		t.Errorf("START's servers %+v %v", m, err)
	}
	next, err := s.Load("NEXT")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := s.MCP(next.Name, next.Policy.MCP); err != nil || strings.Join(m.Servers, ",") != "gh" {
		t.Errorf("NEXT's servers %+v %v", m, err)
	}

	script := filepath.Join(dir, "script.yaml")
	if err := os.WriteFile(script, []byte("states:\n  START:\n    sh: echo hi\n    mcp_config: tools.json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := openYAML(script); err == nil || !strings.Contains(err.Error(), "is a script, but mcp_config applies to prompts only") {
		t.Errorf("a script state with mcp_config: %v", err)
	}
}
