package scripted

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"raymond/claude"
)

// agentAnswer runs one step of agent at stateName and returns its answer,
// or its outcome in brackets.
func agentAnswer(t *testing.T, r *Runner, agent, stateName string, seq int) string {
	t.Helper()
	req := request(stateName, nil)
	req.Agent, req.Seq = agent, seq
	res, _ := run(t, r, req)
	if res.Outcome != claude.Success {
		return "[" + res.Outcome.String() + "]"
	}
	return res.Text
}

func TestRunAgentQueues(t *testing.T) {
	r := parse(t, `
replies:
  main_worker2/WORKER.md: [two-a, two-b]
  WORKER: [shared-1, shared-2]
  main_worker1/WORKER: [one]
`)
	steps := []struct{ agent, want string }{
		{"main_worker2", "two-a"},
		{"main_worker3", "shared-1"}, // no queue of its own
		{"main_worker1", "one"},
		{"main_worker1", "shared-2"}, // its own queue is used up: the shared one serves
		{"main_worker2", "two-b"},
		{"main_worker2", "[invocation error]"},
	}
	for i, s := range steps {
		assert.Equal(t, s.want, agentAnswer(t, r, s.agent, "WORKER.md", i+1), "step %d of %s", i+1, s.agent)
	}
	assert.Empty(t, r.Unused())
	assert.Equal(t, []Exhausted{{State: "WORKER.md", Agent: "main_worker2", Step: "main_worker2_WORKER_006", Listed: true}}, r.Exhausted())
}

func TestRunAgentQueueMessage(t *testing.T) {
	r := parse(t, "replies:\n  main_worker1/WORKER.md: [a]\n  WORKER.md: [b, c]\n  main/START: [s]\n")
	for range 3 {
		agentAnswer(t, r, "main_worker1", "WORKER.md", 1)
	}
	req := request("WORKER.md", nil)
	req.Agent = "main_worker1"
	res, rec := run(t, r, req)
	want := "no scripted reply left for main_worker1 at WORKER.md: replies.yaml gives 3 (1 of them for main_worker1) and all were used"
	assert.Equal(t, want+"\n", res.Stderr)
	assert.Equal(t, []string{want}, rec.stderr)

	// main/START serves main only: another agent finds nothing for START.
	res, _ = run(t, r, request("START.md", nil)) // request's agent is main
	assert.Equal(t, claude.Success, res.Outcome)
	req = request("START.md", nil)
	req.Agent = "main_x1"
	res, _ = run(t, r, req)
	assert.Equal(t, "no scripted reply for START.md: replies.yaml gives none for it\n", res.Stderr)
	assert.Equal(t, []Exhausted{
		{State: "WORKER.md", Agent: "main_worker1", Step: "main_worker1_WORKER_001", Listed: true},
		{State: "START.md", Agent: "main_x1", Step: "main_x1_START_001", Listed: false},
	}, r.Exhausted())
}

func TestUnusedAgentQueue(t *testing.T) {
	r := parse(t, "replies:\n  main_worker1/WORKER.md: [mine, spare]\n  WORKER.md: [shared]\n")
	agentAnswer(t, r, "main_worker1", "WORKER.md", 1)
	assert.Equal(t, []Unused{
		{State: "main_worker1/WORKER.md", Index: 2, Text: "spare", Times: 1},
		{State: "WORKER.md", Index: 1, Text: "shared", Times: 1},
	}, r.Unused())
}

