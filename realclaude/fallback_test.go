package realclaude

import (
	"os"
	"slices"
	"strings"
	"testing"

	"raymond/standin"
)

// TestModelFallback529: a state's model list [opus, sonnet] reaches claude
// as --fallback-model sonnet; the real CLI answers opus's 529s by going on
// with sonnet by itself (after three in a row), and raymond says so and
// books the step's cost.
func TestModelFallback529(t *testing.T) {
	t.Parallel()
	w := newWorld(t, &standin.Rules{Rules: []*standin.Rule{
		{Name: "opus", Model: "opus", Replies: []*standin.Reply{{Status: 529}}, Repeat: true},
		{Name: "sonnet", Model: "sonnet", Replies: []*standin.Reply{{Text: "<result>fell back</result>"}}, Repeat: true},
	}})
	w.write(map[string]string{"wf/START.md": "---\nmodel: [opus, sonnet]\n---\nAnswer <result>fell back</result>.\n"})
	o := w.must(0, "run", "--id", "fb", "wf")
	if o.stdout != "fell back\n" {
		t.Errorf("stdout %q", o.stdout)
	}
	if !strings.Contains(o.stderr, "claude-opus-5-5 overloaded: going on with claude-sonnet-5-5") {
		t.Errorf("the progress lines do not say the fallback:\n%s", o.stderr)
	}
	steps := w.steps("fb")
	if len(steps) != 1 || !slices.Contains(steps[0].Argv, "--fallback-model") || steps[0].CostUSD <= 0 {
		t.Fatalf("steps %+v", steps)
	}
	var models []string
	for _, turn := range w.turns() {
		models = append(models, turn.Model)
	}
	if len(models) < 2 || !strings.Contains(models[0], "opus") || !strings.Contains(models[len(models)-1], "sonnet") {
		t.Errorf("requests asked for %q", models)
	}
	w.checkCosts("fb")
}

// TestModelFallbackRejected: the real CLI does not fall back on a 429 the
// API rejected; raymond goes on with the next model of the list itself.
func TestModelFallbackRejected(t *testing.T) {
	t.Parallel()
	w := newWorld(t, &standin.Rules{Rules: []*standin.Rule{
		{Name: "opus", Model: "opus", Replies: []*standin.Reply{{Status: 429, ErrorMessage: "Rate limited",
			Headers: map[string]string{"anthropic-ratelimit-unified-status": "rejected", "x-should-retry": "false"}}}, Repeat: true},
		{Name: "sonnet", Model: "sonnet", Replies: []*standin.Reply{{Text: "<result>fell back</result>"}}, Repeat: true},
	}})
	w.write(map[string]string{"wf/START.md": "---\nmodel: [opus, sonnet]\n---\nAnswer <result>fell back</result>.\n"})
	o := w.must(0, "run", "--id", "rj", "wf")
	if !strings.Contains(o.stderr, "hit a usage limit: going on with sonnet") {
		t.Errorf("the progress lines do not say the fallback:\n%s", o.stderr)
	}
	if steps := w.steps("rj"); len(steps) != 2 {
		t.Errorf("%d steps, want 2 (opus refused, then sonnet)", len(steps))
	}
}

// TestMCPConfig: --mcp-config FILE --strict-mcp-config, as raymond passes a
// state's mcp_config, is accepted by the real CLI, which lists the server
// in its init line; the config's env never reaches the transcript.
func TestMCPConfig(t *testing.T) {
	t.Parallel()
	w := newWorld(t, rules(turn{prompt: "^Use the tools", text: "<result>ok</result>"}))
	w.write(map[string]string{
		"wf/START.md": "---\nmcp_config: mcp.json\n---\nUse the tools you have. Answer <result>ok</result>.\n",
		"wf/mcp.json": `{"mcpServers": {"tiny": {"command": "sh", "args": ["-c", "exit 0"], "env": {"TOKEN": "s3cret"}}}}`,
	})
	o := w.must(0, "run", "--id", "mcp", "wf")
	if o.stdout != "ok\n" {
		t.Errorf("stdout %q", o.stdout)
	}
	steps := w.steps("mcp")
	if len(steps) != 1 || !slices.Contains(steps[0].Argv, "--strict-mcp-config") || !slices.Equal(steps[0].MCPServers, []string{"tiny"}) {
		t.Fatalf("steps %+v", steps)
	}
	stream, err := os.ReadFile(w.dir + "/.raymond/debug/mcp/main_START_001.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stream), `"name":"tiny"`) {
		t.Errorf("the init line does not list the server:\n%.600s", stream)
	}
	events, err := os.ReadFile(w.dir + "/.raymond/debug/mcp/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(events), "s3cret") {
		t.Error("the transcript holds the server's env")
	}
}