func TestRunVerbatim(t *testing.T) {
	r := parse(t, `
replies:
  WORKER.md:
    - text: "Kept {{item}} as written. <result>{{item}}</result>"
      template: false
      say: ["Saying {{item}}"]
      tools: [{name: Bash, input: {command: "ls {{item}}"}, result: "{{item}}"}]
    - text: "Filled {{item}}."
      template: true
`)
	vars := map[string]string{"item": "parsing"}
	res, rec := run(t, r, request("WORKER.md", vars))
	assert.Equal(t, "Kept {{item}} as written. <result>{{item}}</result>", res.Text)
	assert.Equal(t, []string{"Saying {{item}}", res.Text}, rec.texts(claude.EventText))
	assert.Equal(t, []string{"{{item}}"}, rec.texts(claude.EventToolResult))
	assert.Contains(t, rec.lines[2], `"command":"ls {{item}}"`)

	res, _ = run(t, r, request("WORKER.md", vars))
	assert.Equal(t, "Filled parsing.", res.Text)
}

func TestParseValue(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("replies:\n  START: [hi]\n"), &doc))
	r, err := ParseValue("case one", Value(&doc).(Mapping)[0].Value)
	require.NoError(t, err)
	assert.Equal(t, "hi", answer(t, r, "START.md"))

	r, err = ParseValue("case one", nil)
	require.NoError(t, err)
	assert.Equal(t, "[invocation error]", answer(t, r, "START.md"), "no replies: every step finds none")

	_, err = ParseValue("case one", []any{"a"})
	assert.EqualError(t, err, "case one: replies must map state names to lists of replies")
}

func TestReplyErrorFields(t *testing.T) {
	tests := []struct {
		name  string
		yaml  string
		state string
		reply int
		msg   string // Err's message, without the file
	}{
		{"bad reply", "replies:\n  A: [a]\n  B:\n    - b\n    - {text: b, tiems: 2}\n", "B", 2,
			`B reply 2: unknown key "tiems"; a reply takes text, outcome, times, repeat, cost, delay, wait_for, reset, say, tools, writes, template`},
		{"bad list", "replies:\n  A: a\n", "A", 0, `A must hold a list of replies: start each reply with "- "`},
		{"bad key", "replies:\n  x/A: [a]\n", "x/A", 0,
			`"x/A" is not a state: "x" is not the id of an agent (main, main_worker1, …); name a state such as WORKER.md, or one agent's state such as main_worker1/WORKER.md`},
		{"key not text", "replies:\n  7: [a]\n", "7", 0, "state name 7 is not a text; name a state by its file name, such as WORKER.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("r.yaml", []byte(tt.yaml))
			re, ok := errors.AsType[*ReplyError](err)
			require.True(t, ok, "%v", err)
			assert.Equal(t, "r.yaml", re.File)
			assert.Equal(t, tt.state, re.State)
			assert.Equal(t, tt.reply, re.Reply)
			assert.EqualError(t, re.Err, tt.msg)
			assert.EqualError(t, err, "r.yaml: "+tt.msg)
		})
	}
}

func TestCheckAgentKeys(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "WORKER.md"), []byte("x"), 0o644))
	scope := openScope(t, dir)
	r := parse(t, "replies:\n  main_worker1/WORKER: [a]\n  main_worker2/WORKR.md: [b]\n")
	err := r.Check(scope)
	assert.EqualError(t, err, `replies.yaml: replies for "main_worker2/WORKR.md" name no state of the workflow: target "WORKR.md" does not exist in the workflow`)
	re, ok := errors.AsType[*ReplyError](err)
	require.True(t, ok)
	assert.Equal(t, "main_worker2/WORKR.md", re.State)
}

// TestRunAgentQueueCrashNamesItsList: a crash from an agent's own list
// says which list it came from, so the author finds the reply.
func TestRunAgentQueueCrashNamesItsList(t *testing.T) {
	r := parse(t, "replies:\n  WORKER.md: [ok]\n  main_worker2/WORKER.md: [{outcome: crash}]\n")
	req := request("WORKER.md", nil)
	req.Agent = "main_worker2"
	res, _ := run(t, r, req)
	assert.Equal(t, claude.Crash, res.Outcome)
	assert.Equal(t, "scripted crash: reply 1 of main_worker2/WORKER.md has outcome crash\n", res.Stderr)
}
